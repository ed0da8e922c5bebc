import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type Api } from "../api/support";
import { cliJson } from "../helpers/cli";
import { createTestApp, tokenRequest } from "../helpers/oidc";

/**
 * First increment: every app's sandbox (`sbx_` + its client id) signs in with client
 * credentials whatever the app's review status, reads and writes only its own synthetic world, and
 * no live token ever sees that world.
 */
let api: Api;

interface Sandbox {
  appClientId: string;
  liveSecret: string;
  clientId: string;
  secret: string;
  worldId: number;
}

const SCOPES = ["svc:chat.read", "svc:chat.write", "svc:directory.read", "svc:pokes.write"];

/** A pending API client (made with SQL, as before sandboxes) whose sandbox secret the CLI rolls (the sandbox is made lazily). */
async function pendingAppWithSandbox(): Promise<Sandbox> {
  const app = await createTestApp(api.server.databaseUrl, { type: "api", status: "pending", scopes: SCOPES });
  const rolled = await cliJson<{ client_id: string; client_secret: string }>(api.server.databaseUrl, [
    "apps",
    "sandbox",
    "secret",
    "roll",
    app.clientId,
  ]);
  expect(rolled.client_id).toBe(`sbx_${app.clientId}`);
  const [row] = await api.sql<{ id: number }>(`SELECT id FROM "Sandbox" WHERE "clientId" = $1`, [rolled.client_id]);
  return { appClientId: app.clientId, liveSecret: app.clientSecret!, clientId: rolled.client_id, secret: rolled.client_secret, worldId: row!.id };
}

/** A client-credentials grant with the id and secret in the body (the fast path's shape); status and body. */
function clientCredentials(clientId: string, secret: string) {
  return tokenRequest(api.server, { grant_type: "client_credentials", client_id: clientId, client_secret: secret });
}

async function sandboxToken(sandbox: Sandbox): Promise<string> {
  const res = await clientCredentials(sandbox.clientId, sandbox.secret);
  expect(res.status).toBe(200);
  return res.body.access_token as string;
}

/** A generated person of the sandbox whose handle no live person has. */
async function sandboxOnlyPerson(worldId: number): Promise<{ id: number; handle: string }> {
  const [row] = await api.sql<{ id: number; handle: string }>(
    `SELECT id, handle FROM "User" s WHERE "worldId" = $1 AND NOT disabled AND "directoryVisible" AND NOT muted
       AND NOT EXISTS (SELECT 1 FROM "User" l WHERE l."worldId" = 0 AND l.handle = s.handle)
     ORDER BY id LIMIT 1`,
    [worldId],
  );
  if (!row) throw new Error("no sandbox-only person");
  return row;
}

async function chatIds(token: string): Promise<string[]> {
  const res = await api.call("/global-chat/messages?limit=100", { token });
  expect(res.status).toBe(200);
  return res.body.data.messages.map((m: { id: string }) => m.id);
}

let first: Sandbox;
let firstToken: string;
let liveReader: string;

beforeAll(async () => {
  api = await startApi();
  first = await pendingAppWithSandbox();
  firstToken = await sandboxToken(first);
  liveReader = await api.token({ scopes: ["svc:chat.read", "svc:directory.read"] });
});
afterAll(async () => {
  await api?.stop();
});

