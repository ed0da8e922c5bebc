import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliJson } from "../helpers/cli";
import { query } from "../helpers/db";
import { clientCredentialsToken, createTestApp, createTestUser, refreshTokens, signInAndGetTokens, tokenEndpoint } from "../helpers/oidc";
import { newDatabase, pointAppAt, startServer, type TestServer } from "../helpers/server";

/**
 * Usage metering and the request log, through a real server: what `apps usage`, the
 * usage service and `apps requests` report equals the requests made; a request is found by its
 * X-Request-Id; nothing secret reaches the usage tables; the rollup and retention job rolls and
 * removes old rows. (Two processes and SIGTERM: tests/reliability/usage-flush.test.ts.)
 */
const FLUSH_MS = 150;
const REDIRECT = "http://localhost:9/callback";
const PASSWORD = "usage test passphrase";
const QUERY_VALUE = "q-value-7e1f0c93";
const ABSENT_HANDLE = "nobody-5ac1d2";

let databaseUrl: string;
let server: TestServer;
let closeDb: () => Promise<void>;
let apiApp: { clientId: string; clientSecret: string };
let appToken: string;
let loginApp: { clientId: string };
let userToken: string;
let refreshToken: string;

interface UsageJson {
  total: number;
  by_status_class: Record<string, number>;
  p50_ms: number | null;
  p95_ms: number | null;
  routes: { route: string; total: number; p50_ms: number | null; by_status: { status: number; error_code: string | null; count: number }[] }[];
  errors: { code: string; status: number; count: number }[];
  unauthenticated_callers: { total: number; by_code: { grant_type: string; code: string; status: number; count: number }[] };
}

interface LogJson {
  at: string;
  method: string;
  route: string;
  status: number;
  error_code: string | null;
  latency_ms: number;
  request_id: string;
  user: string | null;
}

/**
 * One API call; `ms` is its round trip as the client measured it (request sent to body read), the
 * upper bound of the latency the server may record for it.
 */
async function call(path: string, token?: string, headers: Record<string, string> = {}) {
  const started = performance.now();
  const res = await fetch(`${server.apiUrl}${path}`, {
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
  });
  await res.text();
  return { status: res.status, requestId: res.headers.get("x-request-id")!, ms: performance.now() - started };
}

/**
 * Every logged request among `made` took more than 0 ms and at most its client-measured round trip
 * (a latency recorded in the wrong unit, or not measured, fails here); the app's p50/p95 too (a
 * quantile is interpolated inside its log-scale bucket, so at most √2 over the slowest request).
 */
async function expectLatenciesWithinRoundTrips(clientId: string, made: { requestId: string; ms: number }[], usage: UsageJson) {
  const log = await cliJson<LogJson[]>(databaseUrl, ["apps", "requests", clientId, "--limit", "1000"]);
  const byId = new Map(log.map((e) => [e.request_id, e]));
  for (const { requestId, ms } of made) {
    const entry = byId.get(requestId);
    expect(entry, requestId).toBeDefined();
    expect(entry!.latency_ms, requestId).toBeGreaterThan(0);
    expect(entry!.latency_ms, `${requestId}: ${entry!.latency_ms} ms recorded, ${ms.toFixed(2)} ms round trip`).toBeLessThanOrEqual(ms);
  }
  const slowest = Math.max(...made.map((m) => m.ms));
  expect(usage.p50_ms).toBeGreaterThan(0);
  expect(usage.p95_ms!).toBeLessThanOrEqual(Math.SQRT2 * slowest);
}

/** Waits until the app's flushed counts reach `total` (the server flushes every FLUSH_MS). */
async function flushed(clientId: string, total: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const [row] = await query<{ n: number }>(databaseUrl, `SELECT coalesce(sum(count), 0)::int AS n FROM "UsageCount" WHERE "clientId" = $1`, [clientId]);
    if (row!.n >= total || Date.now() > deadline) return;
    await new Promise((r) => setTimeout(r, FLUSH_MS));
  }
}

