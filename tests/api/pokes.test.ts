import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type Api } from "./support";

/** SPEC.md POST /users/{handle}/poke, the poke-pair state table, Limits; PRODUCT.md: self-poke 400, target notified. */
let api: Api;

beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api?.stop();
});

async function pair() {
  const caller = await api.createUser();
  const target = await api.createUser();
  const token = await api.token({ user: caller.handle, scopes: ["svc:pokes.write"] });
  return { caller, target, token };
}

const poke = (handle: string, token: string) => api.call(`/users/${handle}/poke`, { method: "POST", token });

describe("POST /users/{handle}/poke", () => {
  it("pokes and answers target_handle and poked_at", async () => {
    const { target, token } = await pair();
    const before = Math.floor(Date.now() / 1000);
    const res = await poke(target.handle, token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { target_handle: target.handle, poked_at: expect.any(Number) } });
    expect(res.body.data.poked_at).toBeGreaterThanOrEqual(before - 2);
    expect(res.body.data.poked_at).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 2);
  });

  it("notifies the target with a poke notification from the caller", async () => {
    const { caller, target, token } = await pair();
    await poke(target.handle, token);
    const inbox = await api.call("/me/notifications", { token: await api.token({ user: target.handle }) });
    expect(inbox.body.data.notifications).toEqual([
      {
        type: "poke",
        read: false,
        from: { handle: caller.handle, display_name: `Test ${caller.handle}`, avatar_url: expect.any(String) },
        count: 1,
        created_at: expect.any(Number),
      },
    ]);
  });

  it("answers a repeat within 24 hours with 429 poke_cooldown, next_allowed_at and Retry-After", async () => {
    const { target, token } = await pair();
    const first = await poke(target.handle, token);
    const again = await poke(target.handle, token);
    expect(again.status).toBe(429);
    expect(again.body).toEqual({
      error: { code: "poke_cooldown", message: expect.any(String), next_allowed_at: first.body.data.poked_at + 86_400 },
    });
    const retryAfter = Number(again.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(86_000);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
  });

  it("does not notify the target for a refused poke", async () => {
    const { target, token } = await pair();
    await poke(target.handle, token);
    await poke(target.handle, token);
    const rows = await api.sql(`SELECT 1 FROM "Notification" WHERE "userId" = $1`, [target.id]);
    expect(rows).toHaveLength(1);
  });

  it("keeps the cooldown per pair: the same caller may poke someone else, and the target may poke back", async () => {
    const { caller, target, token } = await pair();
    const third = await api.createUser();
    expect((await poke(target.handle, token)).status).toBe(200);
    expect((await poke(third.handle, token)).status).toBe(200);
    const back = await poke(caller.handle, await api.token({ user: target.handle }));
    expect(back.status).toBe(200);
  });

  it("opens the pair again once 24 hours have passed", async () => {
    const { caller, target, token } = await pair();
    await poke(target.handle, token);
    await api.sql(`UPDATE "Poke" SET "lastPokedAt" = "lastPokedAt" - interval '24 hours 1 second' WHERE "callerId" = $1`, [caller.id]);
    const res = await poke(target.handle, token);
    expect(res.status).toBe(200);
    const [row] = await api.sql<{ count: number }>(`SELECT count FROM "Poke" WHERE "callerId" = $1`, [caller.id]);
    expect(row!.count).toBe(2);
    const inbox = await api.call("/me/notifications", { token: await api.token({ user: target.handle }) });
    expect(inbox.body.data.notifications[0].count).toBe(2);
  });

  it("is still on cooldown one second before the 24 hours are over", async () => {
    const { caller, target, token } = await pair();
    await poke(target.handle, token);
    await api.sql(`UPDATE "Poke" SET "lastPokedAt" = "lastPokedAt" - interval '23 hours 59 minutes 58 seconds' WHERE "callerId" = $1`, [caller.id]);
    const res = await poke(target.handle, token);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeLessThanOrEqual(3);
  });

  it("lets exactly one of twenty concurrent pokes of one pair succeed", async () => {
    const { target, token } = await pair();
    const results = await Promise.all(Array.from({ length: 20 }, () => poke(target.handle, token)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 429)).toHaveLength(19);
    const rows = await api.sql(`SELECT 1 FROM "Notification" WHERE "userId" = $1`, [target.id]);
    expect(rows).toHaveLength(1);
  });

  it("matches the handle case-insensitively", async () => {
    const { target, token } = await pair();
    const res = await poke(target.handle.toUpperCase(), token);
    expect(res.status).toBe(200);
    expect(res.body.data.target_handle).toBe(target.handle);
  });

  it("is 400 invalid_request for poking yourself", async () => {
    const { caller, token } = await pair();
    const res = await poke(caller.handle, token);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { code: "invalid_request", message: expect.any(String) } });
  });

  it("is 404 user_not_found for an unknown target", async () => {
    const { token } = await pair();
    for (const handle of ["no-such-user-anywhere", "x".repeat(500), "%00", "%F0%9F%AA%B2"]) {
      const res = await poke(handle, token);
      expect(res.status, handle).toBe(404);
      expect(res.body).toEqual({ error: { code: "user_not_found", message: expect.any(String) } });
    }
  });

  it("is 404 user_not_found for a disabled target", async () => {
    const { token } = await pair();
    const res = await poke("dave", token);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("user_not_found");
  });

  it("ignores a request body", async () => {
    const { target, token } = await pair();
    const res = await api.call(`/users/${target.handle}/poke`, { method: "POST", token, body: { anything: true } });
    expect(res.status).toBe(200);
  });
});
