import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SPEC_ERROR_STATUS } from "../api/support";
import { clientCredentialsToken, createTestApp, createTestUser, signInAndGetTokens, type TestApp } from "../helpers/oidc";
import { startServer, type TestServer } from "../helpers/server";

/**
 * "Fuzz": a property-based sweep (fast-check) over every API endpoint, the token
 * endpoint's form parameters and the authorization endpoint's query, more than 10,000 generated
 * requests against one real server, about
 * 20 at a time. Property: never a 5xx, and every error in the right shape: the API's envelope with
 * one of SPEC.md's codes (at its documented status), or OAuth's `error` + `error_description`.
 *
 * Requests are drawn with a fixed seed (FUZZ_SEED to change it) so a failure replays; the failing
 * request is printed in full.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const API_RUNS = Number(process.env.FUZZ_API_RUNS ?? 7_000);
const TOKEN_RUNS = Number(process.env.FUZZ_TOKEN_RUNS ?? 3_500);
const AUTHORIZE_RUNS = Number(process.env.FUZZ_AUTHORIZE_RUNS ?? 1_000);
const CONCURRENCY = 20;
const REDIRECT = "http://localhost:9/callback";
const PASSWORD = "fuzz passphrase 123";
const ALL_SCOPES = ["svc:stats.read", "svc:notifications.read", "svc:beetle.read", "svc:pokes.write", "svc:chat.read", "svc:chat.write", "svc:directory.read"];

let server: TestServer;
let apiApp: TestApp;
let loginApp: TestApp;
let tokens: { user: string; app: string; refresh: string; id: string };

beforeAll(async () => {
  server = await startServer({ seed: true, env: { LOG_LEVEL: "warn" } });
  apiApp = await createTestApp(server.databaseUrl, { type: "api", scopes: ["svc:chat.read", "svc:directory.read"] });
  loginApp = await createTestApp(server.databaseUrl, { type: "login", scopes: ALL_SCOPES, redirectUris: [REDIRECT] });
  await createTestUser(server.databaseUrl, { handle: "fuzzer", password: PASSWORD });
  const user = await signInAndGetTokens(server, { handle: "fuzzer", password: PASSWORD, clientId: loginApp.clientId, redirectUri: REDIRECT });
  const app = await clientCredentialsToken(server, apiApp.clientId, apiApp.clientSecret!);
  tokens = { user: user.access_token, app: app.access_token, refresh: user.refresh_token, id: user.id_token };
});

afterAll(async () => {
  await server?.stop();
});

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

interface Outcome {
  request: FuzzRequest;
  status: number;
  text: string;
  contentType: string;
}

/** Runs requests `CONCURRENCY` at a time; never throws (a network error is recorded as status 0). */
async function runAll(requests: FuzzRequest[], base: string): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let next = 0;
  async function worker() {
    while (next < requests.length) {
      const request = requests[next++]!;
      try {
        const res = await fetch(`${base}${request.path}`, {
          method: request.method,
          headers: request.headers,
          body: request.body,
          redirect: "manual",
          signal: AbortSignal.timeout(30_000),
        });
        outcomes.push({ request, status: res.status, text: await res.text(), contentType: res.headers.get("content-type") ?? "" });
      } catch (error) {
        outcomes.push({ request, status: 0, text: String((error as Error).cause ?? error), contentType: "" });
      }
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return outcomes;
}

const describeOutcome = (o: Outcome) =>
  `${o.request.method} ${o.request.path} ${JSON.stringify(o.request.headers)} ${o.request.body?.slice(0, 300) ?? ""}\n→ ${o.status} ${o.text.slice(0, 300)}`;

// ---------- generators ----------

/** encodeURIComponent, after replacing unpaired surrogates (which it refuses to encode). */
function encode(value: string): string {
  return encodeURIComponent(value.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd"));
}

/** Strings that tend to break parsers: unicode, control characters, SQL/HTML/path tricks, huge numbers. */
const nasty = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.constantFrom(
    "",
    " ",
    "0",
    "-1",
    "1e308",
    "9223372036854775808",
    "99999999999999999999999",
    "NaN",
    "null",
    "undefined",
    "true",
    "[]",
    "{}",
    "'; DROP TABLE \"User\"; --",
    "<script>alert(1)</script>",
    "../../etc/passwd",
    "%00",
    "\u0000",
    "\uffff",
    "\ud800",
    "a".repeat(5000),
    "alice",
    "@alice",
    "ALICE",
    "fuzzer",
    "1",
    "00000000001",
  ),
);

const intish = fc.oneof(fc.integer({ min: -1000, max: 1000 }).map(String), fc.constantFrom("0", "1", "50", "51", "100", "101", "1.5", "abc", "", "1e3", " 10", "0x10"), nasty);

const bearer = fc.oneof(
  { weight: 5, arbitrary: fc.constant("user") },
  { weight: 3, arbitrary: fc.constant("app") },
  { weight: 2, arbitrary: fc.constant("none") },
  { weight: 1, arbitrary: fc.constant("id") },
  { weight: 1, arbitrary: fc.constant("refresh") },
  { weight: 1, arbitrary: nasty.map((s) => `raw:${s}`) },
);

function authHeader(kind: string): Record<string, string> {
  switch (kind) {
    case "none":
      return {};
    case "user":
      return { authorization: `Bearer ${tokens.user}` };
    case "app":
      return { authorization: `Bearer ${tokens.app}` };
    case "id":
      return { authorization: `Bearer ${tokens.id}` };
    case "refresh":
      return { authorization: `Bearer ${tokens.refresh}` };
    default: {
      const raw = kind.slice(4);
      // Header values must be Latin-1 without CR/LF: fetch refuses anything else before sending.
      const safe = raw.replace(/[^\x20-\x7e]/g, "x");
      return { authorization: safe.length % 2 ? `Bearer ${safe}` : safe };
    }
  }
}

const pathParam = fc.oneof(
  { weight: 4, arbitrary: nasty.map((s) => encode(s)) },
  { weight: 1, arbitrary: fc.constantFrom("alice", "bob", "fuzzer", "nobody_here", "%", "%zz", "%2F", "..", "a%2Fb", "%C0%AF") },
);

const query = (keys: string[]) =>
  fc
    .array(fc.tuple(fc.oneof(fc.constantFrom(...keys), nasty), intish), { maxLength: 4 })
    .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${encode(k)}=${encode(v)}`).join("&")}` : ""));

