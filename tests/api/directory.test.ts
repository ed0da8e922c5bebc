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
    const [{ n }] = (await api.sql<{ n: number }>(`SELECT count(*)::int AS n FROM "User" WHERE "directoryVisible" AND NOT disabled`)) as [{ n: number }];
    const first = await list(`?limit=${Math.min(n - 1, 100)}`);
    // Walk with pages of exactly the remaining size so the last page is full.
    let cursor = first.body.data.next_cursor;
    let last;
    while (cursor) {
      last = await list(`?limit=100&cursor=${cursor}`);
      cursor = last.body.data.next_cursor;
    }
    expect(last!.body.data.next_cursor).toBeNull();
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

  it("keeps cursors stable when users join: no user is skipped or repeated", async () => {
    const first = await list("?limit=10");
    await api.createUser();
    const second = await list(`?limit=10&cursor=${first.body.data.next_cursor}`);
    const firstHandles = first.body.data.users.map((u: { handle: string }) => u.handle);
    for (const u of second.body.data.users) expect(firstHandles).not.toContain(u.handle);
  });
});
