import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type Api } from "./support";

/**
 * `Idempotency-Key` on POST /global-chat/messages and POST /users/{handle}/poke. A retry
 * with the same key replays the first success (`Idempotent-Replayed: true`) and writes nothing; the
 * same key with another body is 422 `idempotency_key_reused`; while the first runs, 409
 * `idempotency_key_in_use`; a replay spends neither the chat nor the poke limit.
 */
let api: Api;

beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api?.stop();
});

async function chatter() {
  const user = await api.createUser();
  return { user, token: await api.token({ user: user.handle, scopes: ["svc:chat.write", "svc:chat.read"] }) };
}

const post = (token: string, body: unknown, key?: string) =>
  api.call("/global-chat/messages", { method: "POST", token, body, headers: key === undefined ? {} : { "Idempotency-Key": key } });

const messagesOf = (userId: number) =>
  api.sql<{ id: string; text: string }>(`SELECT id::text, text FROM "ChatMessage" WHERE "authorId" = $1 ORDER BY id`, [userId]);

describe("Idempotency-Key on POST /global-chat/messages", () => {
  it("replays the first reply with Idempotent-Replayed: true, and stores one message", async () => {
    const { user, token } = await chatter();
    const key = randomUUID();
    const first = await post(token, { text: "once only" }, key);
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();

    const again = await post(token, { text: "once only" }, key);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("content-type")).toMatch(/^application\/json/);
    expect(again.headers.get("x-request-id")).toBeTruthy();
    expect(again.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));
    expect(again.body).toEqual(first.body);

    const rows = await messagesOf(user.id);
    expect(rows).toEqual([{ id: first.body.data.id, text: "once only" }]);
  });

  it("does not count a replay toward the chat limit (one post per 2 seconds)", async () => {
    const { user, token } = await chatter();
    const key = randomUUID();
    expect((await post(token, { text: "first" }, key)).status).toBe(201);
    // Within the 2 seconds a new post is refused, but the replays are answered, again and again.
    for (let i = 0; i < 3; i++) expect((await post(token, { text: "first" }, key)).status).toBe(201);
    const fresh = await post(token, { text: "second" }, randomUUID());
    expect(fresh.status).toBe(429);
    expect(fresh.body.error.code).toBe("rate_limited");
    expect(await messagesOf(user.id)).toHaveLength(1);
  });

  it("answers 422 idempotency_key_reused for the same key with a different body, and posts nothing", async () => {
    const { user, token } = await chatter();
    const key = randomUUID();
    expect((await post(token, { text: "the original" }, key)).status).toBe(201);
    const other = await post(token, { text: "something else" }, key);
    expect(other.status).toBe(422);
    expect(other.body).toEqual({ error: { code: "idempotency_key_reused", message: expect.any(String) } });
    expect(other.headers.get("idempotent-replayed")).toBeNull();
    expect(await messagesOf(user.id)).toHaveLength(1);
  });

  it("answers 409 idempotency_key_in_use to a duplicate sent while the first is still running", async () => {
    const { user, token } = await chatter();
    const key = randomUUID();
    // Hold the user's row, which the chat post's one statement locks, so the first request stays in
    // progress (its key claimed) until the lock is released.
    const client = new pg.Client({ connectionString: api.server.databaseUrl });
    await client.connect();
    try {
      await client.query("BEGIN");
      await client.query(`SELECT 1 FROM "User" WHERE id = $1 FOR UPDATE`, [user.id]);
      const first = post(token, { text: "slow" }, key);
      let claimed = false;
      for (let i = 0; i < 100 && !claimed; i++) {
        const rows = await api.sql(`SELECT 1 FROM "IdempotencyKey" WHERE key = $1 AND status IS NULL`, [key]);
        claimed = rows.length === 1;
        if (!claimed) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(claimed).toBe(true);
      const duplicate = await post(token, { text: "slow" }, key);
      expect(duplicate.status).toBe(409);
      expect(duplicate.body).toEqual({ error: { code: "idempotency_key_in_use", message: expect.any(String) } });
      expect(duplicate.headers.get("retry-after")).toBe("1");
      await client.query("COMMIT");
      expect((await first).status).toBe(201);
    } finally {
      await client.end();
    }
    const replay = await post(token, { text: "slow" }, key);
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await messagesOf(user.id)).toHaveLength(1);
  });

  it("does not keep errors: a retry after a 429 runs again", async () => {
    const { user, token } = await chatter();
    expect((await post(token, { text: "first" })).status).toBe(201);
    const key = randomUUID();
    const refused = await post(token, { text: "second" }, key);
    expect(refused.status).toBe(429);
    await api.sql(`UPDATE "User" SET "lastChatPostAt" = NULL WHERE id = $1`, [user.id]);
    const retried = await post(token, { text: "second" }, key);
    expect(retried.status).toBe(201);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    expect(await messagesOf(user.id)).toHaveLength(2);
  });

  it("keeps keys per user: another user's same key posts anew", async () => {
    const a = await chatter();
    const b = await chatter();
    const key = randomUUID();
    expect((await post(a.token, { text: "same" }, key)).status).toBe(201);
    const other = await post(b.token, { text: "same" }, key);
    expect(other.status).toBe(201);
    expect(other.headers.get("idempotent-replayed")).toBeNull();
    expect(await messagesOf(b.user.id)).toHaveLength(1);
  });

  it("refuses a malformed key with 400 invalid_request", async () => {
    const { user, token } = await chatter();
    for (const key of ["x".repeat(256), "tab\there", "caf\u00e9"]) {
      const res = await post(token, { text: "nope" }, key);
      expect(res.status, key).toBe(400);
      expect(res.body.error.code, key).toBe("invalid_request");
    }
    expect(await messagesOf(user.id)).toHaveLength(0);
  });

  it("treats a key past its 24 hours as new", async () => {
    const { user, token } = await chatter();
    const key = randomUUID();
    expect((await post(token, { text: "old" }, key)).status).toBe(201);
    await api.sql(`UPDATE "IdempotencyKey" SET "createdAt" = "createdAt" - interval '25 hours' WHERE key = $1`, [key]);
    await api.sql(`UPDATE "User" SET "lastChatPostAt" = NULL WHERE id = $1`, [user.id]);
    const res = await post(token, { text: "new" }, key);
    expect(res.status).toBe(201);
    expect(res.headers.get("idempotent-replayed")).toBeNull();
    expect(await messagesOf(user.id)).toHaveLength(2);
  });
});

