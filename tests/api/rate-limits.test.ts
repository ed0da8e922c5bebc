import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliJson, runCli } from "../helpers/cli";
import { startApi, type Api, type ApiResult } from "./support";

/**
 * Point 4: every API response to a request with a token announces its limits
 * (RateLimit-Policy / RateLimit of the IETF draft, X-RateLimit-*), for the per-app quota and the
 * chat-post and poke limits of SPEC.md; over the quota, 429 rate_limited with Retry-After in the
 * SPEC envelope. Quotas are set as an operator would, with `apps limit`. (Two processes sharing a
 * quota: tests/reliability/multi-process.test.ts.)
 */
let api: Api;

beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api?.stop();
});

/** Quota windows are calendar minutes: start a step that must stay in one window early enough. */
async function freshWindow(secondsNeeded: number): Promise<void> {
  const left = 60 - (Date.now() / 1000) % 60;
  if (left < secondsNeeded) await new Promise((resolve) => setTimeout(resolve, left * 1000 + 200));
}

interface Announced {
  policy: string | null;
  state: string | null;
  limit: number;
  remaining: number;
  reset: number;
}

function announced(res: ApiResult): Announced {
  return {
    policy: res.headers.get("ratelimit-policy"),
    state: res.headers.get("ratelimit"),
    limit: Number(res.headers.get("x-ratelimit-limit")),
    remaining: Number(res.headers.get("x-ratelimit-remaining")),
    reset: Number(res.headers.get("x-ratelimit-reset")),
  };
}

const windowEnd = () => (Math.floor(Date.now() / 60_000) + 1) * 60;

async function appToken(scopes: string[]): Promise<{ token: string; clientId: string }> {
  let clientId = "";
  const token = await api.token({ scopes, freshApp: true, onApp: (id) => (clientId = id) });
  return { token, clientId };
}

describe("rate-limit headers on normal responses", () => {
  it("announce the app's default quota and count it down, request by request", async () => {
    await freshWindow(10);
    const { token } = await appToken(["svc:chat.read"]);
    const first = await api.call("/global-chat/messages?limit=1", { token });
    const second = await api.call("/global-chat/messages?limit=1", { token });
    expect(first.status).toBe(200);
    const a = announced(first);
    const b = announced(second);
    expect(a.policy).toBe('"app";q=6000;w=60');
    expect(a.limit).toBe(6000);
    expect(a.remaining).toBe(5999);
    expect(b.remaining).toBe(5998);
    expect(a.reset).toBe(windowEnd());
    expect(a.state).toMatch(/^"app";r=5999;t=([1-9]|[1-5][0-9]|60)$/);
    expect(b.state).toMatch(/^"app";r=5998;t=\d+$/);
    // Browsers may read them (CORS).
    expect(first.headers.get("access-control-expose-headers")).toMatch(/RateLimit, RateLimit-Policy, X-RateLimit-Limit/);
  });

  it("count refused-scope calls too, and leave calls without a token (or with a bad one) unannounced", async () => {
    await freshWindow(10);
    const { token } = await appToken(["svc:chat.read"]);
    const refused = await api.call("/users?limit=1", { token });
    expect(refused.status).toBe(403);
    expect(announced(refused).remaining).toBe(5999);
    const anonymous = await api.call("/users/alice");
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers.get("ratelimit")).toBeNull();
    expect(anonymous.headers.get("x-ratelimit-limit")).toBeNull();
    const forged = await api.call("/global-chat/messages", { token: "not-a-token" });
    expect(forged.status).toBe(401);
    expect(forged.headers.get("ratelimit-policy")).toBeNull();
  });

  it("announce the chat-post limit on posts: spent after a post, 0 left on its 429 until Retry-After", async () => {
    const user = await api.createUser();
    const token = await api.token({ user: user.handle, scopes: ["svc:chat.write"] });
    const posted = await api.call("/global-chat/messages", { method: "POST", token, body: { text: "hello limits" } });
    expect(posted.status).toBe(201);
    const p = announced(posted);
    expect(p.policy).toBe('"app";q=6000;w=60, "user";q=600;w=60, "chat-post";q=1;w=2');
    expect(p.state).toMatch(/^"app";r=\d+;t=\d+, "user";r=\d+;t=\d+, "chat-post";r=0;t=2$/);
    expect([p.limit, p.remaining]).toEqual([1, 0]);

    const again = await api.call("/global-chat/messages", { method: "POST", token, body: { text: "too soon" } });
    expect(again.status).toBe(429);
    expect(again.body.error.code).toBe("rate_limited");
    const retryAfter = Number(again.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    const r = announced(again);
    expect(r.state).toMatch(new RegExp(`"chat-post";r=0;t=${retryAfter}$`));
    expect([r.limit, r.remaining]).toEqual([1, 0]);
    expect(r.reset - Math.ceil(Date.now() / 1000)).toBeLessThanOrEqual(retryAfter);

    // A post that fails validation spends nothing: only the policy is announced for it.
    const invalid = await api.call("/global-chat/messages", { method: "POST", token, body: { text: "" } });
    expect(invalid.status).toBe(400);
    expect(announced(invalid).policy).toContain('"chat-post";q=1;w=2');
    expect(announced(invalid).state).toMatch(/^"app";r=\d+;t=\d+, "user";r=\d+;t=\d+$/);
  });

  it("announce the poke limit: one per target per 24 hours, 0 left on poke_cooldown", async () => {
    const caller = await api.createUser();
    const target = await api.createUser();
    const token = await api.token({ user: caller.handle, scopes: ["svc:pokes.write"] });
    const first = await api.call(`/users/${target.handle}/poke`, { method: "POST", token });
    expect(first.status).toBe(200);
    expect(announced(first).policy).toBe('"app";q=6000;w=60, "user";q=600;w=60, "poke";q=1;w=86400');
    expect(announced(first).state).toMatch(/"poke";r=0;t=86400$/);
    const second = await api.call(`/users/${target.handle}/poke`, { method: "POST", token });
    expect(second.status).toBe(429);
    expect(second.body.error.code).toBe("poke_cooldown");
    const retryAfter = Number(second.headers.get("retry-after"));
    expect(announced(second).state).toMatch(new RegExp(`"poke";r=0;t=${retryAfter}$`));
    expect([announced(second).limit, announced(second).remaining]).toEqual([1, 0]);
  });
});