beforeAll(async () => {
  databaseUrl = await newDatabase({ seed: true });
  server = await startServer({ databaseUrl, env: { USAGE_FLUSH_MS: String(FLUSH_MS) } });
  closeDb = await pointAppAt(databaseUrl);
  apiApp = (await createTestApp(databaseUrl, { type: "api", scopes: ["svc:directory.read"] })) as typeof apiApp;
  appToken = (await clientCredentialsToken(server, apiApp.clientId, apiApp.clientSecret)).access_token;
  loginApp = await createTestApp(databaseUrl, { type: "login", scopes: ["svc:stats.read"], redirectUris: [REDIRECT] });
  await createTestUser(databaseUrl, { handle: "usagefan", password: PASSWORD });
  const tokens = await signInAndGetTokens(server, {
    handle: "usagefan",
    password: PASSWORD,
    clientId: loginApp.clientId,
    redirectUri: REDIRECT,
    scope: "openid svc:stats.read offline_access",
  });
  userToken = tokens.access_token;
  refreshToken = tokens.refresh_token;
});

afterAll(async () => {
  await closeDb?.();
  await server?.stop();
});

describe("usage metering", () => {
  it("counts every request with a token per app, route template, status and code, and the grants", async () => {
    const made: ReturnType<typeof call>[] = [];
    for (let i = 0; i < 7; i++) made.push(call(`/users/alice?probe=${QUERY_VALUE}`, appToken));
    for (let i = 0; i < 3; i++) made.push(call(`/users/${ABSENT_HANDLE}`, appToken));
    made.push(call("/users?limit=2", appToken));
    made.push(call("/me", appToken)); // 403 requires_user
    made.push(call("/global-chat/messages", appToken)); // 403 insufficient_scope
    // Not this app's: no token, a forged token. An unknown path with its token is the app's.
    made.push(call("/users/alice"), call("/users/alice", "not-a-token"), call("/no-such-endpoint", appToken));
    const answers = await Promise.all(made);
    const statuses = answers.map((r) => r.status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 404, 404, 404, 200, 403, 403, 200, 401, 404]);
    await flushed(apiApp.clientId, 14 + 1);

    const usage = await cliJson<UsageJson>(databaseUrl, ["apps", "usage", apiApp.clientId, "--since", "24h"]);
    expect(usage.total).toBe(14);
    expect(usage.by_status_class).toEqual({ "2xx": 8, "4xx": 6, "5xx": 0 });
    const byRoute = Object.fromEntries(usage.routes.map((r) => [r.route, r]));
    expect(Object.keys(byRoute).sort()).toEqual(
      ["(no route)", "GET /global-chat/messages", "GET /me", "GET /users", "GET /users/{username}", "token:client_credentials"].sort(),
    );
    // The total is the sum of the API routes' rows (token requests apart), as the Usage tab shows them.
    expect(usage.routes.filter((r) => !r.route.startsWith("token:")).reduce((n, r) => n + r.total, 0)).toBe(usage.total);
    expect(byRoute["GET /users/{username}"]!.total).toBe(10);
    expect(byRoute["GET /users/{username}"]!.by_status).toEqual([
      { status: 200, error_code: null, count: 7 },
      { status: 404, error_code: "not_found", count: 3 },
    ]);
    expect(byRoute["GET /me"]!.by_status).toEqual([{ status: 403, error_code: "requires_user", count: 1 }]);
    expect(byRoute["token:client_credentials"]!.by_status).toEqual([{ status: 200, error_code: null, count: 1 }]);
    expect(usage.errors).toEqual(
      expect.arrayContaining([
        { code: "not_found", status: 404, count: 4 },
        { code: "insufficient_scope", status: 403, count: 1 },
      ]),
    );
    expect(usage.p50_ms).toBeGreaterThan(0);
    expect(usage.p95_ms).toBeGreaterThanOrEqual(usage.p50_ms!);
    // Latencies are the server's own, within what the client measured.
    await expectLatenciesWithinRoundTrips(apiApp.clientId, answers.slice(0, 13), usage);

    // The service the portal reads answers the same, and only for the app's team and admins.
    const { getAppUsage } = await import("../../lib/services/usage");
    const { CLI_ACTOR } = await import("../../lib/services/actor");
    const summary = await getAppUsage(apiApp.clientId, "24h", CLI_ACTOR);
    expect(summary.total).toBe(14);
    const [stranger] = await query<{ id: number }>(databaseUrl, `SELECT id FROM "User" WHERE handle = 'bob'`);
    await expect(
      getAppUsage(apiApp.clientId, "24h", { kind: "user", id: stranger!.id, handle: "bob", role: "user" }),
    ).rejects.toMatchObject({ code: "not_found" });
  });

  it("counts the code and refresh grants and user-delegated calls of a login app; failed unauthenticated token requests apart", async () => {
    const refreshed = await refreshTokens(server, loginApp.clientId, refreshToken);
    expect(refreshed.status).toBe(200);
    // Anyone can name a login client (it has no secret): a made-up refresh token or code is not the app's error.
    const bad = await refreshTokens(server, loginApp.clientId, "not-a-refresh-token");
    expect(bad.status).toBe(400);
    for (let i = 0; i < 2; i++) {
      const made = await fetch(tokenEndpoint(server), {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "authorization_code", client_id: loginApp.clientId, code: "made-up-code", redirect_uri: REDIRECT, code_verifier: "x".repeat(43) }),
      });
      expect(made.status).toBe(400);
    }
    const stats = await call("/me/stats", userToken);
    expect(stats.status).toBe(200);
    await flushed(loginApp.clientId, 6);
    const usage = await cliJson<UsageJson>(databaseUrl, ["apps", "usage", loginApp.clientId]);
    const byRoute = Object.fromEntries(usage.routes.map((r) => [r.route, r.by_status]));
    expect(Object.keys(byRoute).sort()).toEqual(["GET /me/stats", "token:authorization_code", "token:refresh_token"]);
    expect(byRoute["token:authorization_code"]).toEqual([{ status: 200, error_code: null, count: 1 }]);
    expect(byRoute["token:refresh_token"]).toEqual([{ status: 200, error_code: null, count: 1 }]);
    expect(byRoute["GET /me/stats"]).toEqual([{ status: 200, error_code: null, count: 1 }]);
    expect(usage.errors).toEqual([]);
    expect(usage.unauthenticated_callers).toEqual({
      total: 3,
      by_code: [
        { grant_type: "authorization_code", code: "invalid_grant", status: 400, count: 2 },
        { grant_type: "refresh_token", code: "invalid_grant", status: 400, count: 1 },
      ],
    });
    // Nor in the admin overview's error rate.
    const { getUsageOverview } = await import("../../lib/services/usage");
    const { CLI_ACTOR } = await import("../../lib/services/actor");
    expect((await getUsageOverview("24h", CLI_ACTOR)).apps.find((a) => a.clientId === loginApp.clientId)).toMatchObject({ total: 3, errors: 0 });
    await expectLatenciesWithinRoundTrips(loginApp.clientId, [stats], usage);

    // An API client authenticates with its secret: its failed requests stay its own errors.
    const confidential = (await createTestApp(databaseUrl, { type: "api", scopes: ["svc:directory.read"] })) as typeof apiApp;
    const refused = await fetch(tokenEndpoint(server), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      // Authenticated (the right secret), then refused: an API client may not exchange codes.
      body: new URLSearchParams({ grant_type: "authorization_code", client_id: confidential.clientId, client_secret: confidential.clientSecret, code: "made-up-code", redirect_uri: REDIRECT }),
    });
    expect(refused.status).toBe(400);
    const { error } = (await refused.json()) as { error: string };
    expect(error).not.toBe("invalid_client");
    await flushed(confidential.clientId, 1);
    const own = await cliJson<UsageJson>(databaseUrl, ["apps", "usage", confidential.clientId]);
    expect(own.routes.find((r) => r.route === "token:authorization_code")!.by_status).toEqual([{ status: 400, error_code: error, count: 1 }]);
    expect(own.unauthenticated_callers.total).toBe(0);
    const log = await cliJson<LogJson[]>(databaseUrl, ["apps", "requests", loginApp.clientId]);
    // The token requests are in the log too (findable by their X-Request-Id), the
    // unauthenticated callers' under their own route names.
    expect(log.filter((e) => e.route.startsWith("GET "))).toEqual([expect.objectContaining({ route: "GET /me/stats", status: 200, user: "usagefan" })]);
    expect(log.map((e) => `${e.route} ${e.status}`).sort()).toEqual([
      "GET /me/stats 200",
      "token:authorization_code 200",
      "token:refresh_token 200",
      "unauthenticated:authorization_code 400",
      "unauthenticated:authorization_code 400",
      "unauthenticated:refresh_token 400",
    ]);
    // The service hands the portal entries of the one declared shape (lib/schemas/usage.ts).
    const { listRequestLog } = await import("../../lib/services/usage");
    const { requestLogEntrySchema } = await import("../../lib/schemas/usage");
    const entries = requestLogEntrySchema.array().parse(await listRequestLog(loginApp.clientId, { limit: 10 }, CLI_ACTOR));
    const apiEntries = entries.filter((e) => e.route.startsWith("GET "));
    expect(apiEntries).toEqual([expect.objectContaining({ route: "GET /me/stats", requestId: stats.requestId, userHandle: "usagefan" })]);
    expect(apiEntries[0]!.userId).toBeGreaterThan(0);
  });

  it("counts the quota's 429s per app, for the app's usage and the admin overview", async () => {
    const limited = (await createTestApp(databaseUrl, { type: "api", scopes: ["svc:directory.read"] })) as typeof apiApp;
    await cliJson(databaseUrl, ["apps", "limit", limited.clientId, "--per-minute", "3"]);
    const token = (await clientCredentialsToken(server, limited.clientId, limited.clientSecret)).access_token;
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await call("/users/alice", token)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    await flushed(limited.clientId, 6);
    const usage = await cliJson<UsageJson>(databaseUrl, ["apps", "usage", limited.clientId]);
    expect(usage.routes.find((r) => r.route === "GET /users/{username}")!.by_status).toEqual([
      { status: 200, error_code: null, count: 3 },
      { status: 429, error_code: "rate_limited", count: 2 },
    ]);
    const { getUsageOverview } = await import("../../lib/services/usage");
    const { CLI_ACTOR } = await import("../../lib/services/actor");
    const overview = await getUsageOverview("24h", CLI_ACTOR);
    expect(overview.apps.find((a) => a.clientId === limited.clientId)).toMatchObject({ total: 6, errors: 2, limited: 2 });
    await expect(getUsageOverview("24h", { kind: "user", id: 1, handle: "alice", role: "user" })).rejects.toMatchObject({ code: "forbidden" });
  });
});

