import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliJson } from "../helpers/cli";
import { query } from "../helpers/db";
import { clientCredentialsToken, createTestApp, createTestUser, refreshTokens, signInAndGetTokens, tokenRequest } from "../helpers/oidc";
import { newDatabase, pointAppAt, startServer, type TestServer } from "../helpers/server";

/**
 * A request log that explains, through a real server: the requests developers most need
 * to see are in their app's log under the request id their client saw — a token request with a
 * wrong secret (401 invalid_client, through the client-credentials fast path's hand-over), a call
 * with a valid token to an unknown path (404) or with a wrong method (405) — each with what its
 * answer carried (error code and message, rate-limit state) and never a query value or secret; the
 * log pages by keyset and filters by time; the figures of the Usage tab add up from its tables'
 * rows. (The detail view in the browser: e2e/usage.spec.ts.)
 */
const FLUSH_MS = 150;
const REDIRECT = "http://localhost:9/callback";
const QUERY_VALUE = "q-secret-value-4d2a";

let databaseUrl: string;
let server: TestServer;
let closeDb: () => Promise<void>;
let app: { clientId: string; clientSecret: string };
let token: string;

interface LogJson {
  at: string;
  method: string;
  route: string;
  status: number;
  error_code: string | null;
  error_message: string | null;
  latency_ms: number;
  request_id: string;
  user: string | null;
  mode: string;
  path: string | null;
  rate_limit: number | null;
  rate_remaining: number | null;
  grant_type: string | null;
}

async function call(path: string, init: { token?: string; method?: string; headers?: Record<string, string> } = {}) {
  const res = await fetch(`${server.apiUrl}${path}`, {
    method: init.method ?? "GET",
    headers: { ...(init.token ? { authorization: `Bearer ${init.token}` } : {}), ...init.headers },
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, requestId: res.headers.get("x-request-id")!, body: text ? (JSON.parse(text) as { error?: { code: string; message: string } }) : null };
}

/** The app's log rows (live and sandbox) with this request id, as the usage service hands them to the portal. */
async function logRows(clientId: string, requestId: string) {
  const { listRequestLog } = await import("../../lib/services/usage");
  const { CLI_ACTOR } = await import("../../lib/services/actor");
  return listRequestLog(clientId, { requestId, mode: "all", limit: 10 }, CLI_ACTOR);
}

/** The same, once flushed (the server flushes every FLUSH_MS). */
async function logged(clientId: string, requestId: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const rows = await logRows(clientId, requestId);
    if (rows.length > 0 || Date.now() > deadline) return rows;
    await new Promise((r) => setTimeout(r, FLUSH_MS));
  }
}

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
  app = (await createTestApp(databaseUrl, { type: "api", scopes: ["svc:directory.read"] })) as typeof app;
  token = (await clientCredentialsToken(server, app.clientId, app.clientSecret)).access_token;
});

afterAll(async () => {
  await closeDb?.();
  await server?.stop();
});

