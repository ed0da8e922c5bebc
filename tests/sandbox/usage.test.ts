import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type Api } from "../api/support";
import { cliJson } from "../helpers/cli";
import { createTestApp, tokenRequest } from "../helpers/oidc";
import { pointAppAt } from "../helpers/server";

/**
 * Seen apart: an app's sandbox (`sbx_` + its client id) is metered as its own
 * client, so the usage service the Usage tab reads, `apps usage` and the request log show the live
 * app and its sandbox separately (the log also both at once, each row marked); reviewers get a
 * summary of the sandbox's use (calls, endpoints, last activity); and the two quotas are spent
 * apart, in both directions.
 */
const FLUSH_MS = 150;
const SCOPES = ["svc:chat.read", "svc:directory.read"];

let api: Api;
let closeDb: () => Promise<void>;

interface Pair {
  appClientId: string;
  sandboxClientId: string;
  live: string;
  sandbox: string;
}

async function clientCredentials(clientId: string, secret: string): Promise<string> {
  const res = await tokenRequest(api.server, { grant_type: "client_credentials", client_id: clientId, client_secret: secret });
  expect(res.status).toBe(200);
  return res.body.access_token as string;
}

/** An approved API client and its sandbox, each with a token (the sandbox's secret from `apps sandbox secret roll`). */
async function appWithSandbox(before?: (pair: { appClientId: string; sandboxClientId: string }) => Promise<void>): Promise<Pair> {
  const app = await createTestApp(api.server.databaseUrl, { type: "api", status: "approved", scopes: SCOPES });
  const rolled = await cliJson<{ client_id: string; client_secret: string }>(api.server.databaseUrl, ["apps", "sandbox", "secret", "roll", app.clientId]);
  await before?.({ appClientId: app.clientId, sandboxClientId: rolled.client_id });
  return {
    appClientId: app.clientId,
    sandboxClientId: rolled.client_id,
    live: await clientCredentials(app.clientId, app.clientSecret!),
    sandbox: await clientCredentials(rolled.client_id, rolled.client_secret),
  };
}

/** Waits until `clientId`'s flushed counts reach `total` (the server flushes every FLUSH_MS). */
async function flushed(clientId: string, total: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const [row] = await api.sql<{ n: number }>(`SELECT coalesce(sum(count), 0)::int AS n FROM "UsageCount" WHERE "clientId" = $1`, [clientId]);
    if (row!.n >= total) return;
    if (Date.now() > deadline) throw new Error(`${clientId}: ${row!.n} of ${total} requests flushed`);
    await new Promise((resolve) => setTimeout(resolve, FLUSH_MS));
  }
}

async function services() {
  const usage = await import("../../lib/services/usage");
  const { CLI_ACTOR } = await import("../../lib/services/actor");
  return { usage, actor: CLI_ACTOR };
}

let pair: Pair;
let liveIds: string[];
let sandboxIds: string[];

beforeAll(async () => {
  api = await startApi({ env: { USAGE_FLUSH_MS: String(FLUSH_MS) } });
  closeDb = await pointAppAt(api.server.databaseUrl);
  pair = await appWithSandbox();
  // Live: three profile reads. Sandbox: four chat reads, two directory pages, and alice, who is
  // no one in a synthetic world (404). Sequential, so the log's order is the order made.
  liveIds = [];
  sandboxIds = [];
  const made: { token: string; path: string; ids: string[]; status: number }[] = [
    { token: pair.sandbox, path: "/global-chat/messages?limit=1", ids: sandboxIds, status: 200 },
    { token: pair.live, path: "/users/alice", ids: liveIds, status: 200 },
    { token: pair.sandbox, path: "/global-chat/messages?limit=1", ids: sandboxIds, status: 200 },
    { token: pair.sandbox, path: "/users?limit=2", ids: sandboxIds, status: 200 },
    { token: pair.live, path: "/users/alice", ids: liveIds, status: 200 },
    { token: pair.sandbox, path: "/users/alice", ids: sandboxIds, status: 404 },
    { token: pair.sandbox, path: "/global-chat/messages?limit=1", ids: sandboxIds, status: 200 },
    { token: pair.sandbox, path: "/users?limit=2", ids: sandboxIds, status: 200 },
    { token: pair.live, path: "/users/alice", ids: liveIds, status: 200 },
    { token: pair.sandbox, path: "/global-chat/messages?limit=1", ids: sandboxIds, status: 200 },
  ];
  for (const m of made) {
    const res = await api.call(m.path, { token: m.token });
    expect(res.status, m.path).toBe(m.status);
    m.ids.push(res.headers.get("x-request-id")!);
  }
  // Each client: its calls plus its one token request.
  await flushed(pair.appClientId, 3 + 1);
  await flushed(pair.sandboxClientId, 7 + 1);
});