describe("request log", () => {
  it("finds a request by the X-Request-Id the client saw, and filters by status", async () => {
    const failed = await call(`/users/${ABSENT_HANDLE}?probe=${QUERY_VALUE}`, appToken);
    const given = await call("/users/alice", appToken, { "x-request-id": "support-ticket-4711" });
    expect(given.requestId).toBe("support-ticket-4711");
    await flushed(apiApp.clientId, 17);

    const found = await cliJson<LogJson[]>(databaseUrl, ["apps", "requests", apiApp.clientId, "--request-id", failed.requestId]);
    expect(found).toEqual([
      expect.objectContaining({
        method: "GET",
        route: "GET /users/{username}",
        status: 404,
        error_code: "not_found",
        request_id: failed.requestId,
        user: null,
      }),
    ]);
    expect(found[0]!.latency_ms).toBeGreaterThan(0);
    const byGiven = await cliJson<LogJson[]>(databaseUrl, ["apps", "requests", apiApp.clientId, "--request-id", "support-ticket-4711"]);
    expect(byGiven.map((e) => e.status)).toEqual([200]);

    const errors = await cliJson<LogJson[]>(databaseUrl, ["apps", "requests", apiApp.clientId, "--status", "4xx", "--limit", "100"]);
    expect(errors.map((e) => e.status).sort()).toEqual([403, 403, 404, 404, 404, 404, 404]);
    const notFound = await cliJson<LogJson[]>(databaseUrl, ["apps", "requests", apiApp.clientId, "--status", "404", "--limit", "2"]);
    expect(notFound).toHaveLength(2);
    expect(notFound[0]!.request_id).toBe(failed.requestId); // newest first
  });

  it("stores no token, secret, query value or concrete path in any usage row", async () => {
    const needles = [appToken, userToken, refreshToken, apiApp.clientSecret, QUERY_VALUE, ABSENT_HANDLE, "probe="];
    // Each token's signature part too, in case something kept a piece of it.
    needles.push(...[appToken, userToken].map((t) => t.split(".")[2]!));
    const rows = await query<{ t: string }>(
      databaseUrl,
      `SELECT u::text AS t FROM "UsageCount" u UNION ALL SELECT l::text FROM "UsageLatency" l UNION ALL SELECT r::text FROM "RequestLog" r`,
    );
    expect(rows.length).toBeGreaterThan(20);
    for (const needle of needles) {
      const hits = rows.filter((r) => r.t.includes(needle));
      expect(hits, `found ${needle.slice(0, 12)}… in ${hits[0]?.t}`).toEqual([]);
    }
  });

  it("refuses bad filters as usage errors", async () => {
    const { runCli } = await import("../helpers/cli");
    const run = await runCli(databaseUrl, ["apps", "requests", apiApp.clientId, "--status", "3xx", "--json"]);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stderr)).toMatchObject({ error: { code: "invalid_request" } });
    const since = await runCli(databaseUrl, ["apps", "usage", apiApp.clientId, "--since", "2y", "--json"]);
    expect(since.code).toBe(2);
  });
});