describe("sandbox credentials", () => {
  it("give a pending API client a marked sandbox token, while its live credentials still get invalid_client", async () => {
    const live = await clientCredentials(first.appClientId, first.liveSecret);
    expect(live.status).toBe(401);
    expect(live.body.error).toBe("invalid_client");

    const claims = decodeJwt(firstToken);
    expect(claims.client_id).toBe(first.clientId);
    expect(claims.sandbox).toBe(true);
    expect(claims.sub).toBeUndefined();
    expect(claims.scope).toBe("svc:chat.read svc:directory.read");

    // The same through oidc-provider (HTTP Basic is not the fast path's shape): it knows the sandbox client too.
    const basic = await tokenRequest(api.server, { grant_type: "client_credentials" }, {
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(first.clientId)}:${encodeURIComponent(first.secret)}`).toString("base64")}`,
    });
    expect(basic.status).toBe(200);
    expect(decodeJwt(basic.body.access_token as string)).toMatchObject({ client_id: first.clientId, sandbox: true });

    const wrong = await clientCredentials(first.clientId, first.liveSecret);
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe("invalid_client");

    // A token is not a use of the world: it is built on the first API call.
    const shown = await cliJson(api.server.databaseUrl, ["apps", "sandbox", "show", first.appClientId]);
    expect(shown).toEqual({ client_id: first.clientId, users: [], quota_per_minute: 600, created_at: expect.any(Number), generated_at: null });
  });

  it("stop working when the app is suspended", async () => {
    const sandbox = await pendingAppWithSandbox();
    const token = await sandboxToken(sandbox);
    await api.sql(`UPDATE "Application" SET status = 'suspended' WHERE "clientId" = $1`, [sandbox.appClientId]);
    await cliJson(api.server.databaseUrl, ["apps", "sandbox", "show", sandbox.appClientId]);
    const refused = await clientCredentials(sandbox.clientId, sandbox.secret);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe("invalid_client");
    // The access cache lives ACCESS_CACHE_TTL_MS (2 s) without an announcement; the SQL above announced nothing.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const res = await api.call("/global-chat/messages", { token });
    expect(res.status).toBe(401);
  });
});

describe("the synthetic world", () => {
  it("is built on first use, once however many first requests come at once: the sandbox token reads the sandbox's chat and directory, 50 people and 300 messages", async () => {
    const firstUses = await Promise.all(Array.from({ length: 6 }, () => api.call("/global-chat/messages?limit=100", { token: firstToken })));
    expect(firstUses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const chat = firstUses[0]!;
    expect(chat.status).toBe(200);
    const ids = chat.body.data.messages.map((m: { id: string }) => m.id);
    expect(ids.length).toBe(100);
    const worlds = await api.sql<{ worldId: number; n: string }>(
      `SELECT "worldId", count(*)::text AS n FROM "ChatMessage" WHERE id = ANY($1::int8[]) GROUP BY 1`,
      [ids],
    );
    expect(worlds).toEqual([{ worldId: first.worldId, n: "100" }]);

    const [counts] = await api.sql<{ people: string; messages: string }>(
      `SELECT (SELECT count(*) FROM "User" WHERE "worldId" = $1)::text AS people,
              (SELECT count(*) FROM "ChatMessage" WHERE "worldId" = $1)::text AS messages`,
      [first.worldId],
    );
    expect(Number(counts!.people)).toBe(50);
    expect(Number(counts!.messages)).toBe(300);
    const shown = await cliJson<{ generated_at: number | null }>(api.server.databaseUrl, ["apps", "sandbox", "show", first.appClientId]);
    expect(shown.generated_at).toEqual(expect.any(Number));

    const handles: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await api.call(`/users?limit=100${cursor ? `&cursor=${cursor}` : ""}`, { token: firstToken });
      expect(page.status).toBe(200);
      handles.push(...page.body.data.users.map((u: { handle: string }) => u.handle));
      cursor = page.body.data.next_cursor;
    } while (cursor);
    const listed = await api.sql<{ handle: string }>(
      `SELECT handle FROM "User" WHERE "worldId" = $1 AND "directoryVisible" AND NOT disabled ORDER BY id`,
      [first.worldId],
    );
    expect(handles).toEqual(listed.map((r) => r.handle));
  });

  it("has no live person in it: GET /users/alice and resolving alice with a sandbox token find nobody", async () => {
    const profile = await api.call("/users/alice", { token: firstToken });
    expect(profile.status).toBe(404);
    expect(profile.body.error.code).toBe("not_found");
    const resolved = await api.call("/directory/resolve", {
      method: "POST",
      token: firstToken,
      body: { identifiers: [{ type: "handle", value: "alice" }, { type: "x_handle", value: "alice_builds" }] },
    });
    expect(resolved.status).toBe(200);
    expect(resolved.body.data.results.map((r: { identity: unknown }) => r.identity)).toEqual([null, null]);

    const person = await sandboxOnlyPerson(first.worldId);
    const own = await api.call(`/users/${person.handle}`, { token: firstToken });
    expect(own.status).toBe(200);
    expect(own.body.user.username).toBe(person.handle);
  });

  it("is invisible to live tokens: a sandbox person is unknown to the live API, and the live chat holds no sandbox message", async () => {
    const person = await sandboxOnlyPerson(first.worldId);
    for (const token of [liveReader, undefined]) {
      const profile = await api.call(`/users/${person.handle}`, { token });
      expect(profile.status).toBe(404);
    }
    const resolved = await api.call("/directory/resolve", {
      method: "POST",
      token: liveReader,
      body: { identifiers: [{ type: "handle", value: person.handle }] },
    });
    expect(resolved.body.data.results[0].identity).toBeNull();

    const live = await chatIds(liveReader);
    const [mixed] = await api.sql<{ n: string }>(`SELECT count(*)::text AS n FROM "ChatMessage" WHERE id = ANY($1::int8[]) AND "worldId" <> 0`, [live]);
    expect(mixed!.n).toBe("0");
  });
});

