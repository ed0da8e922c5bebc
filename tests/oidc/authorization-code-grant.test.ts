import { decodeJwt, decodeProtectedHeader } from "jose";
import * as client from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../helpers/db";
import { startServer, type TestServer } from "../helpers/server";
import {
  authorize,
  CookieJar,
  createTestApp,
  createTestUser,
  jarFetch,
  postInteraction,
  signInAndGetTokens,
} from "../helpers/oidc";

/**
 * SPEC Authentication "Login client: authorization code with PKCE" (steps 1–5), PRODUCT "Sign-in
 * service" (automatic svc scopes, consent remembered, RFC 9207 iss, no account enumeration,
 * throttled failed logins, disabled users), with openid-client v6 as the relying party.
 */
let server: TestServer;
const REDIRECT = "http://localhost:9/callback";
const PASSWORD = "correct horse battery";
let user: { id: number; handle: string };

beforeAll(async () => {
  server = await startServer({ seed: false });
  user = await createTestUser(server.databaseUrl, { handle: "lena", password: PASSWORD, displayName: "Lena Example" });
});

afterAll(async () => {
  await server?.stop();
});

async function rpConfig(clientId: string) {
  return client.discovery(new URL(server.issuer), clientId, { redirect_uris: [REDIRECT] }, client.None(), {
    execute: [client.allowInsecureRequests],
  });
}