describe("Idempotency-Key on POST /users/{handle}/poke", () => {
  it("replays the poke without a 429 poke_cooldown and writes one poke", async () => {
    const caller = await api.createUser();
    const target = await api.createUser();
    const token = await api.token({ user: caller.handle, scopes: ["svc:pokes.write"] });
    const key = randomUUID();
    const poke = () => api.call(`/users/${target.handle}/poke`, { method: "POST", token, headers: { "Idempotency-Key": key } });
    const first = await poke();
    expect(first.status).toBe(200);
    const again = await poke();
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    const [pair] = await api.sql<{ count: number }>(`SELECT count FROM "Poke" WHERE "callerId" = $1 AND "targetId" = $2`, [caller.id, target.id]);
    expect(pair!.count).toBe(1);
    const notes = await api.sql(`SELECT 1 FROM "Notification" WHERE "userId" = $1 AND type = 'poke'`, [target.id]);
    expect(notes).toHaveLength(1);
    // Without the key the cooldown holds as before.
    const plain = await api.call(`/users/${target.handle}/poke`, { method: "POST", token });
    expect(plain.status).toBe(429);
    expect(plain.body.error.code).toBe("poke_cooldown");
    // The same key for another target is another request.
    const other = await api.createUser();
    const reused = await api.call(`/users/${other.handle}/poke`, { method: "POST", token, headers: { "Idempotency-Key": key } });
    expect(reused.status).toBe(422);
    expect(reused.body.error.code).toBe("idempotency_key_reused");
  });
});