afterAll(async () => {
  await closeDb?.();
  await api?.stop();
});

describe("usage, live and sandbox apart", () => {
  it("counts the sandbox's calls apart from the live app's, in the service the Usage tab reads and in apps usage --mode", async () => {
    const { usage, actor } = await services();
    const live = await usage.getAppUsage(pair.appClientId, "24h", actor);
    expect(live).toMatchObject({ clientId: pair.appClientId, mode: "live", total: 3, byClass: { "2xx": 3, "4xx": 0, "5xx": 0 } });
    expect(live.routes.map((r) => [r.route, r.total])).toEqual([
      ["GET /users/{username}", 3],
      ["token:client_credentials", 1],
    ]);

    const sandbox = await usage.getAppUsage(pair.appClientId, "24h", actor, { mode: "sandbox" });
    expect(sandbox).toMatchObject({ clientId: pair.sandboxClientId, mode: "sandbox", total: 7, byClass: { "2xx": 6, "4xx": 1, "5xx": 0 } });
    expect(sandbox.routes.map((r) => [r.route, r.total])).toEqual([
      ["GET /global-chat/messages", 4],
      ["GET /users", 2],
      ["GET /users/{username}", 1],
      ["token:client_credentials", 1],
    ]);
    expect(sandbox.errors).toEqual([{ code: "not_found", status: 404, count: 1 }]);

    // The charts' series: each mode's calls, none of the other's.
    const sum = (points: { "2xx": number; "4xx": number; "5xx": number }[]) => points.reduce((n, p) => n + p["2xx"] + p["4xx"] + p["5xx"], 0);
    expect(sum(await usage.getAppUsageSeries(pair.appClientId, "24h", actor))).toBe(3);
    expect(sum(await usage.getAppUsageSeries(pair.appClientId, "24h", actor, { mode: "sandbox" }))).toBe(7);

    const cli = await cliJson<{ client_id: string; total: number }>(api.server.databaseUrl, ["apps", "usage", pair.appClientId, "--mode", "sandbox"]);
    expect(cli).toMatchObject({ client_id: pair.sandboxClientId, total: 7 });
    const cliLive = await cliJson<{ client_id: string; total: number }>(api.server.databaseUrl, ["apps", "usage", pair.appClientId]);
    expect(cliLive).toMatchObject({ client_id: pair.appClientId, total: 3 });
    // A viewer of nothing gets nothing, in either mode.
    await expect(
      usage.getAppUsage(pair.appClientId, "24h", { kind: "user", id: await api.userId("bob"), handle: "bob", role: "user" }, { mode: "sandbox" }),
    ).rejects.toMatchObject({ code: "not_found" });
  });

  it("filters the request log by live, sandbox or both, newest first, each row marked", async () => {
    const { usage, actor } = await services();
    // The log also holds each token request (`token:client_credentials`); these are the API calls.
    const apiCalls = <T extends { route: string }>(entries: T[]) => entries.filter((e) => !e.route.startsWith("token:"));
    const live = apiCalls(await usage.listRequestLog(pair.appClientId, { limit: 50 }, actor));
    expect(live.map((e) => e.requestId)).toEqual([...liveIds].reverse());
    expect(new Set(live.map((e) => e.mode))).toEqual(new Set(["live"]));

    const sandbox = apiCalls(await usage.listRequestLog(pair.appClientId, { mode: "sandbox", limit: 50 }, actor));
    expect(sandbox.map((e) => e.requestId)).toEqual([...sandboxIds].reverse());
    expect(new Set(sandbox.map((e) => e.mode))).toEqual(new Set(["sandbox"]));

    const both = await usage.listRequestLog(pair.appClientId, { mode: "all", limit: 50 }, actor);
    expect(apiCalls(both)).toHaveLength(10);
    expect(both.filter((e) => e.route.startsWith("token:")).map((e) => e.mode).sort()).toEqual(["live", "sandbox"]);
    const byId = new Map(both.map((e) => [e.requestId, e.mode]));
    for (const id of liveIds) expect(byId.get(id)).toBe("live");
    for (const id of sandboxIds) expect(byId.get(id)).toBe("sandbox");
    const times = both.map((e) => e.atMs);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    // The limit holds over both, and the other filters apply to both.
    expect(await usage.listRequestLog(pair.appClientId, { mode: "all", limit: 4 }, actor)).toEqual(both.slice(0, 4));
    const profiles = await usage.listRequestLog(pair.appClientId, { mode: "all", route: "GET /users/{username}", limit: 50 }, actor);
    expect(profiles).toEqual(both.filter((e) => e.route === "GET /users/{username}"));
    expect(profiles.map((e) => e.mode).sort()).toEqual(["live", "live", "live", "sandbox"]);
    expect(await usage.listRequestLog(pair.appClientId, { mode: "sandbox", status: "4xx", limit: 50 }, actor)).toMatchObject([
      { route: "GET /users/{username}", status: 404, errorCode: "not_found", mode: "sandbox" },
    ]);

    // apps requests --mode: the JSON says which client made each line.
    const cli = await cliJson<{ request_id: string; mode: string }[]>(api.server.databaseUrl, ["apps", "requests", pair.appClientId, "--mode", "all"]);
    expect(cli.map((e) => [e.request_id, e.mode])).toEqual(both.map((e) => [e.requestId, e.mode]));
    const cliDefault = await cliJson<{ mode: string; route: string }[]>(api.server.databaseUrl, ["apps", "requests", pair.appClientId]);
    expect(cliDefault.map((e) => e.mode)).toEqual(["live", "live", "live", "live"]);
    expect(apiCalls(cliDefault)).toHaveLength(3);
  });

  it("tells the reviewer how much the sandbox was exercised: calls, endpoints with counts, last activity", async () => {
    const { usage, actor } = await services();
    const exercise = await usage.getSandboxExercise(pair.appClientId, actor);
    expect(exercise).toMatchObject({ sandboxClientId: pair.sandboxClientId, days: 7, calls: 7, errors: 1, tokenRequests: 1 });
    expect(exercise.endpoints).toEqual([
      { route: "GET /global-chat/messages", calls: 4, errors: 0 },
      { route: "GET /users", calls: 2, errors: 0 },
      { route: "GET /users/{username}", calls: 1, errors: 1 },
    ]);
    // To the minute: the counters' minute of the last request.
    const now = Date.now();
    expect(exercise.lastActivity).toBeInstanceOf(Date);
    expect(exercise.lastActivity!.getTime()).toBeGreaterThan(now - 5 * 60_000);
    expect(exercise.lastActivity!.getTime()).toBeLessThanOrEqual(now);

    // Older than the window: not in the calls, still the last activity.
    const fresh = await appWithSandbox();
    const tenDaysAgo = new Date(Math.floor((now - 10 * 24 * 3600_000) / 3600_000) * 3600_000);
    await api.sql(
      `INSERT INTO "UsageCount" ("clientId", route, status, "errorCode", "periodStart", count) VALUES ($1, 'GET /users', 200, '', $2 AT TIME ZONE 'UTC', 9)`,
      [`sbx_${fresh.appClientId}`, tenDaysAgo],
    );
    const old = await usage.getSandboxExercise(fresh.appClientId, actor, now);
    // Only the token request made above is of the last 7 days.
    expect(old).toMatchObject({ calls: 0, errors: 0, endpoints: [] });
    expect(old.lastActivity).not.toBeNull();

    // Never used: nothing, and no last activity.
    const unused = await createTestApp(api.server.databaseUrl, { type: "api", status: "pending", scopes: SCOPES });
    expect(await usage.getSandboxExercise(unused.clientId, actor)).toEqual({
      sandboxClientId: `sbx_${unused.clientId}`,
      days: 7,
      calls: 0,
      errors: 0,
      tokenRequests: 0,
      endpoints: [],
      lastActivity: null,
    });

    // Reviewers only.
    await expect(
      usage.getSandboxExercise(pair.appClientId, { kind: "user", id: await api.userId("bob"), handle: "bob", role: "user" }),
    ).rejects.toMatchObject({ code: "forbidden" });
  });
});