describe("the request log holds the requests developers most need to see", () => {
  it("a token request with a wrong client secret: 401 invalid_client, under its request id, as an unauthenticated caller's", async () => {
    const wrong = await tokenRequest(server, { grant_type: "client_credentials", client_id: app.clientId, client_secret: "not-the-secret-93c1" });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe("invalid_client");
    const requestId = wrong.headers.get("x-request-id")!;
    const [entry, ...more] = await logged(app.clientId, requestId);
    expect(more).toEqual([]);
    expect(entry).toMatchObject({
      method: "POST",
      route: "unauthenticated:client_credentials",
      status: 401,
      errorCode: "invalid_client",
      errorMessage: wrong.body.error_description,
      requestId,
      userHandle: null,
      path: null,
    });
    // As `apps requests` prints it, with its grant type.
    const [cli] = await cliJson<LogJson[]>(databaseUrl, ["apps", "requests", app.clientId, "--request-id", requestId]);
    expect(cli).toMatchObject({ route: "unauthenticated:client_credentials", grant_type: "client_credentials", status: 401, error_code: "invalid_client" });
    // Counted apart from the app's own requests: the Usage tab's unauthenticated callers.
    const usage = await cliJson<{ total: number; unauthenticated_callers: { total: number } }>(databaseUrl, ["apps", "usage", app.clientId]);
    expect(usage.unauthenticated_callers.total).toBe(1);
    // The secret sent is nowhere in the log.
    const rows = await query<{ t: string }>(databaseUrl, `SELECT r::text AS t FROM "RequestLog" r WHERE "clientId" = $1`, [app.clientId]);
    expect(rows.filter((r) => r.t.includes("not-the-secret-93c1"))).toEqual([]);
  });

  it("a token request for a pending or rejected app: in that app's log (form and Basic credentials); an unknown client ID in nobody's", async () => {
    const pending = await createTestApp(databaseUrl, { type: "api", status: "pending", scopes: ["svc:directory.read"] });
    const rejected = await createTestApp(databaseUrl, { type: "api", status: "rejected", scopes: ["svc:directory.read"] });
    const viaForm = await tokenRequest(server, { grant_type: "client_credentials", client_id: pending.clientId, client_secret: pending.clientSecret });
    const basic = `Basic ${Buffer.from(`${rejected.clientId}:${rejected.clientSecret}`).toString("base64")}`;
    const viaBasic = await tokenRequest(server, { grant_type: "client_credentials" }, { authorization: basic });
    const unknownId = `api_test${"0".repeat(20)}`;
    const unknown = await tokenRequest(server, { grant_type: "client_credentials", client_id: unknownId, client_secret: "whatever-it-is-42" });
    expect([viaForm.status, viaBasic.status, unknown.status]).toEqual([401, 401, 401]);
    for (const [clientId, answer] of [
      [pending.clientId, viaForm],
      [rejected.clientId, viaBasic],
    ] as const) {
      const requestId = answer.headers.get("x-request-id")!;
      const [entry, ...more] = await logged(clientId, requestId);
      expect(more).toEqual([]);
      expect(entry).toMatchObject({
        route: "unauthenticated:client_credentials",
        status: 401,
        errorCode: "invalid_client",
        errorMessage: answer.body.error_description,
        requestId,
      });
    }
    // A later request of the app's is flushed after the unknown one would have been: nowhere.
    const later = await tokenRequest(server, { grant_type: "client_credentials", client_id: pending.clientId, client_secret: "wrong" });
    await logged(pending.clientId, later.headers.get("x-request-id")!);
    const strays = await query(databaseUrl, `SELECT 1 FROM "RequestLog" WHERE "requestId" = $1 OR "clientId" = $2`, [unknown.headers.get("x-request-id"), unknownId]);
    expect(strays).toEqual([]);
  });

  it("a call with a valid token to an unknown path (404) and with a wrong method (405): the path without its query", async () => {
    const missing = await call(`/no-such-endpoint/deeper?probe=${QUERY_VALUE}`, { token });
    expect(missing.status).toBe(404);
    const wrongMethod = await call("/users/alice", { token, method: "DELETE" });
    expect(wrongMethod.status).toBe(405);
    // Not the app's: the same unknown path without a token, or with a forged one.
    const anonymous = await call("/no-such-endpoint/anonymous", {});
    const forged = await call("/no-such-endpoint/forged", { token: `${token.slice(0, -4)}AAAA` });
    expect([anonymous.status, forged.status]).toEqual([404, 404]);
    const after = await call("/users/alice", { token });

    const [notFound] = await logged(app.clientId, missing.requestId);
    expect(notFound).toMatchObject({
      method: "GET",
      route: "(no route)",
      path: "/api/v1/no-such-endpoint/deeper",
      status: 404,
      errorCode: "not_found",
      errorMessage: missing.body!.error!.message,
      userHandle: null,
      // It counts against the app's quota (docs: Rate limits), so its answer carried the app's state.
      rateLimit: 6000,
      rateRemaining: expect.any(Number),
    });
    const [notAllowed] = await logged(app.clientId, wrongMethod.requestId);
    expect(notAllowed).toMatchObject({ method: "DELETE", route: "(no route)", path: "/api/v1/users/alice", status: 405, errorCode: "method_not_allowed" });
    // Anything of theirs would be flushed by the time a later request is: in nobody's log.
    await logged(app.clientId, after.requestId);
    const strays = await query(databaseUrl, `SELECT 1 FROM "RequestLog" WHERE "requestId" = ANY($1)`, [[anonymous.requestId, forged.requestId]]);
    expect(strays).toEqual([]);

    // They count among the app's requests, under one route name, whatever the paths.
    await flushed(app.clientId, 4);
    const usage = await cliJson<{ total: number; routes: { route: string; total: number }[] }>(databaseUrl, ["apps", "usage", app.clientId]);
    expect(usage.routes.find((r) => r.route === "(no route)")?.total).toBe(2);
    // No query value anywhere in the usage tables.
    const rows = await query<{ t: string }>(
      databaseUrl,
      `SELECT u::text AS t FROM "UsageCount" u UNION ALL SELECT r::text FROM "RequestLog" r`,
    );
    expect(rows.filter((r) => r.t.includes(QUERY_VALUE) || r.t.includes("probe="))).toEqual([]);
  });

  it("each answer as sent: the error message, the rate-limit state of its headers, the user of a delegated token", async () => {
    const ok = await call("/users/alice", { token });
    const absent = await call("/users/nobody-at-all-28", { token });
    expect([ok.status, absent.status]).toEqual([200, 404]);
    const [okEntry] = await logged(app.clientId, ok.requestId);
    expect(okEntry).toMatchObject({
      route: "GET /users/{username}",
      status: 200,
      errorCode: null,
      errorMessage: null,
      path: null,
      rateLimit: Number(ok.headers.get("x-ratelimit-limit")),
      rateRemaining: Number(ok.headers.get("x-ratelimit-remaining")),
    });
    expect(okEntry!.rateLimit).toBeGreaterThan(0);
    const [absentEntry] = await logged(app.clientId, absent.requestId);
    expect(absentEntry).toMatchObject({
      status: 404,
      errorCode: absent.body!.error!.code,
      errorMessage: absent.body!.error!.message,
      rateRemaining: Number(absent.headers.get("x-ratelimit-remaining")),
    });

    // A login app: the user's handle with a delegated token's call; the code and refresh grants by grant type.
    const login = await createTestApp(databaseUrl, { type: "login", scopes: ["svc:stats.read"], redirectUris: [REDIRECT] });
    await createTestUser(databaseUrl, { handle: "logreader", password: "request log passphrase" });
    const tokens = await signInAndGetTokens(server, {
      handle: "logreader",
      password: "request log passphrase",
      clientId: login.clientId,
      redirectUri: REDIRECT,
      scope: "openid svc:stats.read offline_access",
    });
    const stats = await call("/me/stats", { token: tokens.access_token });
    expect(stats.status).toBe(200);
    const refreshed = await refreshTokens(server, login.clientId, tokens.refresh_token!);
    expect(refreshed.status).toBe(200);
    const refreshId = refreshed.headers.get("x-request-id")!;
    expect((await logged(login.clientId, stats.requestId))[0]).toMatchObject({ route: "GET /me/stats", userHandle: "logreader" });
    expect((await logged(login.clientId, refreshId))[0]).toMatchObject({ route: "token:refresh_token", status: 200, userHandle: null });
  });
});