describe("writes never cross worlds", () => {
  it("a sandbox chat post appears only in its sandbox's chat, and a live post never in a sandbox", async () => {
    const second = await pendingAppWithSandbox();
    const secondToken = await sandboxToken(second);
    await chatIds(secondToken); // builds the second world

    const author = await sandboxOnlyPerson(first.worldId);
    const writer = await api.mintToken({ clientId: first.clientId, userId: author.id, scopes: ["svc:chat.write", "svc:chat.read"] });
    const posted = await api.call("/global-chat/messages", { method: "POST", token: writer, body: { text: "hello from the sandbox" } });
    expect(posted.status).toBe(201);
    expect(posted.body.data.author.handle).toBe(author.handle);
    const sandboxPost = posted.body.data.id as string;

    const liveAuthor = await api.createUser();
    const liveWriter = await api.token({ user: liveAuthor.handle, scopes: ["svc:chat.write", "svc:chat.read"] });
    const livePosted = await api.call("/global-chat/messages", { method: "POST", token: liveWriter, body: { text: "hello from the live world" } });
    expect(livePosted.status).toBe(201);
    const livePost = livePosted.body.data.id as string;

    expect(await chatIds(firstToken)).toContain(sandboxPost);
    expect(await chatIds(firstToken)).not.toContain(livePost);
    expect(await chatIds(liveReader)).toContain(livePost);
    expect(await chatIds(liveReader)).not.toContain(sandboxPost);
    expect(await chatIds(secondToken)).not.toContain(sandboxPost);
    expect(await chatIds(secondToken)).not.toContain(livePost);
    // A sandbox post is an event of its sandbox's world only (tests/sandbox/events.test.ts: delivered there only).
    const events = await api.sql<{ worldId: number }>(`SELECT "worldId" FROM "Event" WHERE data->>'id' = $1`, [sandboxPost]);
    expect(events.map((e) => e.worldId)).toEqual([first.worldId]);

    // A reply or a poke is resolved inside the caller's world.
    const reply = await api.call("/global-chat/messages", {
      method: "POST",
      token: writer,
      body: { text: "replying across worlds", reply_to_id: livePost },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe("invalid_reply");
    const poker = await api.mintToken({ clientId: first.clientId, userId: author.id, scopes: ["svc:pokes.write"] });
    const poke = await api.call(`/users/${liveAuthor.handle}/poke`, { method: "POST", token: poker });
    expect(poke.status).toBe(404);
  });

  it("a token acts only for a person of its own world: a sandbox token for a live person, or a live token for a sandbox person, is invalid", async () => {
    const alice = await api.userId("alice");
    const crossed = await api.mintToken({ clientId: first.clientId, userId: alice, scopes: ["svc:chat.read"] });
    const res = await api.call("/me", { token: crossed });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("invalid_token");

    const person = await sandboxOnlyPerson(first.worldId);
    const live = await api.createApp({ status: "approved" });
    const reverse = await api.mintToken({ clientId: live.clientId, userId: person.id, scopes: ["svc:chat.read"] });
    const res2 = await api.call("/me", { token: reverse });
    expect(res2.status).toBe(401);
  });
});

describe("reset", () => {
  it("deletes what was written in the sandbox and builds the world again", async () => {
    const author = await sandboxOnlyPerson(first.worldId);
    const writer = await api.mintToken({ clientId: first.clientId, userId: author.id, scopes: ["svc:chat.write"] });
    await new Promise((resolve) => setTimeout(resolve, 2_100)); // the author's 2-second chat slot
    const posted = await api.call("/global-chat/messages", { method: "POST", token: writer, body: { text: "before the reset" } });
    expect(posted.status).toBe(201);
    const [before] = await api.sql<{ generated: string }>(`SELECT "generatedAt"::text AS generated FROM "Sandbox" WHERE id = $1`, [first.worldId]);

    const reset = await cliJson<{ client_id: string; users: number }>(api.server.databaseUrl, ["apps", "sandbox", "reset", first.appClientId]);
    expect(reset).toEqual({ client_id: first.clientId, users: 50 });

    const ids = await chatIds(firstToken);
    expect(ids).not.toContain(posted.body.data.id);
    expect(ids).toHaveLength(100);
    const [after] = await api.sql<{ generated: string; people: string; old: string }>(
      `SELECT (SELECT "generatedAt"::text FROM "Sandbox" WHERE id = $1) AS generated,
              (SELECT count(*) FROM "User" WHERE "worldId" = $1)::text AS people,
              (SELECT count(*) FROM "User" WHERE id = $2)::text AS old`,
      [first.worldId, author.id],
    );
    expect(after!.generated > before!.generated).toBe(true);
    expect(after!.people).toBe("50");
    expect(after!.old).toBe("0");
    // The live world is untouched.
    expect((await api.call("/users/alice", { token: liveReader })).status).toBe(200);
  });
});

describe("the sandbox's quota", () => {
  it("is counted apart from the live app's: the sandbox over its quota gets 429, the live app does not", async () => {
    const app = await createTestApp(api.server.databaseUrl, { type: "api", status: "approved", scopes: SCOPES });
    const rolled = await cliJson<{ client_id: string; client_secret: string }>(api.server.databaseUrl, ["apps", "sandbox", "secret", "roll", app.clientId]);
    await api.sql(`UPDATE "Sandbox" SET "quotaPerMinute" = 3 WHERE "clientId" = $1`, [rolled.client_id]);
    const sandbox = (await clientCredentials(rolled.client_id, rolled.client_secret)).body.access_token as string;
    const live = (await clientCredentials(app.clientId, app.clientSecret!)).body.access_token as string;

    // A fresh minute window for the whole run.
    const left = 60 - ((Date.now() / 1000) % 60);
    if (left < 15) await new Promise((resolve) => setTimeout(resolve, left * 1000 + 200));
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await api.call("/global-chat/messages?limit=1", { token: sandbox })).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const over = await api.call("/global-chat/messages?limit=1", { token: sandbox });
    expect(over.body.error.code).toBe("rate_limited");
    for (let i = 0; i < 5; i++) expect((await api.call("/global-chat/messages?limit=1", { token: live })).status).toBe(200);
  });
});