describe("rollup and retention", () => {
  it("rolls minutes older than a day into hours, deletes hours past 90 days and trims the request log", async () => {
    const app = "api_retention_probe";
    const hourAgo = (h: number) => `date_trunc('hour', now() AT TIME ZONE 'UTC') - interval '${h} hours'`;
    await query(
      databaseUrl,
      `INSERT INTO "UsageCount" ("clientId", route, status, "errorCode", "periodStart", count) VALUES
         ($1, 'GET /me', 200, '', ${hourAgo(48)}, 2),
         ($1, 'GET /me', 200, '', ${hourAgo(48)} + interval '1 minute', 3),
         ($1, 'GET /me', 200, '', ${hourAgo(48)} + interval '59 minutes', 4),
         ($1, 'GET /me', 404, 'not_found', ${hourAgo(48)} + interval '7 minutes', 1),
         ($1, 'GET /me', 200, '', ${hourAgo(1)} + interval '5 minutes', 6),
         ($1, 'GET /me', 200, '', ${hourAgo(24 * 91)}, 9)`,
      [app],
    );
    await query(
      databaseUrl,
      `INSERT INTO "UsageLatency" ("clientId", route, "periodStart", bucket, count) VALUES
         ($1, 'GET /me', ${hourAgo(48)} + interval '2 minutes', 5, 2), ($1, 'GET /me', ${hourAgo(48)} + interval '3 minutes', 5, 3)`,
      [app],
    );
    // 1,050 successes (the newest 1,000 stay), an old error (goes) and a recent error older than
    // the 1,000 newest (stays: non-2xx of the last 7 days are kept).
    await query(
      databaseUrl,
      `INSERT INTO "RequestLog" ("clientId", at, method, route, status, "latencyMs", "requestId")
       SELECT $1, now() AT TIME ZONE 'UTC' - make_interval(secs => g), 'GET', 'GET /me', 200, 1, 'ok-' || g
       FROM generate_series(1, 1050) g`,
      [app],
    );
    await query(
      databaseUrl,
      `INSERT INTO "RequestLog" ("clientId", at, method, route, status, "errorCode", "latencyMs", "requestId") VALUES
         ($1, now() AT TIME ZONE 'UTC' - interval '8 days', 'GET', 'GET /me', 403, 'forbidden', 1, 'old-error'),
         ($1, now() AT TIME ZONE 'UTC' - interval '2 days', 'GET', 'GET /me', 404, 'not_found', 1, 'kept-error')`,
      [app],
    );

    const result = await cliJson<{ rolled_up: number; deleted: number; log_trimmed: number }>(databaseUrl, ["usage", "retention"]);
    expect(result.log_trimmed).toBe(51);

    const counts = await query<{ age: number; status: number; count: number }>(
      databaseUrl,
      `SELECT round(extract(epoch FROM (date_trunc('hour', now() AT TIME ZONE 'UTC') - "periodStart")) / 60)::int AS age, status::int, count
       FROM "UsageCount" WHERE "clientId" = $1 ORDER BY age, status`,
      [app],
    );
    expect(counts).toEqual([
      { age: 55, status: 200, count: 6 }, // the last day keeps its minutes
      { age: 48 * 60, status: 200, count: 9 },
      { age: 48 * 60, status: 404, count: 1 },
    ]);
    const latency = await query<{ count: number }>(databaseUrl, `SELECT count FROM "UsageLatency" WHERE "clientId" = $1`, [app]);
    expect(latency).toEqual([{ count: 5 }]);
    const log = await query<{ n: number; kept: number; old: number }>(
      databaseUrl,
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE "requestId" = 'kept-error')::int AS kept,
              count(*) FILTER (WHERE "requestId" = 'old-error' OR "requestId" = 'ok-1050')::int AS old
       FROM "RequestLog" WHERE "clientId" = $1`,
      [app],
    );
    expect(log).toEqual([{ n: 1001, kept: 1, old: 0 }]);

    // Again: nothing more to do, nothing counted twice.
    const again = await cliJson<{ rolled_up: number; deleted: number; log_trimmed: number }>(databaseUrl, ["usage", "retention"]);
    // The job also deletes expired Idempotency-Key rows and idle MCP sessions' subscriptions (none here).
    expect(again).toEqual({ rolled_up: 0, deleted: 0, log_trimmed: 0, idempotency_keys_expired: 0, mcp_subscriptions_expired: 0 });
  });
});
