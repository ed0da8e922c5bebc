import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type Api } from "./support";

/** SPEC.md POST /directory/resolve, GET /users, "Directory identity"; PRODUCT.md keyset cursors. */
let api: Api;
let token: string;

beforeAll(async () => {
  api = await startApi();
  token = await api.token({ scopes: ["svc:directory.read"] });
});
afterAll(async () => {
  await api?.stop();
});

const resolve = (body: unknown) => api.call("/directory/resolve", { method: "POST", token, body });

describe("POST /directory/resolve", () => {
  it("resolves the four identifier types, keeps the request order and echoes each query", async () => {
    const identifiers = [
      { type: "codehost", value: "bob-okafor" },
      { type: "handle", value: "alice" },
      { type: "x_handle", value: "nobody_has_this_one" },
      { type: "chatapp", value: "carol_plays" },
      { type: "x_handle", value: "alice_builds" },
    ];
    const res = await resolve({ identifiers });
    expect(res.status).toBe(200);
    const results = res.body.data.results;
    expect(results.map((r: { query: unknown }) => r.query)).toEqual(identifiers);
    expect(results.map((r: { identity: { handle: string } | null }) => r.identity?.handle ?? null)).toEqual(["bob", "alice", null, "carol", "alice"]);
    expect(Object.keys(results[0].identity).sort()).toEqual(["avatar_url", "avatar_url_small", "display_name", "handle"]);
  });

  it("matches case-insensitively and ignores a leading @, echoing the query as sent", async () => {
    const res = await resolve({ identifiers: [{ type: "x_handle", value: "@Alice_Builds" }, { type: "handle", value: " ALICE " }] });
    expect(res.body.data.results).toEqual([
      { query: { type: "x_handle", value: "@Alice_Builds" }, identity: expect.objectContaining({ handle: "alice" }) },
      { query: { type: "handle", value: " ALICE " }, identity: expect.objectContaining({ handle: "alice" }) },
    ]);
  });

  it("gives identity null for users hidden from the directory and disabled users", async () => {
    const hidden = await api.createUser({ directoryVisible: false });
    await api.sql(`INSERT INTO "DirectoryLink" ("userId", type, value) VALUES ($1, 'codehost', $2)`, [hidden.id, `${hidden.handle}-code`]);
    const res = await resolve({
      identifiers: [
        { type: "handle", value: hidden.handle },
        { type: "codehost", value: `${hidden.handle}-code` },
        { type: "handle", value: "dave" },
      ],
    });
    expect(res.body.data.results.map((r: { identity: unknown }) => r.identity)).toEqual([null, null, null]);
  });

  it("answers duplicates in the request once each, in place", async () => {
    const res = await resolve({ identifiers: [{ type: "handle", value: "bob" }, { type: "handle", value: "bob" }] });
    expect(res.body.data.results).toHaveLength(2);
    expect(res.body.data.results[1].identity.handle).toBe("bob");
  });

  it("accepts 50 identifiers", async () => {
    const identifiers = Array.from({ length: 50 }, (_, i) => ({ type: "handle", value: i % 2 ? "alice" : `missing${i}` }));
    const res = await resolve({ identifiers });
    expect(res.status).toBe(200);
    expect(res.body.data.results).toHaveLength(50);
  });

  it("is 400 invalid_request for more than 50 identifiers or none", async () => {
    for (const n of [51, 500, 0]) {
      const res = await resolve({ identifiers: Array.from({ length: n }, () => ({ type: "handle", value: "alice" })) });
      expect(res.status, String(n)).toBe(400);
      expect(res.body).toEqual({ error: { code: "invalid_request", message: expect.stringContaining("identifiers") } });
    }
  });

  it("is 400 invalid_request for an unknown type or a malformed item", async () => {
    const bad = [
      { identifiers: [{ type: "email", value: "a@b.c" }] },
      { identifiers: [{ type: "handle" }] },
      { identifiers: [{ type: "handle", value: 5 }] },
      { identifiers: [{ type: "handle", value: "" }] },
      { identifiers: [{ value: "alice" }] },
      { identifiers: ["alice"] },
      { identifiers: "alice" },
      { identifiers: null },
      {},
      [],
      { identifiers: [{ type: "HANDLE", value: "alice" }] },
      { identifiers: [{ type: "handle", value: "x".repeat(257) }] },
    ];
    for (const body of bad) {
      const res = await resolve(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
    }
  });
});

describe("GET /users", () => {
  const list = (query = "") => api.call(`/users${query}`, { token });

  it("defaults to 25 users with a next_cursor", async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body.data.users).toHaveLength(25);
    expect(typeof res.body.data.next_cursor).toBe("string");
    expect(Object.keys(res.body.data.users[0]).sort()).toEqual(["avatar_url", "avatar_url_small", "display_name", "handle"]);
  });

  it("walked to the end returns every directory-visible user exactly once, in a stable order", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await list(`?limit=17${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.users.map((u: { handle: string }) => u.handle));
      cursor = res.body.data.next_cursor;
      pages++;
    } while (cursor !== null && pages < 1000);
    const rows = await api.sql<{ handle: string }>(`SELECT handle FROM "User" WHERE "directoryVisible" AND NOT disabled ORDER BY id`);
    expect(rows.length).toBeGreaterThan(100);
    expect(seen).toEqual(rows.map((r) => r.handle));
    expect(new Set(seen).size).toBe(seen.length);
    const hidden = await api.sql<{ handle: string }>(`SELECT handle FROM "User" WHERE NOT "directoryVisible"`);
    expect(hidden.length).toBeGreaterThan(0);
    for (const h of hidden) expect(seen).not.toContain(h.handle);
  });

  it("has next_cursor null on the final page, also when it is exactly full", async () => {
    const visible = await api.sql<{ handle: string }>(`SELECT handle FROM "User" WHERE "directoryVisible" AND NOT disabled ORDER BY id`);
    expect(visible.length).toBeGreaterThan(100);
    // Walk until exactly `remaining` users are left, then ask for a page of exactly that many.
    const remaining = 37;
    const seen: string[] = [];
    let cursor: string | null = null;
    while (visible.length - seen.length > remaining) {
      const limit = Math.min(100, visible.length - seen.length - remaining);
      const page = await list(`?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(page.body.data.users).toHaveLength(limit);
      expect(page.body.data.next_cursor).toEqual(expect.any(String));
      seen.push(...page.body.data.users.map((u: { handle: string }) => u.handle));
      cursor = page.body.data.next_cursor;
    }
    const last = await list(`?limit=${remaining}&cursor=${encodeURIComponent(cursor!)}`);
    expect(last.status).toBe(200);
    // The last page is exactly full, and it says so: no cursor to an empty page.
    expect(last.body.data.users).toHaveLength(remaining);
    expect(last.body.data.next_cursor).toBeNull();
    seen.push(...last.body.data.users.map((u: { handle: string }) => u.handle));
    expect(seen).toEqual(visible.map((r) => r.handle));

    // One page holding every remaining user and one to spare is the same final page.
    const roomy = await list(`?limit=${remaining + 1}&cursor=${encodeURIComponent(cursor!)}`);
    expect(roomy.body.data.users).toHaveLength(remaining);
    expect(roomy.body.data.next_cursor).toBeNull();
    // One fewer than remain is not the final page.
    const short = await list(`?limit=${remaining - 1}&cursor=${encodeURIComponent(cursor!)}`);
    expect(short.body.data.next_cursor).toEqual(expect.any(String));
  });

  it("caps limit at 100", async () => {
    expect((await list("?limit=100")).body.data.users).toHaveLength(100);
    expect((await list("?limit=5000")).body.data.users).toHaveLength(100);
  });

  it("is 400 invalid_request for a non-positive or non-integer limit", async () => {
    for (const bad of ["0", "-2", "x", "2.5", "", "5&limit=6"]) {
      const res = await list(`?limit=${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
    }
  });

  it("is 400 invalid_request for a malformed cursor", async () => {
    const good = (await list("?limit=2")).body.data.next_cursor as string;
    const forged = Buffer.from("u1:-5").toString("base64url");
    const other = Buffer.from('{"id":3}').toString("base64url");
    const padded = `${good}=`;
    for (const bad of ["garbage!", "", "AAAA", forged, other, padded, good.slice(0, -1), "' OR 1=1 --", "../../etc/passwd", `${good}&cursor=${good}`]) {
      const res = await list(`?cursor=${encodeURIComponent(bad)}`);
      expect(res.status, bad).toBe(400);
      expect(res.body).toEqual({ error: { code: "invalid_request", message: expect.stringContaining("cursor") } });
    }
  });

  it("keeps cursors stable while the directory changes: no user is skipped or repeated", async () => {
    const handles = (res: { body: { data: { users: { handle: string }[] } } }) => res.body.data.users.map((u) => u.handle);
    const setVisible = (handle: string, visible: boolean) =>
      api.sql(`UPDATE "User" SET "directoryVisible" = $2 WHERE handle = $1`, [handle, visible]);
    // The directory as it stands: the first 21 visible users, in order.
    const snapshot = handles(await list("?limit=21"));
    expect(snapshot).toHaveLength(21);
    const gone = snapshot[0]!;

    // Skipped: a user on the page already read leaves the directory (and someone joins, at the
    // end). A position-based cursor would now skip the first user of the next page.
    const first = await list("?limit=10");
    expect(handles(first)).toEqual(snapshot.slice(0, 10));
    await setVisible(gone, false);
    await api.createUser();
    const second = await list(`?limit=10&cursor=${encodeURIComponent(first.body.data.next_cursor)}`);
    expect(handles(second)).toEqual(snapshot.slice(10, 20));

    // Repeated: while the next page is read, a user before the cursor (re)appears. A
    // position-based cursor would now repeat the last user of the page already read.
    const before = await list("?limit=10");
    expect(handles(before)).toEqual(snapshot.slice(1, 11));
    await setVisible(gone, true);
    const after = await list(`?limit=10&cursor=${encodeURIComponent(before.body.data.next_cursor)}`);
    expect(handles(after)).toEqual(snapshot.slice(11, 21));
  });
});
