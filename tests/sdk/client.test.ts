import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  clientCredentials,
  createClient,
  createLoginClient,
  PlatformError,
  refreshingTokens,
  type ChatMessage,
} from "@social-dev-platform/sdk";
import { completeDeviceSignIn, completeSignIn, confirmLogout, createTestApp, createTestUser } from "../helpers/oidc";
import { startServer, type TestServer } from "../helpers/server";

/**
 * The SDK (sdk/) against a real server on the seeded demo world: typed calls, PlatformError from the
 * SPEC error envelope, the client-credentials token provider (one token, renewed shortly before it
 * expires, single flight), the cursor iterators, and the login-client helpers (PKCE sign-in driven
 * through the hosted login form over HTTP, refresh with rotation, RP-initiated logout).
 */
let server: TestServer;
let api: { clientId: string; clientSecret: string };
let login: { clientId: string };
let deviceApp: { clientId: string };
const REDIRECT = "http://localhost:9/sdk/callback";
const AFTER_LOGOUT = "http://localhost:9/sdk/bye";
const PASSWORD = "sdk-test-password";

beforeAll(async () => {
  server = await startServer({ seed: true });
  api = (await createTestApp(server.databaseUrl, { type: "api", scopes: ["svc:chat.read", "svc:directory.read"] })) as typeof api;
  login = await createTestApp(server.databaseUrl, {
    type: "login",
    scopes: ["svc:chat.read", "svc:chat.write", "svc:stats.read", "svc:pokes.write"],
    redirectUris: [REDIRECT],
    postLogoutRedirectUris: [AFTER_LOGOUT],
    firstParty: true,
  });
  deviceApp = await createTestApp(server.databaseUrl, { type: "login", scopes: ["svc:chat.read"], deviceFlow: true, firstParty: true });
  await createTestUser(server.databaseUrl, { handle: "sdkuser", password: PASSWORD });
});

afterAll(async () => {
  await server?.stop();
});

/** A fetch that counts the token requests going through it. */
function countingFetch() {
  const counter = {
    tokenRequests: 0,
    fetch: ((input: RequestInfo | URL, init?: RequestInit) => {
      if (String(input instanceof Request ? input.url : input).endsWith("/protocol/openid-connect/token")) counter.tokenRequests++;
      return fetch(input, init);
    }) as typeof fetch,
  };
  return counter;
}

async function signIn() {
  const client = await createLoginClient({ issuer: server.issuer, clientId: login.clientId, redirectUri: REDIRECT, postLogoutRedirectUri: AFTER_LOGOUT });
  const { url, pending } = await client.startSignIn();
  const flow = await completeSignIn(server, url.href, { handle: "sdkuser", password: PASSWORD, redirectUri: REDIRECT });
  const tokens = await client.finishSignIn(flow.callback, pending);
  return { client, url, pending, flow, tokens };
}

describe("clientCredentials token provider", () => {
  it("50 concurrent calls share one token request; the token is renewed shortly before it expires, once", async () => {
    let clock = Date.now();
    const counter = countingFetch();
    const tokenProvider = clientCredentials({ issuer: server.issuer, ...api, fetch: counter.fetch, now: () => clock });
    const client = createClient({ baseUrl: server.apiUrl, tokenProvider });

    const pages = await Promise.all(Array.from({ length: 50 }, () => client.GET("/global-chat/messages", { params: { query: { limit: 1 } } })));
    expect(pages.every((p) => p.data.messages.length === 1)).toBe(true);
    expect(counter.tokenRequests).toBe(1);

    // Well before expiry (ACCESS_TOKEN_TTL 3600 s): the cached token.
    clock += 3000_000;
    await client.GET("/users", { params: { query: { limit: 1 } } });
    expect(counter.tokenRequests).toBe(1);

    // Within the last minute: one renewal, shared by concurrent callers.
    clock += 545_000;
    await Promise.all(Array.from({ length: 10 }, () => client.GET("/users", { params: { query: { limit: 1 } } })));
    expect(counter.tokenRequests).toBe(2);
  });

  it("a wrong secret, an app that is not approved, or a wrong issuer is a PlatformError", async () => {
    const wrong = createClient({ baseUrl: server.apiUrl, tokenProvider: clientCredentials({ issuer: server.issuer, clientId: api.clientId, clientSecret: "nope" }) });
    const error = await wrong.GET("/users").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ code: "invalid_client", status: 401 });
    expect(String((error as Error).message)).not.toContain("nope");

    const pending = await createTestApp(server.databaseUrl, { type: "api", scopes: ["svc:chat.read"], status: "pending" });
    const provider = clientCredentials({ issuer: server.issuer, clientId: pending.clientId, clientSecret: pending.clientSecret! });
    await expect(provider()).rejects.toMatchObject({ code: "invalid_client" });

    const badIssuer = clientCredentials({ issuer: `${server.url}/realms/nowhere`, ...api });
    await expect(badIssuer()).rejects.toBeInstanceOf(PlatformError);
  });
});