const jsonish = fc.oneof(fc.jsonValue().map((v) => JSON.stringify(v)), nasty, fc.constantFrom("{", '{"text":', "[1,2", '{"text":"hi"}'));

const chatBody = fc.oneof(
  fc.record({ text: fc.oneof(nasty, fc.integer(), fc.constant(null), fc.string({ minLength: 8190, maxLength: 8200 })), reply_to_id: fc.option(fc.oneof(intish, fc.integer(), fc.constant(null)), { nil: undefined }) }, { requiredKeys: [] }).map((b) => JSON.stringify(b)),
  jsonish,
);

const identifier = fc.record(
  {
    type: fc.oneof(fc.constantFrom("handle", "x_handle", "codehost", "chatapp"), nasty, fc.integer()),
    value: fc.oneof(nasty, fc.integer(), fc.constant(null), fc.jsonValue()),
  },
  { requiredKeys: [] },
);
const resolveBody = fc.oneof(
  fc.record({ identifiers: fc.oneof(fc.array(identifier, { maxLength: 55 }), nasty, fc.constant(null)) }, { requiredKeys: [] }).map((b) => JSON.stringify(b)),
  jsonish,
);

const contentType = fc.constantFrom("application/json", "application/json; charset=utf-8", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data", "", "application/json; charset=latin1");

const apiRequest: fc.Arbitrary<FuzzRequest> = fc
  .tuple(
    fc.oneof(
      fc.tuple(fc.constant("GET"), pathParam, fc.constant("")).map(([m, p]) => ({ method: m, path: `/users/${p}` })),
      fc.tuple(fc.constantFrom("/me", "/me/stats", "/me/beetle", "/me/beetle/cards")).map(([p]) => ({ method: "GET", path: p })),
      query(["limit", "page"]).map((q) => ({ method: "GET", path: `/me/notifications${q}` })),
      fc.tuple(pathParam).map(([p]) => ({ method: "POST", path: `/users/${p}/poke` })),
      query(["limit", "before"]).map((q) => ({ method: "GET", path: `/global-chat/messages${q}` })),
      chatBody.map((body) => ({ method: "POST", path: "/global-chat/messages", body })),
      resolveBody.map((body) => ({ method: "POST", path: "/directory/resolve", body })),
      query(["limit", "cursor"]).map((q) => ({ method: "GET", path: `/users${q}` })),
      fc.tuple(fc.constantFrom("PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "GET", "POST"), fc.constantFrom("/me", "/users", "/global-chat/messages", "/directory/resolve", "/users/alice/poke", "/users/alice", "/openapi.json")).map(([m, p]) => ({ method: m, path: p })),
      fc.tuple(fc.constantFrom("GET", "POST"), fc.array(pathParam, { minLength: 1, maxLength: 4 })).map(([m, parts]) => ({ method: m, path: `/${parts.join("/")}` })),
      fc.constantFrom("/", "", "/v2/users", "//users", "/users/", "/me/", "/ME").map((p) => ({ method: "GET", path: p })),
    ),
    bearer,
    contentType,
    fc.option(jsonish, { nil: undefined, freq: 4 }),
    fc.boolean(),
  )
  .map(([route, auth, type, extraBody, oversized]) => {
    const r = route as { method: string; path: string; body?: string };
    const hasBody = r.method !== "GET" && r.method !== "HEAD";
    let body = hasBody ? (r.body ?? extraBody) : undefined;
    if (hasBody && oversized && Math.random() < 0.02) body = `{"text":"${"x".repeat(70_000)}"}`;
    const headers: Record<string, string> = { ...authHeader(auth) };
    if (body !== undefined && type) headers["content-type"] = type;
    return { method: r.method, path: `/api/v1${r.path}`, headers, body };
  });

const formValue = fc.oneof(
  { weight: 3, arbitrary: nasty },
  { weight: 1, arbitrary: fc.constantFrom("client_credentials", "authorization_code", "refresh_token", "password", "implicit", "urn:ietf:params:oauth:grant-type:device_code", "urn:ietf:params:oauth:grant-type:token-exchange") },
);

const tokenRequestArb: fc.Arbitrary<FuzzRequest> = fc
  .tuple(
    fc.record(
      {
        grant_type: fc.oneof(fc.constantFrom("client_credentials", "authorization_code", "refresh_token"), formValue),
        client_id: fc.oneof(fc.constant("API"), fc.constant("LOGIN"), nasty),
        client_secret: fc.oneof(fc.constant("SECRET"), nasty),
        code: nasty,
        redirect_uri: fc.oneof(fc.constant(REDIRECT), nasty),
        code_verifier: nasty,
        refresh_token: fc.oneof(fc.constant("REFRESH"), nasty),
        scope: fc.oneof(fc.constantFrom("openid", "svc:chat.read", "svc:chat.read svc:chat.write", "offline_access", "svc:nonexistent"), nasty),
        resource: fc.oneof(fc.constant(`${"API_URL"}`), nasty),
        audience: nasty,
      },
      { requiredKeys: [] },
    ),
    fc.array(fc.tuple(nasty, nasty), { maxLength: 3 }),
    fc.constantFrom("form", "form", "form", "json", "text", "none", "duplicate"),
    fc.oneof(fc.constant(null), fc.constant("basic-valid"), fc.constant("basic-wrong"), nasty.map((s) => `raw:${s}`)),
    fc.constantFrom("POST", "POST", "POST", "POST", "GET", "PUT"),
  )
  .map(([fields, extra, encoding, auth, method]) => {
    const resolve = (v: string) =>
      v === "API" ? apiApp.clientId : v === "LOGIN" ? loginApp.clientId : v === "SECRET" ? apiApp.clientSecret! : v === "REFRESH" ? tokens.refresh : v === "API_URL" ? server.apiUrl : v;
    const pairs: [string, string][] = Object.entries(fields).map(([k, v]) => [k, resolve(String(v))]);
    pairs.push(...extra);
    if (encoding === "duplicate" && pairs.length) pairs.push(pairs[0]!);
    const headers: Record<string, string> = {};
    let body: string | undefined;
    if (encoding === "json") {
      headers["content-type"] = "application/json";
      body = JSON.stringify(Object.fromEntries(pairs));
    } else if (encoding === "text") {
      headers["content-type"] = "text/plain";
      body = new URLSearchParams(pairs).toString();
    } else if (encoding !== "none") {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(pairs).toString();
    }
    if (auth === "basic-valid") headers.authorization = `Basic ${Buffer.from(`${apiApp.clientId}:${apiApp.clientSecret}`).toString("base64")}`;
    else if (auth === "basic-wrong") headers.authorization = `Basic ${Buffer.from(`${apiApp.clientId}:wrong`).toString("base64")}`;
    else if (auth) headers.authorization = `Basic ${auth.slice(4).replace(/[^\x20-\x7e]/g, "x")}`;
    if (method === "GET") body = undefined;
    return { method, path: "/realms/platform/protocol/openid-connect/token", headers, body };
  });

const authorizeRequestArb: fc.Arbitrary<FuzzRequest> = fc
  .tuple(
    fc.record(
      {
        client_id: fc.oneof(fc.constant("LOGIN"), fc.constant("API"), nasty),
        response_type: fc.oneof(fc.constantFrom("code", "token", "id_token", "code id_token", "none"), nasty),
        redirect_uri: fc.oneof(fc.constant(REDIRECT), fc.constantFrom("https://evil.example/cb", `${REDIRECT}/x`, `${REDIRECT}?a=1`), nasty),
        scope: fc.oneof(fc.constantFrom("openid", "openid profile", "openid svc:chat.read", "svc:chat.read", "openid offline_access"), nasty),
        state: nasty,
        nonce: nasty,
        code_challenge: fc.oneof(fc.constant("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"), nasty),
        code_challenge_method: fc.oneof(fc.constantFrom("S256", "plain"), nasty),
        prompt: fc.oneof(fc.constantFrom("login", "consent", "none", "select_account", "create"), nasty),
        max_age: intish,
        login_hint: nasty,
        ui_locales: nasty,
        claims: fc.oneof(fc.jsonValue().map((v) => JSON.stringify(v)), nasty),
        request: nasty,
        request_uri: nasty,
        resource: fc.oneof(fc.constant("API_URL"), nasty),
        response_mode: fc.oneof(fc.constantFrom("query", "fragment", "form_post", "jwt"), nasty),
      },
      { requiredKeys: [] },
    ),
    fc.array(fc.tuple(nasty, nasty), { maxLength: 2 }),
  )
  .map(([fields, extra]) => {
    const resolve = (v: string) => (v === "LOGIN" ? loginApp.clientId : v === "API" ? apiApp.clientId : v === "API_URL" ? server.apiUrl : v);
    const pairs: [string, string][] = Object.entries(fields).map(([k, v]) => [k, resolve(String(v))]);
    pairs.push(...extra);
    return { method: "GET", path: `/realms/platform/protocol/openid-connect/auth?${new URLSearchParams(pairs).toString()}`, headers: {} };
  });

// ---------- checks ----------

function apiProblem(o: Outcome): string | null {
  if (o.status === 0) return "no HTTP answer";
  if (o.status >= 500) return "5xx";
  if (o.request.method === "HEAD" || o.request.method === "OPTIONS" || o.status === 204) return null;
  if (!o.contentType.includes("application/json")) return `content-type ${o.contentType}`;
  let body: { error?: { code?: unknown; message?: unknown } };
  try {
    body = JSON.parse(o.text);
  } catch {
    return "body is not JSON";
  }
  if (o.status < 400) return null;
  const code = body.error?.code;
  // The oracle is SPEC.md's Errors table (tests/api/support.ts), not the implementation's own list.
  const statuses = typeof code === "string" && Object.hasOwn(SPEC_ERROR_STATUS, code) ? SPEC_ERROR_STATUS[code]! : null;
  if (!statuses) return `error code ${String(code)} is not one of SPEC.md's`;
  if (typeof body.error?.message !== "string" || !body.error.message) return "error without a message";
  if (!statuses.includes(o.status)) return `${code} with HTTP ${o.status} (SPEC: ${statuses.join(" or ")})`;
  return null;
}

/** An authorization request ends on an error page, at the login page, or back at the registered redirect URI. */
function authorizeProblem(o: Outcome): string | null {
  if (o.status === 0) return "no HTTP answer";
  if (o.status >= 500) return "5xx";
  if (o.status === 400) return o.contentType.includes("text/html") ? null : `error page as ${o.contentType}`;
  if (o.status !== 303 && o.status !== 302) return `HTTP ${o.status}`;
  return null;
}

function oauthProblem(o: Outcome): string | null {
  if (o.status === 0) return "no HTTP answer";
  if (o.status >= 500) return "5xx";
  if (!o.contentType.includes("application/json")) return `content-type ${o.contentType}`;
  let body: { error?: unknown; error_description?: unknown; access_token?: unknown };
  try {
    body = JSON.parse(o.text);
  } catch {
    return "body is not JSON";
  }
  if (o.status === 200) return typeof body.access_token === "string" ? null : "200 without an access_token";
  if (typeof body.error !== "string" || !/^[a-z_]+$/.test(body.error)) return `error ${String(body.error)}`;
  if (typeof body.error_description !== "string" || !body.error_description) return "error without error_description";
  return null;
}

describe("fuzz", () => {
  it(`${API_RUNS} generated API requests: no 5xx, every error in the envelope with a SPEC code`, async () => {
    const requests = fc.sample(apiRequest, { numRuns: API_RUNS, seed: SEED });
    const outcomes = await runAll(requests, server.url);
    expect(outcomes).toHaveLength(API_RUNS);
    const problems = outcomes.map((o) => [apiProblem(o), o] as const).filter(([p]) => p !== null);
    expect(problems.slice(0, 5).map(([p, o]) => `${p}: ${describeOutcome(o)}`)).toEqual([]);
    // The sweep reached deep: successes, and most kinds of errors.
    const statuses = new Set(outcomes.map((o) => o.status));
    for (const s of [200, 400, 401, 403, 404, 405]) expect(statuses, `saw HTTP ${s}`).toContain(s);
  }, 600_000);

  it(`${TOKEN_RUNS} generated token endpoint requests: no 5xx, every error with error and error_description`, async () => {
    const requests = fc.sample(tokenRequestArb, { numRuns: TOKEN_RUNS, seed: SEED + 1 });
    const outcomes = await runAll(requests, server.url);
    expect(outcomes).toHaveLength(TOKEN_RUNS);
    const problems = outcomes.map((o) => [oauthProblem(o), o] as const).filter(([p]) => p !== null);
    expect(problems.slice(0, 5).map(([p, o]) => `${p}: ${describeOutcome(o)}`)).toEqual([]);
    const errors = new Set(outcomes.map((o) => (o.status === 200 ? "ok" : (JSON.parse(o.text) as { error: string }).error)));
    for (const e of ["ok", "invalid_client", "invalid_request", "unsupported_grant_type"]) expect(errors, `saw ${e}`).toContain(e);
  }, 600_000);

  it(`${AUTHORIZE_RUNS} generated authorization requests: no 5xx, never a redirect anywhere but home or the registered URI`, async () => {
    const requests = fc.sample(authorizeRequestArb, { numRuns: AUTHORIZE_RUNS, seed: SEED + 2 });
    const outcomes: Outcome[] = [];
    // Redirect targets need the Location header, so these go through a small loop of their own.
    const locations = new Map<FuzzRequest, string | null>();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < requests.length) {
          const request = requests[next++]!;
          const res = await fetch(`${server.url}${request.path}`, { redirect: "manual", signal: AbortSignal.timeout(30_000) }).catch(
            () => null,
          );
          outcomes.push({ request, status: res?.status ?? 0, text: res ? await res.text() : "", contentType: res?.headers.get("content-type") ?? "" });
          locations.set(request, res?.headers.get("location") ?? null);
        }
      }),
    );
    const problems = outcomes.map((o) => [authorizeProblem(o), o] as const).filter(([p]) => p !== null);
    expect(problems.slice(0, 5).map(([p, o]) => `${p}: ${describeOutcome(o)}`)).toEqual([]);
    for (const [request, location] of locations) {
      if (!location) continue;
      const target = new URL(location, server.url);
      const home = target.origin === new URL(server.url).origin && target.pathname.startsWith("/interaction/");
      const client = `${target.origin}${target.pathname}` === REDIRECT;
      expect(home || client, `${request.path} → ${location}`).toBe(true);
    }
  }, 600_000);

  it("the server is still healthy and logged no crash", async () => {
    expect(API_RUNS + TOKEN_RUNS + AUTHORIZE_RUNS).toBeGreaterThanOrEqual(10_000);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(server.process.exitCode).toBeNull();
    expect(server.logs.filter((l) => /unhandled|uncaught/i.test(l))).toEqual([]);
  });
});