describe("quotas apart", () => {
  /** A fresh minute window for the whole run. */
  async function freshWindow() {
    const left = 60 - ((Date.now() / 1000) % 60);
    if (left < 15) await new Promise((resolve) => setTimeout(resolve, left * 1000 + 200));
  }

  async function statuses(token: string, n: number): Promise<number[]> {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push((await api.call("/global-chat/messages?limit=1", { token })).status);
    return out;
  }

  it("exhausting the sandbox's quota leaves the live app's untouched", async () => {
    const p = await appWithSandbox(({ sandboxClientId }) =>
      api.sql(`UPDATE "Sandbox" SET "quotaPerMinute" = 3 WHERE "clientId" = $1`, [sandboxClientId]).then(() => undefined),
    );
    await freshWindow();
    expect(await statuses(p.sandbox, 5)).toEqual([200, 200, 200, 429, 429]);
    expect(await statuses(p.live, 5)).toEqual([200, 200, 200, 200, 200]);
    // The live app's counter holds only its own requests: six, not the sandbox's too.
    const liveAnswer = await api.call("/global-chat/messages?limit=1", { token: p.live });
    expect(Number(liveAnswer.headers.get("x-ratelimit-limit")) - Number(liveAnswer.headers.get("x-ratelimit-remaining"))).toBe(6);
    const { usage, actor } = await services();
    await flushed(p.sandboxClientId, 5 + 1);
    const sandbox = await usage.getAppUsage(p.appClientId, "24h", actor, { mode: "sandbox" });
    expect(sandbox.errors).toEqual([{ code: "rate_limited", status: 429, count: 2 }]);
  });

  it("exhausting the live app's quota leaves the sandbox's untouched", async () => {
    const p = await appWithSandbox(({ appClientId }) =>
      cliJson(api.server.databaseUrl, ["apps", "limit", appClientId, "--per-minute", "3"]).then(() => undefined),
    );
    await freshWindow();
    expect(await statuses(p.live, 5)).toEqual([200, 200, 200, 429, 429]);
    expect(await statuses(p.sandbox, 5)).toEqual([200, 200, 200, 200, 200]);
    // Each answer announces its own quota.
    const sandboxAnswer = await api.call("/global-chat/messages?limit=1", { token: p.sandbox });
    expect(sandboxAnswer.headers.get("x-ratelimit-limit")).toBe("600");
    // …and counts only its own requests: six of the sandbox's 600 (a counter shared with the live
    // app would also hold the live app's).
    expect(sandboxAnswer.headers.get("x-ratelimit-remaining")).toBe("594");
    const liveAnswer = await api.call("/global-chat/messages?limit=1", { token: p.live });
    expect(liveAnswer.headers.get("x-ratelimit-limit")).toBe("3");
  });
});