describe("createClient", () => {
  it("throws PlatformError with status, code, message and the X-Request-Id", async () => {
    const client = createClient({ baseUrl: server.url, headers: { "x-request-id": "sdk-test-request-1" } });
    const error = await client.users.get("no-such-person-here").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ status: 404, code: "not_found", requestId: "sdk-test-request-1" });
    expect((error as PlatformError).message).toBeTruthy();

    const anonymous = createClient({ baseUrl: server.apiUrl });
    await expect(anonymous.GET("/users")).rejects.toMatchObject({ status: 401, code: "unauthorized" });
    const forged = createClient({ baseUrl: server.apiUrl, token: "not-a-token" });
    await expect(forged.users.get("alice")).rejects.toMatchObject({ status: 401, code: "invalid_token" });
  });

  it("poke_cooldown carries nextAllowedAt, rate_limited carries retryAfter", async () => {
    const { tokens } = await signIn();
    const client = createClient({ baseUrl: server.apiUrl, token: tokens.accessToken });
    expect((await client.users.poke("bob")).target_handle).toBe("bob");
    const cooldown = (await client.users.poke("bob").catch((e: unknown) => e)) as PlatformError;
    expect(cooldown).toMatchObject({ status: 429, code: "poke_cooldown" });
    expect(cooldown.nextAllowedAt).toBeGreaterThan(Date.now() / 1000 + 23 * 3600);

    await client.chat.post("first");
    // maxRetries 0: the SDK would otherwise wait Retry-After and post again (tests/sdk/retries.test.ts).
    const limited = (await client.chat.post("second", { maxRetries: 0 }).catch((e: unknown) => e)) as PlatformError;
    expect(limited).toMatchObject({ status: 429, code: "rate_limited" });
    expect(limited.retryAfter).toBeGreaterThanOrEqual(1);
  });

  it("iterates GET /users and GET /global-chat/messages with their cursors", async () => {
    const client = createClient({ baseUrl: server.apiUrl, tokenProvider: clientCredentials({ issuer: server.issuer, ...api }) });
    const all: string[] = [];
    for await (const user of client.users.list({ limit: 7 })) all.push(user.handle);
    const onePage: string[] = [];
    for (let cursor: string | undefined; ; ) {
      const { data } = await client.GET("/users", { params: { query: { limit: 100, ...(cursor ? { cursor } : {}) } } });
      onePage.push(...data.users.map((u) => u.handle));
      if (!data.next_cursor) break;
      cursor = data.next_cursor;
    }
    expect(all.length).toBeGreaterThan(7);
    expect(all).toEqual(onePage);

    const walked: ChatMessage[] = [];
    for await (const message of client.chat.messages({ limit: 10 })) {
      walked.push(message);
      if (walked.length === 35) break;
    }
    const newest = await client.GET("/global-chat/messages", { params: { query: { limit: 35 } } });
    expect(walked.map((m) => m.id)).toEqual(newest.data.messages.map((m) => m.id).reverse());
  });

  it("chat.since returns the messages after an id, oldest first", async () => {
    const reader = createClient({ baseUrl: server.apiUrl, tokenProvider: clientCredentials({ issuer: server.issuer, ...api }) });
    const since = (await reader.chat.latestId())!;
    expect(await reader.chat.since(since)).toEqual([]);
    const { tokens } = await signIn();
    const writer = createClient({ baseUrl: server.apiUrl, token: tokens.accessToken });
    await new Promise((r) => setTimeout(r, 2100)); // the chat's one-post-per-2-seconds rule (an earlier test posted)
    const posted = await writer.chat.post(`since test ${since}`);
    const found = await reader.chat.since(since, { limit: 1 });
    expect(found.map((m) => m.id)).toEqual([posted.id]);
  });
});