describe("reading the log", () => {
  it("pages by keyset through every row exactly once, newest first, and filters by time", async () => {
    const paged = (await createTestApp(databaseUrl, { type: "api", scopes: ["svc:directory.read"] })) as typeof app;
    const pagedToken = (await clientCredentialsToken(server, paged.clientId, paged.clientSecret)).access_token;
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.push((await call(i % 3 === 2 ? "/no-such/route" : "/users/alice", { token: pagedToken })).requestId);
    await logged(paged.clientId, made[made.length - 1]!);
    await flushed(paged.clientId, 8);

    const { listRequestLogPage } = await import("../../lib/services/usage");
    const { requestLogFilterSchema } = await import("../../lib/schemas/usage");
    const { CLI_ACTOR } = await import("../../lib/services/actor");
    const seen: { requestId: string; atMs: number }[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const filter = requestLogFilterSchema.parse({ limit: "3", ...(cursor ? { cursor } : {}) });
      const page = await listRequestLogPage(paged.clientId, filter, CLI_ACTOR);
      expect(page.entries.length).toBeLessThanOrEqual(3);
      seen.push(...page.entries);
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== null && pages < 10);
    // 7 calls and the token request, each once, newest first.
    expect(seen).toHaveLength(8);
    expect(pages).toBe(3);
    expect(new Set(seen.map((e) => e.requestId)).size).toBe(8);
    expect(seen.map((e) => e.requestId).filter((id) => made.includes(id))).toEqual([...made].reverse());
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.atMs).toBeLessThanOrEqual(seen[i - 1]!.atMs);

    // A time window: from the fourth call on (inclusive), until the sixth (exclusive).
    const at = (id: string) => seen.find((e) => e.requestId === id)!.atMs;
    const iso = (ms: number) => new Date(ms).toISOString();
    const [since, until] = [at(made[3]!), at(made[5]!)];
    const window = await cliJson<LogJson[]>(databaseUrl, ["apps", "requests", paged.clientId, "--since", iso(since), "--until", iso(until)]);
    const expected = seen.filter((e) => e.atMs >= since && e.atMs < until).map((e) => e.requestId);
    expect(expected).toContain(made[3]);
    expect(window.map((e) => e.request_id)).toEqual(expected);
    // A malformed cursor or time is refused at the edge.
    expect(requestLogFilterSchema.safeParse({ cursor: "bm90LWEtY3Vyc29y" }).success).toBe(false);
    expect(requestLogFilterSchema.safeParse({ since: "yesterday" }).success).toBe(false);
  });

  it("opens a request by its id for the app's team and admins only", async () => {
    const ok = await call("/users/alice", { token });
    await logged(app.clientId, ok.requestId);
    const { getRequestLogEntries } = await import("../../lib/services/usage");
    const { CLI_ACTOR } = await import("../../lib/services/actor");
    expect(await getRequestLogEntries(app.clientId, ok.requestId, CLI_ACTOR)).toEqual([
      expect.objectContaining({ requestId: ok.requestId, status: 200, mode: "live" }),
    ]);
    await expect(getRequestLogEntries(app.clientId, "no-such-request-id", CLI_ACTOR)).rejects.toMatchObject({ code: "not_found" });
    const [bob] = await query<{ id: number }>(databaseUrl, `SELECT id FROM "User" WHERE handle = 'bob'`);
    await expect(getRequestLogEntries(app.clientId, ok.requestId, { kind: "user", id: bob!.id, handle: "bob", role: "user" })).rejects.toMatchObject({
      code: "not_found",
    });
  });
});
