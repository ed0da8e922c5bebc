import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server";
import { authorize, createTestApp, createTestUser, jarFetch, refreshTokens, signInAndGetTokens, type CookieJar } from "../helpers/oidc";

/**
 * SPEC Authentication step 7 (end_session_endpoint with client_id, post_logout_redirect_uri and
 * id_token_hint ends the platform session; the URI "must match a registered redirect URI
 * verbatim"), PRODUCT: logout returns to a registered URI: a redirect URI, or one of the optional
 * post-logout redirect URIs.
 */
let server: TestServer;
const REDIRECT = "http://localhost:9/callback";
const AFTER_LOGOUT = "http://localhost:9/signed-out";
const PASSWORD = "logout-test-password";
let clientId: string;

beforeAll(async () => {
  server = await startServer({ seed: false });
  await createTestUser(server.databaseUrl, { handle: "liam", password: PASSWORD });
  ({ clientId } = await createTestApp(server.databaseUrl, {
    type: "login",
    scopes: ["svc:chat.read"],
    redirectUris: [REDIRECT],
    postLogoutRedirectUris: [AFTER_LOGOUT],
    firstParty: true,
  }));
});

afterAll(async () => {
  await server?.stop();
});

const endSession = (params: Record<string, string>) => {
  const url = new URL(`${server.issuer}/protocol/openid-connect/logout`);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.href;
};

/** GET end_session → confirmation page (Next) → POST its form as the browser would. */
async function logout(jar: CookieJar, params: Record<string, string>, choice: "yes" | "app-only" = "yes") {
  const start = await jarFetch(jar, endSession(params));
  expect(start.status).toBe(303);
  const page = new URL(start.headers.get("location")!, server.url);
  expect(page.pathname).toBe("/interaction/logout");
  expect(page.searchParams.has("xsrf")).toBe(false); // the CSRF value travels in a cookie, not the URL
  const xsrfCookie = start.headers.getSetCookie().find((c) => c.startsWith("_logout_xsrf="))!;
  expect(xsrfCookie).toMatch(/path=\/interaction\/logout/i);
  expect(xsrfCookie).toMatch(/httponly/i);
  const xsrf = /^_logout_xsrf=([^;]+)/.exec(xsrfCookie)![1]!;
  const form = new URLSearchParams({ xsrf, ...(choice === "yes" ? { logout: "yes" } : {}) });
  return jarFetch(jar, `${server.issuer}/protocol/openid-connect/logout/confirm`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: server.url },
    body: form,
  });
}