describe("authorization code + PKCE with openid-client", () => {
  it("signs in, consents and returns all five token response fields, svc scopes attached to openid", async () => {
    const app = await createTestApp(server.databaseUrl, {
      type: "login",
      scopes: ["svc:chat.read", "svc:stats.read"],
      redirectUris: [REDIRECT],
      name: "Chat Viewer",
    });
    const config = await rpConfig(app.clientId);
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: "openid",
      state,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
    });

    // Drive the hosted pages by posting their forms (the pages themselves are Next; see e2e/hosted-pages.spec.ts).
    const jar = new CookieJar();
    let res = await jarFetch(jar, url.href);
    expect(res.status).toBe(303);
    const loginPage = new URL(res.headers.get("location")!, server.url);
    expect(loginPage.pathname).toMatch(/^\/interaction\/[A-Za-z0-9_-]+$/);
    const interactionCookie = res.headers.getSetCookie().find((c) => c.startsWith("_interaction="))!;
    expect(interactionCookie).toMatch(/httponly/i);
    expect(interactionCookie).toMatch(/samesite=lax/i);

    res = await postInteraction(server, jar, loginPage.href, "login", { username: "lena", password: PASSWORD });
    expect(res.status).toBe(303);
    res = await jarFetch(jar, new URL(res.headers.get("location")!, server.url).href);
    const sessionCookie = res.headers.getSetCookie().find((c) => c.startsWith("_session="))!;
    expect(sessionCookie).toMatch(/httponly/i);
    expect(sessionCookie).toMatch(/samesite=lax/i);
    expect(sessionCookie).not.toMatch(/secure/i); // http APP_URL
    const consentPage = new URL(res.headers.get("location")!, server.url);
    expect(consentPage.pathname).toMatch(/^\/interaction\//);
    expect(consentPage.pathname).not.toBe(loginPage.pathname);
    res = await postInteraction(server, jar, consentPage.href, "consent");
    res = await jarFetch(jar, new URL(res.headers.get("location")!, server.url).href);
    expect(res.status).toBe(303);
    const callback = new URL(res.headers.get("location")!);
    expect(callback.origin + callback.pathname).toBe(REDIRECT);
    expect(callback.searchParams.get("state")).toBe(state);
    expect(callback.searchParams.get("iss")).toBe(server.issuer); // RFC 9207

    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    for (const field of ["access_token", "expires_in", "refresh_token", "scope", "id_token"]) {
      expect(tokens, field).toHaveProperty(field);
    }
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope!.split(" ").sort()).toEqual(["openid", "svc:chat.read", "svc:stats.read"]);

    const claims = tokens.claims()!;
    expect(claims.sub).toBe(String(user.id));
    expect(claims.aud).toBe(app.clientId);
    expect(decodeProtectedHeader(tokens.id_token!).alg).toBe("RS256");

    const at = decodeJwt(tokens.access_token);
    expect(decodeProtectedHeader(tokens.access_token).typ).toBe("at+jwt");
    expect(at).toMatchObject({ sub: String(user.id), client_id: app.clientId, aud: server.apiUrl, iss: server.issuer });
    expect(String(at.scope).split(" ").sort()).toEqual(["openid", "svc:chat.read", "svc:stats.read"]);

    // userinfo answers for the platform's access tokens.
    const info = await client.fetchUserInfo(config, tokens.access_token, String(user.id));
    expect(info.sub).toBe(String(user.id));
  });

  it("profile scope: ID token and userinfo carry name and preferred_username", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "login", scopes: [], redirectUris: [REDIRECT] });
    const tokens = await signInAndGetTokens(server, {
      handle: "lena",
      password: PASSWORD,
      clientId: app.clientId,
      redirectUri: REDIRECT,
      scope: "openid profile",
    });
    expect(tokens.scope.split(" ").sort()).toEqual(["openid", "profile"]);
    expect(decodeJwt(tokens.id_token)).toMatchObject({ preferred_username: "lena", name: "Lena Example" });
    const res = await fetch(`${server.issuer}/protocol/openid-connect/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ sub: String(user.id), preferred_username: "lena", name: "Lena Example" });
    const bad = await fetch(`${server.issuer}/protocol/openid-connect/userinfo`, { headers: { authorization: "Bearer nope" } });
    expect(bad.status).toBe(401);
    expect(bad.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("a refresh token comes without asking for offline_access; requesting unregistered svc scopes fails", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "login", scopes: ["svc:chat.read"], redirectUris: [REDIRECT] });
    const tokens = await signInAndGetTokens(server, { handle: "lena", password: PASSWORD, clientId: app.clientId, redirectUri: REDIRECT });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    expect(tokens.scope.split(" ").sort()).toEqual(["openid", "svc:chat.read"]);

    const flow = await authorize(server, {
      handle: "lena",
      password: PASSWORD,
      clientId: app.clientId,
      redirectUri: REDIRECT,
      scope: "openid svc:pokes.write",
    });
    expect(flow.code).toBeNull();
    expect(flow.callback.searchParams.get("error")).toBe("invalid_scope");
  });

  it("consent is remembered per user and client; a first-party client never asks", async () => {
    const third = await createTestApp(server.databaseUrl, { type: "login", scopes: ["svc:chat.read"], redirectUris: [REDIRECT] });
    const first = await authorize(server, { handle: "lena", password: PASSWORD, clientId: third.clientId, redirectUri: REDIRECT });
    expect(first.consentShown).toBe(true);
    expect(first.code).toBeTruthy();
    // A new browser (no platform session): login again, but no consent page.
    const second = await authorize(server, { handle: "lena", password: PASSWORD, clientId: third.clientId, redirectUri: REDIRECT });
    expect(second.loginShown).toBe(true);
    expect(second.consentShown).toBe(false);
    expect(second.code).toBeTruthy();
    const rows = await query<{ scopes: string[] }>(server.databaseUrl, `SELECT scopes FROM "Consent" WHERE "userId" = $1 AND "clientId" = $2`, [
      user.id,
      third.clientId,
    ]);
    expect(rows[0]!.scopes.sort()).toEqual(["openid", "svc:chat.read"]);

    const portal = await createTestApp(server.databaseUrl, { type: "login", scopes: [], redirectUris: [REDIRECT], firstParty: true });
    const flow = await authorize(server, { handle: "lena", password: PASSWORD, clientId: portal.clientId, redirectUri: REDIRECT });
    expect(flow.consentShown).toBe(false);
    expect(flow.code).toBeTruthy();
  });

  it("the platform session is reused: a second app signs in without the login page", async () => {
    const a = await createTestApp(server.databaseUrl, { type: "login", redirectUris: [REDIRECT], firstParty: true });
    const b = await createTestApp(server.databaseUrl, { type: "login", redirectUris: [REDIRECT], firstParty: true });
    const first = await authorize(server, { handle: "lena", password: PASSWORD, clientId: a.clientId, redirectUri: REDIRECT });
    const second = await authorize(server, { handle: "lena", password: "", clientId: b.clientId, redirectUri: REDIRECT, jar: first.jar });
    expect(second.loginShown).toBe(false);
    expect(second.code).toBeTruthy();
  });

  it("Deny on the consent page returns access_denied to the client, with state", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "login", scopes: ["svc:chat.read"], redirectUris: [REDIRECT] });
    const flow = await authorize(server, {
      handle: "lena",
      password: PASSWORD,
      clientId: app.clientId,
      redirectUri: REDIRECT,
      consent: "deny",
    });
    expect(flow.code).toBeNull();
    expect(flow.callback.searchParams.get("error")).toBe("access_denied");
    expect(flow.callback.searchParams.get("state")).toBe(flow.state);
  });
});

describe("hosted login form", () => {
  async function startLogin(clientId: string) {
    const jar = new CookieJar();
    const auth = new URL(`${server.issuer}/protocol/openid-connect/auth`);
    auth.search = new URLSearchParams({
      client_id: clientId,
      response_type: "code",
      redirect_uri: REDIRECT,
      scope: "openid",
      state: "s",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
    }).toString();
    const res = await jarFetch(jar, auth.href);
    return { jar, page: new URL(res.headers.get("location")!, server.url).href };
  }

  const errorOf = (res: Response) => new URL(res.headers.get("location")!, server.url).searchParams.get("error");

  it("a wrong password and an unknown user get the same generic answer (303 back to the page)", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "login", redirectUris: [REDIRECT] });
    const { jar, page } = await startLogin(app.clientId);
    const wrong = await postInteraction(server, jar, page, "login", { username: "lena", password: "nope" });
    expect(wrong.status).toBe(303);
    expect(new URL(wrong.headers.get("location")!, server.url).pathname).toBe(new URL(page).pathname);
    expect(errorOf(wrong)).toBe("invalid_credentials");
    const unknown = await postInteraction(server, jar, page, "login", { username: "nobody-here", password: "nope" });
    expect(errorOf(unknown)).toBe("invalid_credentials");
    // Handles are case-insensitive; the right password still works after failures.
    const ok = await postInteraction(server, jar, page, "login", { username: "LENA", password: PASSWORD });
    expect(ok.headers.get("location")).toContain("/protocol/openid-connect/auth/");
  });

  it("a disabled user cannot sign in (told only after the right password)", async () => {
    await createTestUser(server.databaseUrl, { handle: "dora", password: PASSWORD, disabled: true });
    const app = await createTestApp(server.databaseUrl, { type: "login", redirectUris: [REDIRECT] });
    const { jar, page } = await startLogin(app.clientId);
    expect(errorOf(await postInteraction(server, jar, page, "login", { username: "dora", password: "wrong" }))).toBe("invalid_credentials");
    expect(errorOf(await postInteraction(server, jar, page, "login", { username: "dora", password: PASSWORD }))).toBe("account_disabled");
  });

  it("failed logins are throttled per account and address: after 5 failures even the right password waits", async () => {
    await createTestUser(server.databaseUrl, { handle: "tess", password: PASSWORD });
    const app = await createTestApp(server.databaseUrl, { type: "login", redirectUris: [REDIRECT] });
    const { jar, page } = await startLogin(app.clientId);
    for (let i = 0; i < 5; i++) {
      expect(errorOf(await postInteraction(server, jar, page, "login", { username: "tess", password: `wrong-${i}` }))).toBe(
        "invalid_credentials",
      );
    }
    expect(errorOf(await postInteraction(server, jar, page, "login", { username: "tess", password: PASSWORD }))).toBe("too_many_attempts");
    const rows = await query<{ key: string; count: number }>(server.databaseUrl, `SELECT key, count FROM "RateLimit" ORDER BY key`);
    // Counted per (account, address), per account and per address; the refused attempt is not counted.
    expect(rows).toEqual(expect.arrayContaining([{ key: "login:account:tess", count: 5 }]));
    expect(rows.find((r) => r.key.startsWith("login:pair:") && r.key.endsWith("|tess"))!.count).toBe(5);
    expect(rows.find((r) => r.key.startsWith("login:ip:"))!.count).toBeGreaterThanOrEqual(5);
    // Another account from the same address is not locked by tess's failures (per-IP limit is 30).
    const other = await postInteraction(server, jar, page, "login", { username: "lena", password: PASSWORD });
    expect(other.headers.get("location")).toContain("/protocol/openid-connect/auth/");
  });

  it("CSRF: a form post from another origin, or with no origin at all, is refused", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "login", redirectUris: [REDIRECT] });
    const { jar, page } = await startLogin(app.clientId);
    const target = `${page}/login`;
    const body = new URLSearchParams({ username: "lena", password: PASSWORD });
    const variants: Record<string, string>[] = [{ origin: "https://evil.example" }, {}, { origin: "null" }, { referer: "https://evil.example/x" }];
    for (const headers of variants) {
      const res = await jarFetch(jar, target, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        body,
      });
      expect(res.status).toBe(403);
      expect(res.headers.get("content-type")).toContain("text/html");
    }
  });

  it("a post without the interaction cookie, or to a finished interaction, is an expired-request page", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "login", redirectUris: [REDIRECT] });
    const { jar, page } = await startLogin(app.clientId);
    const noCookie = await postInteraction(server, new CookieJar(), page, "login", { username: "lena", password: PASSWORD });
    expect(noCookie.status).toBe(400);
    expect(await noCookie.text()).toContain("expired");
    const ok = await postInteraction(server, jar, page, "login", { username: "lena", password: PASSWORD });
    expect(ok.status).toBe(303);
    await jarFetch(jar, new URL(ok.headers.get("location")!, server.url).href); // resume consumes it
    const again = await postInteraction(server, jar, page, "login", { username: "lena", password: PASSWORD });
    expect(again.status).toBe(400);
  });

  it("a huge form body is refused", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "login", redirectUris: [REDIRECT] });
    const { jar, page } = await startLogin(app.clientId);
    const res = await postInteraction(server, jar, page, "login", { username: "lena", password: "x".repeat(20_000) });
    expect(res.status).toBe(413);
  });

  it("never logs passwords", () => {
    expect(server.logs.join("\n")).not.toContain(PASSWORD);
  });
});
