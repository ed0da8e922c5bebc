import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliJson } from "../helpers/cli";
import { until } from "../helpers/poll";
import { authorize, createTestApp, createTestUser, refreshTokens, signInAndGetTokens, tokenRequest } from "../helpers/oidc";
import { answeredBy, startServer, type TestServer } from "../helpers/server";

/**
 * "the token endpoint explains": a scope the app may not have, or one the
 * platform does not know, is `invalid_scope` naming it (client credentials on either path,
 * authorization requests as an error redirect, refresh narrowing); every token-endpoint answer
 * carries an X-Request-Id under which the app's request log (`apps requests --request-id`) finds
 * it; `invalid_client` says the app may not be approved yet, with the same text for a wrong secret.
 */
const FLUSH_MS = 150;
const REDIRECT = "http://localhost:9/callback";
const PASSWORD = "explains test passphrase";
const APP_SCOPES = ["svc:chat.read"];
/** Sign-ins, several token requests and request-log polls: slow on a loaded machine. */
const SLOW = 240_000;
let server: TestServer;

beforeAll(async () => {
  server = await startServer({ seed: false, env: { USAGE_FLUSH_MS: String(FLUSH_MS) } });
  await createTestUser(server.databaseUrl, { handle: "explainer", password: PASSWORD });
});
afterAll(async () => {
  await server?.stop();
});

interface LogJson {
  route: string;
  status: number;
  error_code: string | null;
  request_id: string;
}

/** The app's request-log entries with `requestId`, once the server flushed them. */
async function logged(clientId: string, requestId: string): Promise<LogJson[]> {
  let found: LogJson[] = [];
  await until(
    async () => {
      found = await cliJson<LogJson[]>(server.databaseUrl, ["apps", "requests", clientId, "--request-id", requestId]);
      expect(found).toHaveLength(1);
    },
    { withinMs: 10_000, intervalMs: 200 },
  );
  return found;
}

const cc = (app: { clientId: string; clientSecret?: string }, scope?: string, headers: Record<string, string> = {}) =>
  tokenRequest(server, { grant_type: "client_credentials", client_id: app.clientId, client_secret: app.clientSecret, scope }, headers);

describe("invalid_scope on the token endpoint", () => {
  it("client credentials: the fast path grants the registered scopes; a scope parameter goes to oidc-provider, which refuses what the app may not have", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "api", scopes: APP_SCOPES });
    const plain = await answeredBy(server, () => cc(app));
    expect(plain.paths).toEqual({ client_credentials_fast: 1 });
    expect(plain.answer.status).toBe(200);
    expect(plain.answer.body.scope).toBe("svc:chat.read");

    const narrowed = await answeredBy(server, () => cc(app, "svc:chat.read"));
    expect(narrowed.paths).toEqual({ oidc_provider: 1 });
    expect(narrowed.answer.status).toBe(200);
    expect(narrowed.answer.body.scope).toBe("svc:chat.read");

    // Known to the platform but not registered for this app; user-only; unknown altogether.
    for (const [scope, named, why] of [
      ["svc:directory.read", "svc:directory.read", "not registered for this app"],
      ["svc:chat.read svc:pokes.write", "svc:pokes.write", "app-only token cannot hold it"],
      ["svc:chat.read svc:nonsense", "svc:nonsense", "not a scope of this platform"],
      ["email", "email", "not a scope of this platform"],
    ] as const) {
      const refused = await answeredBy(server, () => cc(app, scope));
      expect(refused.paths, scope).toEqual({ oidc_provider: 1 });
      expect(refused.answer.status, scope).toBe(400);
      expect(refused.answer.body, scope).toEqual({ error: "invalid_scope", error_description: expect.stringContaining(named), scope: named });
      expect(String(refused.answer.body.error_description), scope).toContain(why);
      expect(refused.answer.body).not.toHaveProperty("access_token");
    }
    // The OIDC scopes keep working: an API client's are ignored (the token has the registered scopes).
    const openid = await cc(app, "openid");
    expect(openid.status).toBe(200);
    expect(openid.body.scope).toBe("svc:chat.read");
  }, SLOW);

  it("authorization request: an unknown or unregistered scope is an invalid_scope error redirect naming it; openid, profile, offline_access still work", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "login", scopes: ["svc:stats.read"], redirectUris: [REDIRECT] });
    for (const [scope, named] of [
      ["openid svc:bogus", "svc:bogus"],
      ["openid svc:chat.write", "svc:chat.write"],
    ] as const) {
      const flow = await authorize(server, { handle: "explainer", password: PASSWORD, clientId: app.clientId, redirectUri: REDIRECT, scope });
      expect(flow.code, scope).toBeNull();
      expect(flow.callback.searchParams.get("error"), scope).toBe("invalid_scope");
      // oidc-provider's own check (the client's registered `scope`) names it in `scope`; ours in both.
      expect(flow.callback.searchParams.get("scope"), scope).toBe(named);
      expect(flow.callback.searchParams.get("error_description"), scope).toMatch(/^requested scope is not allowed/);
      expect(flow.callback.searchParams.get("state"), scope).toBe(flow.state);
    }
    const tokens = await signInAndGetTokens(server, {
      handle: "explainer",
      password: PASSWORD,
      clientId: app.clientId,
      redirectUri: REDIRECT,
      scope: "openid profile offline_access",
    });
    expect(tokens.scope.split(" ")).toEqual(expect.arrayContaining(["openid", "profile", "svc:stats.read"]));
  }, SLOW);

  it("refresh narrowing: a scope the sign-in was not granted is invalid_scope naming it", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "login", scopes: ["svc:stats.read"], redirectUris: [REDIRECT] });
    const tokens = await signInAndGetTokens(server, { handle: "explainer", password: PASSWORD, clientId: app.clientId, redirectUri: REDIRECT });
    for (const scope of ["openid svc:pokes.write", "openid svc:nonsense"]) {
      const res = await tokenRequest(server, { grant_type: "refresh_token", client_id: app.clientId, refresh_token: tokens.refresh_token, scope });
      expect(res.status, scope).toBe(400);
      expect(res.body, scope).toMatchObject({ error: "invalid_scope", scope: scope.split(" ")[1] });
    }
    const narrowed = await tokenRequest(server, { grant_type: "refresh_token", client_id: app.clientId, refresh_token: tokens.refresh_token, scope: "openid" });
    expect(narrowed.status).toBe(200);
  }, SLOW);
});