describe("end session", () => {
  it("with client_id, a registered post_logout_redirect_uri and id_token_hint: lands there with state, session ended", async () => {
    const tokens = await signInAndGetTokens(server, { handle: "liam", password: PASSWORD, clientId, redirectUri: REDIRECT });
    const { jar } = tokens;
    // While signed in, a new authorization needs no login.
    expect((await authorize(server, { handle: "liam", password: "", clientId, redirectUri: REDIRECT, jar })).loginShown).toBe(false);

    const done = await logout(jar, {
      client_id: clientId,
      post_logout_redirect_uri: AFTER_LOGOUT,
      id_token_hint: tokens.id_token,
      state: "bye-123",
    });
    expect(done.status).toBe(303);
    const landing = new URL(done.headers.get("location")!);
    expect(landing.origin + landing.pathname).toBe(AFTER_LOGOUT);
    expect(landing.searchParams.get("state")).toBe("bye-123");

    // The platform session is gone: the next authorization shows the login page again.
    const again = await authorize(server, { handle: "liam", password: PASSWORD, clientId, redirectUri: REDIRECT, jar });
    expect(again.loginShown).toBe(true);
    expect(again.code).toBeTruthy();
    // And the app's refresh token from that session was revoked.
    const refreshed = await refreshTokens(server, clientId, tokens.refresh_token);
    expect(refreshed.body.error).toBe("invalid_grant");
  });

  it("without id_token_hint, client_id alone identifies the client", async () => {
    const { jar } = await signInAndGetTokens(server, { handle: "liam", password: PASSWORD, clientId, redirectUri: REDIRECT });
    const done = await logout(jar, { client_id: clientId, post_logout_redirect_uri: AFTER_LOGOUT });
    expect(new URL(done.headers.get("location")!).href).toBe(AFTER_LOGOUT);
  });

  it("a registered redirect URI that is not in the post-logout list is accepted (SPEC step 7)", async () => {
    const tokens = await signInAndGetTokens(server, { handle: "liam", password: PASSWORD, clientId, redirectUri: REDIRECT });
    const done = await logout(tokens.jar, { client_id: clientId, post_logout_redirect_uri: REDIRECT, id_token_hint: tokens.id_token, state: "s1" });
    expect(done.status).toBe(303);
    const landing = new URL(done.headers.get("location")!);
    expect(landing.origin + landing.pathname).toBe(REDIRECT);
    expect(landing.searchParams.get("state")).toBe("s1");

    // A client with no post-logout list at all: its redirect URIs are where logout may return.
    const bare = await createTestApp(server.databaseUrl, {
      type: "login",
      redirectUris: [REDIRECT, "http://localhost:9/second"],
      postLogoutRedirectUris: [],
      firstParty: true,
    });
    const bareTokens = await signInAndGetTokens(server, { handle: "liam", password: PASSWORD, clientId: bare.clientId, redirectUri: REDIRECT });
    const second = await logout(bareTokens.jar, { client_id: bare.clientId, post_logout_redirect_uri: "http://localhost:9/second" });
    expect(second.status).toBe(303);
    expect(second.headers.get("location")).toBe("http://localhost:9/second");
  });

  it("an unregistered post_logout_redirect_uri is refused with an error page", async () => {
    const tokens = await signInAndGetTokens(server, { handle: "liam", password: PASSWORD, clientId, redirectUri: REDIRECT });
    // Verbatim: neither list's near misses, nor another client's redirect URI.
    const other = "http://localhost:9/other-client";
    await createTestApp(server.databaseUrl, { type: "login", redirectUris: [other], firstParty: true });
    for (const uri of ["https://evil.example/", `${AFTER_LOGOUT}/`, `${REDIRECT}/`, `${REDIRECT}?x=1`, "http://localhost:9/", other]) {
      // A browser (Accept: text/html) gets the platform's error page; other callers get OAuth JSON.
      const res = await jarFetch(
        tokens.jar,
        endSession({ client_id: clientId, post_logout_redirect_uri: uri, id_token_hint: tokens.id_token }),
        { headers: { accept: "text/html,application/xhtml+xml" } },
      );
      expect(res.status, uri).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(res.headers.get("content-type")).toContain("text/html");
      expect(await res.text()).toContain("post_logout_redirect_uri not registered");
    }
  });

  it("an id_token_hint of another client does not match client_id", async () => {
    const other = await createTestApp(server.databaseUrl, { type: "login", redirectUris: [REDIRECT], firstParty: true });
    const tokens = await signInAndGetTokens(server, { handle: "liam", password: PASSWORD, clientId: other.clientId, redirectUri: REDIRECT });
    const res = await jarFetch(
      tokens.jar,
      endSession({ client_id: clientId, post_logout_redirect_uri: AFTER_LOGOUT, id_token_hint: tokens.id_token }),
    );
    expect(res.status).toBe(400);
  });

  it("without a post_logout_redirect_uri it lands on the platform's signed-out page", async () => {
    const { jar } = await signInAndGetTokens(server, { handle: "liam", password: PASSWORD, clientId, redirectUri: REDIRECT });
    const done = await logout(jar, { client_id: clientId });
    const success = await jarFetch(jar, new URL(done.headers.get("location")!, server.url).href);
    expect(success.status).toBe(303);
    expect(new URL(success.headers.get("location")!).pathname).toBe("/interaction/signed-out");
  });

  it("a forged confirmation (wrong xsrf) is refused", async () => {
    const { jar } = await signInAndGetTokens(server, { handle: "liam", password: PASSWORD, clientId, redirectUri: REDIRECT });
    await jarFetch(jar, endSession({ client_id: clientId, post_logout_redirect_uri: AFTER_LOGOUT }));
    const res = await jarFetch(jar, `${server.issuer}/protocol/openid-connect/logout/confirm`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ xsrf: "forged", logout: "yes" }),
    });
    expect(res.status).toBe(400);
    // Still signed in.
    expect((await authorize(server, { handle: "liam", password: "", clientId, redirectUri: REDIRECT, jar })).loginShown).toBe(false);
  });
});