describe("login-client helpers", () => {
  it("sign-in: authorization URL with state and S256 challenge, callback state check, code exchange", async () => {
    const { url, pending, flow, tokens, client } = await signIn();
    expect(url.origin + url.pathname).toBe(`${server.issuer}/protocol/openid-connect/auth`);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get("state")).toBe(pending.state);
    expect(url.searchParams.get("redirect_uri")).toBe(REDIRECT);
    expect(tokens.idToken).toBeTruthy();
    expect(tokens.refreshToken).toBeTruthy();
    const me = await createClient({ baseUrl: server.apiUrl, token: tokens.accessToken }).me.get();
    expect(me.user.username).toBe("sdkuser");

    // A callback whose state is not the pending one is refused before any exchange.
    const forged = new URL(flow.callback);
    forged.searchParams.set("state", "someone-else");
    const mismatch = await client.finishSignIn(forged, pending).catch((e: unknown) => e);
    expect(mismatch).toBeInstanceOf(PlatformError);
    expect(mismatch).toMatchObject({ code: "client_error", message: expect.stringMatching(/^State mismatch: .*start the sign-in again/) });
    forged.searchParams.delete("state");
    await expect(client.finishSignIn(forged, pending)).rejects.toMatchObject({ code: "client_error", message: expect.stringMatching(/^State mismatch: .*no state/) });
    // An error callback is a PlatformError with the OAuth error as its code.
    const denied = new URL(REDIRECT);
    denied.searchParams.set("error", "access_denied");
    denied.searchParams.set("state", pending.state);
    denied.searchParams.set("iss", server.issuer);
    await expect(client.finishSignIn(denied, pending)).rejects.toMatchObject({ code: "access_denied" });
  });

  it("refresh rotates the refresh token (the old one is invalid_grant); logout ends the platform session", async () => {
    const { client, tokens, flow } = await signIn();
    const next = await client.refresh(tokens.refreshToken!);
    expect(next.accessToken).not.toBe(tokens.accessToken);
    expect(next.refreshToken).toBeTruthy();
    expect(next.refreshToken).not.toBe(tokens.refreshToken);
    // Reusing the old one is refused — and, as a replay, revokes the grant.
    // The token endpoint's X-Request-Id comes with its error, to find it in the app's request log.
    await expect(client.refresh(tokens.refreshToken!)).rejects.toMatchObject({ status: 400, code: "invalid_grant", requestId: expect.stringMatching(/^.{8,64}$/) });

    const again = await signIn();
    const logout = again.client.logoutUrl({ idTokenHint: again.tokens.idToken!, state: "bye" });
    expect(logout.origin + logout.pathname).toBe(`${server.issuer}/protocol/openid-connect/logout`);
    expect(logout.searchParams.get("client_id")).toBe(login.clientId);
    expect(logout.searchParams.get("post_logout_redirect_uri")).toBe(AFTER_LOGOUT);
    const done = await confirmLogout(server, again.flow.jar, logout.href);
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe(`${AFTER_LOGOUT}?state=bye`);
    // Signed out of the platform: the next sign-in in that browser shows the login form again.
    const { url } = await again.client.startSignIn();
    expect((await completeSignIn(server, url.href, { handle: "sdkuser", password: PASSWORD, redirectUri: REDIRECT, jar: again.flow.jar })).loginShown).toBe(true);
    void flow;
  });
});

describe("token providers", () => {
  it("refreshingTokens refreshes once, shortly before expiry, for concurrent callers, and hands over the rotated set", async () => {
    const { client: login, tokens } = await signIn();
    let clock = Date.now();
    const seen: string[] = [];
    const provider = refreshingTokens(login, tokens, { now: () => clock, onTokens: (t) => seen.push(t.refreshToken!) });
    const api = createClient({ baseUrl: server.apiUrl, tokenProvider: provider });
    expect(await provider()).toBe(tokens.accessToken);
    clock = tokens.expiresAt - 30_000; // inside the last minute
    const results = await Promise.all(Array.from({ length: 5 }, () => api.me.get()));
    expect(results.every((me) => me.user.username === "sdkuser")).toBe(true);
    expect(seen).toHaveLength(1);
    expect(seen[0]).not.toBe(tokens.refreshToken);
    expect(provider.current().accessToken).not.toBe(tokens.accessToken);
    // The refresh answer has an id_token of its own (byte-identical to the first only within the same second).
    expect(provider.current().idToken).toBeTruthy();
  });

  it("a 401 invalid_token makes createClient drop the provider's cached token", async () => {
    let invalidated = 0;
    const provider = Object.assign(async () => "not-a-valid-token", { invalidate: () => void invalidated++ });
    const client = createClient({ baseUrl: server.apiUrl, tokenProvider: provider });
    await expect(client.users.get("alice")).rejects.toMatchObject({ code: "invalid_token" });
    expect(invalidated).toBe(1);
  });
});

describe("device sign-in helper", () => {
  it("shows a user code, waits while the person confirms it, and returns their tokens", async () => {
    const client = await createLoginClient({ issuer: server.issuer, clientId: deviceApp.clientId });
    const device = await client.startDeviceSignIn();
    expect(device.verificationUri).toBe(`${server.issuer}/device`);
    expect(new URL(device.verificationUriComplete!).searchParams.get("user_code")).toBe(device.userCode);
    expect(device.expiresIn).toBeGreaterThan(0);
    const waiting = device.tokens();
    const person = await completeDeviceSignIn(server, { userCode: device.userCode, handle: "sdkuser", password: PASSWORD });
    expect(person.step).toBe("success");
    const tokens = await waiting; // polled through authorization_pending until the confirmation
    expect(tokens.scope?.split(" ")).toContain("svc:chat.read");
    expect((await createClient({ baseUrl: server.apiUrl, token: tokens.accessToken }).me.get()).user.username).toBe("sdkuser");
  });

  it("a person who cancels is PlatformError access_denied; an app without device sign-in cannot start one", async () => {
    const client = await createLoginClient({ issuer: server.issuer, clientId: deviceApp.clientId });
    const device = await client.startDeviceSignIn();
    const waiting = device.tokens().catch((e: unknown) => e);
    await completeDeviceSignIn(server, { userCode: device.userCode, handle: "sdkuser", password: PASSWORD, confirm: "cancel" });
    expect(await waiting).toMatchObject({ name: "PlatformError", code: "access_denied", status: 400 });

    const browserOnly = await createLoginClient({ issuer: server.issuer, clientId: login.clientId });
    await expect(browserOnly.startDeviceSignIn()).rejects.toBeInstanceOf(PlatformError);
  });
});