describe("X-Request-Id on every token-endpoint answer, found in the app's request log", () => {
  it("client credentials, fast path and oidc-provider's, success and error", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "api", scopes: APP_SCOPES });
    const fast = await answeredBy(server, () => cc(app));
    expect(fast.paths).toEqual({ client_credentials_fast: 1 });
    const fastId = fast.answer.headers.get("x-request-id")!;
    expect(fastId).toMatch(/^[0-9a-f-]{36}$/);

    const slow = await answeredBy(server, () => cc(app, "svc:chat.read", { "x-request-id": "support-ticket-cc-0001" }));
    expect(slow.paths).toEqual({ oidc_provider: 1 });
    expect(slow.answer.headers.get("x-request-id")).toBe("support-ticket-cc-0001");

    const refused = await cc(app, "svc:nonsense");
    expect(refused.status).toBe(400);
    const refusedId = refused.headers.get("x-request-id")!;
    expect(refusedId).toBeTruthy();

    expect(await logged(app.clientId, fastId)).toEqual([expect.objectContaining({ route: "token:client_credentials", status: 200, error_code: null })]);
    expect(await logged(app.clientId, "support-ticket-cc-0001")).toEqual([expect.objectContaining({ route: "token:client_credentials", status: 200 })]);
    expect(await logged(app.clientId, refusedId)).toEqual([
      expect.objectContaining({ route: "token:client_credentials", status: 400, error_code: "invalid_scope" }),
    ]);
  }, SLOW);

  it("refresh, fast path and oidc-provider's (invalid_grant)", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "login", scopes: ["svc:stats.read"], redirectUris: [REDIRECT] });
    const tokens = await signInAndGetTokens(server, { handle: "explainer", password: PASSWORD, clientId: app.clientId, redirectUri: REDIRECT });
    const fast = await answeredBy(server, () => refreshTokens(server, app.clientId, tokens.refresh_token));
    expect(fast.paths).toEqual({ refresh_fast: 1 });
    expect(fast.answer.status).toBe(200);
    const fastId = fast.answer.headers.get("x-request-id")!;
    expect(fastId).toBeTruthy();

    const bad = await answeredBy(server, () => refreshTokens(server, app.clientId, "not-a-refresh-token"));
    expect(bad.paths).toEqual({ oidc_provider: 1 });
    expect(bad.answer.status).toBe(400);
    expect(bad.answer.body.error).toBe("invalid_grant");
    const badId = bad.answer.headers.get("x-request-id")!;
    expect(badId).toBeTruthy();

    expect(await logged(app.clientId, fastId)).toEqual([expect.objectContaining({ route: "token:refresh_token", status: 200 })]);
    // A login client authenticates with nothing: its failures are logged as the unauthenticated callers'.
    expect(await logged(app.clientId, badId)).toEqual([
      expect.objectContaining({ route: "unauthenticated:refresh_token", status: 400, error_code: "invalid_grant" }),
    ]);
  }, SLOW);

  it("invalid_client: carries the id, and says the app may not be approved yet — the same text for a wrong secret", async () => {
    const approved = await createTestApp(server.databaseUrl, { type: "api", scopes: APP_SCOPES });
    const wrong = await cc({ clientId: approved.clientId, clientSecret: `${approved.clientSecret}x` });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe("invalid_client");
    expect(wrong.headers.get("x-request-id")).toBeTruthy();
    expect(String(wrong.body.error_description)).toMatch(/not approved/);
    for (const status of ["pending", "rejected"] as const) {
      const app = await createTestApp(server.databaseUrl, { type: "api", scopes: APP_SCOPES, status });
      const res = await cc(app);
      expect(res.status, status).toBe(401);
      expect(res.headers.get("x-request-id"), status).toBeTruthy();
      expect(res.body, status).toEqual(wrong.body);
    }
    const unknown = await cc({ clientId: "api_does_not_exist", clientSecret: "whatever" });
    expect(unknown.body).toEqual(wrong.body);
  }, SLOW);
});