describe("the per-app quota", () => {
  it("refuses the request over the quota with 429 rate_limited, Retry-After and the quota headers, and a new quota applies at once", async () => {
    const { token, clientId } = await appToken(["svc:chat.read"]);
    const set = await cliJson<{ client_id: string; requests_per_minute: number }>(api.server.databaseUrl, [
      "apps",
      "limit",
      clientId,
      "--per-minute",
      "5",
    ]);
    expect(set).toMatchObject({ client_id: clientId, requests_per_minute: 5 });

    await freshWindow(15);
    const statuses: number[] = [];
    let last: ApiResult | undefined;
    for (let i = 0; i < 7; i++) {
      last = await api.call("/global-chat/messages?limit=1", { token });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(last!.body).toEqual({
      error: { code: "rate_limited", message: expect.stringContaining("5 API requests of this minute") },
    });
    expect(last!.body.error.message).toMatch(/^Limit "app": /);
    const retryAfter = Number(last!.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const a = announced(last!);
    expect(a.policy).toBe('"app";q=5;w=60');
    expect(a.state).toBe(`"app";r=0;t=${retryAfter}`);
    expect([a.limit, a.remaining, a.reset]).toEqual([5, 0, windowEnd()]);

    // Raising it takes hold at once (the change channel drops every process's cached quota).
    const raised = await cliJson<{ requests_per_minute: number }>(api.server.databaseUrl, ["apps", "limit", clientId, "--default"]);
    expect(raised.requests_per_minute).toBe(6000);
    const after = await api.call("/global-chat/messages?limit=1", { token });
    expect(after.status).toBe(200);
    expect(announced(after).limit).toBe(6000);

    const audit = await api.sql<{ detail: { from: number; to: number } }>(
      `SELECT detail FROM "AuditLog" WHERE action = 'app.quota' AND "targetId" = $1 ORDER BY id`,
      [clientId],
    );
    expect(audit.map((r) => r.detail)).toEqual([
      { from: 6000, to: 5 },
      { from: 5, to: 6000 },
    ]);
  });

  it("counts calls with the app's token to unknown paths and methods (404, 405) against its quota, as GitHub does; without a token they count for no app", async () => {
    const { token, clientId } = await appToken(["svc:chat.read"]);
    await cliJson(api.server.databaseUrl, ["apps", "limit", clientId, "--per-minute", "5"]);
    await freshWindow(15);
    const calls: ApiResult[] = [];
    calls.push(await api.call("/no/such/path", { token }));
    calls.push(await api.call("/global-chat/messages?limit=1", { token }));
    calls.push(await api.call("/me/no-such-thing", { token }));
    calls.push(await api.call("/global-chat/messages", { token, method: "DELETE" }));
    // Without a token (or with a bad one) the same paths are nobody's: they spend nothing.
    expect((await api.call("/no/such/path")).status).toBe(404);
    expect((await api.call("/no/such/path", { token: "not-a-token" })).status).toBe(404);
    calls.push(await api.call("/global-chat/messages?limit=1", { token }));
    calls.push(await api.call("/another/unknown/path", { token }));
    expect(calls.map((c) => c.status)).toEqual([404, 200, 404, 405, 200, 429]);
    expect(calls.map((c) => announced(c).remaining)).toEqual([4, 3, 2, 1, 0, 0]);
    expect(calls[0]!.body).toEqual({ error: { code: "not_found", message: expect.any(String) } });
    expect(calls[0]!.headers.get("ratelimit-policy")).toBe('"app";q=5;w=60');
    expect(calls[5]!.body.error.code).toBe("rate_limited");
    expect(Number(calls[5]!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    await cliJson(api.server.databaseUrl, ["apps", "limit", clientId, "--default"]);
  });

  it("gives each user of a login app at most 10 % of its quota: a user over their share gets 429, another user of the app does not", async () => {
    const greedy = await api.createUser();
    const modest = await api.createUser();
    let clientId = "";
    // One login app (its own scope set in this file), two people signed in to it.
    const greedyToken = await api.token({ user: greedy.handle, scopes: ["svc:notifications.read"], onApp: (id) => (clientId = id) });
    const modestToken = await api.token({ user: modest.handle, scopes: ["svc:notifications.read"], onApp: (id) => expect(id).toBe(clientId) });
    await cliJson(api.server.databaseUrl, ["apps", "limit", clientId, "--per-minute", "30"]);

    await freshWindow(15);
    const greedyRuns: ApiResult[] = [];
    for (let i = 0; i < 5; i++) greedyRuns.push(await api.call("/me", { token: greedyToken }));
    // 10 % of 30 = 3 requests a minute for each user.
    expect(greedyRuns.map((r) => r.status)).toEqual([200, 200, 200, 429, 429]);
    const first = announced(greedyRuns[0]!);
    expect(first.policy).toBe('"app";q=30;w=60, "user";q=3;w=60');
    expect(first.state).toMatch(/^"app";r=29;t=\d+, "user";r=2;t=\d+$/);
    // The X- headers tell the limit that runs out first: the user's share.
    expect([first.limit, first.remaining]).toEqual([3, 2]);
    const refused = greedyRuns[4]!;
    expect(refused.body.error.code).toBe("rate_limited");
    expect(refused.body.error.message).toMatch(/^Limit "user": this user's tokens have made their 3 API requests of this minute, their share of this app's 30\./);
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(announced(refused).state).toBe(`"app";r=27;t=${retryAfter}, "user";r=0;t=${retryAfter}`);
    expect([announced(refused).limit, announced(refused).remaining]).toEqual([3, 0]);

    // The other user of the same app is not affected, and the refused requests spent nothing of the app's.
    const other = await api.call("/me", { token: modestToken });
    expect(other.status).toBe(200);
    expect(announced(other).state).toMatch(/^"app";r=26;t=\d+, "user";r=2;t=\d+$/);
    const [row] = await api.sql<{ reserved: number }>(`SELECT reserved FROM "ApiQuotaWindow" WHERE "clientId" = $1 ORDER BY "window" DESC LIMIT 1`, [clientId]);
    expect(row!.reserved).toBe(4);
    // Users' shares are counted in PostgreSQL too, but a user's first batch of a window (2 % of the
    // share, here 1 request) is admitted without a write: only the greedy user has a row.
    const users = await api.sql<{ userId: number; reserved: number }>(
      `SELECT "userId", reserved FROM "ApiUserQuotaWindow" WHERE "clientId" = $1 ORDER BY "window" DESC`,
      [clientId],
    );
    expect(users).toEqual([{ userId: greedy.id, reserved: 3 }]);
  });

  it("never writes to the database per request: a few reservations serve a burst", async () => {
    await freshWindow(15);
    const { token, clientId } = await appToken(["svc:chat.read"]);
    await Promise.all(Array.from({ length: 200 }, () => api.call("/global-chat/messages?limit=1", { token })));
    const [row] = await api.sql<{ reserved: number }>(`SELECT reserved FROM "ApiQuotaWindow" WHERE "clientId" = $1`, [clientId]);
    // Batches of 2 % of 6000 = 120: two reservations for 200 requests, not 200 writes.
    expect(row!.reserved).toBe(240);
  });

  it("`apps limit` refuses bad input as a usage error", async () => {
    const { clientId } = await appToken(["svc:chat.read"]);
    for (const args of [["--per-minute", "0"], ["--per-minute", "lots"], [], ["--per-minute", "5", "--default"]]) {
      const run = await runCli(api.server.databaseUrl, ["apps", "limit", clientId, ...args, "--json"]);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).not.toMatch(/at .*\.ts:\d+/);
    }
    const unknown = await runCli(api.server.databaseUrl, ["apps", "limit", "nope-client", "--per-minute", "5", "--json"]);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr.trim()).error.code).toBe("not_found");
  });
});
