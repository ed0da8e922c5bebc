import { afterAll, beforeAll, expect, it } from "vitest";
import { findFreePort } from "../../lib/database/embedded";
import { startExample, type RunningExample } from "../helpers/example";
import { completeSignIn, confirmLogout, CookieJar, createTestApp, createTestUser, jarFetch } from "../helpers/oidc";
import { startServer, type TestServer } from "../helpers/server";

/**
 * examples/signin-web, run as its README says (two variables: PLATFORM_URL, CLIENT_ID) against a real
 * server, driven like a browser with one cookie jar: sign in with PKCE through the hosted login and
 * consent forms, see the profile and stats, refresh, and log out through end_session_endpoint.
 */
let server: TestServer;
let example: RunningExample;
let appUrl: string;
const PASSWORD = "signin-web-password";

beforeAll(async () => {
  server = await startServer({ seed: true });
  const port = await findFreePort();
  appUrl = `http://localhost:${port}`;
  const { clientId } = await createTestApp(server.databaseUrl, {
    type: "login",
    scopes: ["svc:stats.read"],
    redirectUris: [`${appUrl}/callback`],
    postLogoutRedirectUris: [`${appUrl}/`],
  });
  await createTestUser(server.databaseUrl, { handle: "webby", password: PASSWORD, displayName: "Webby Example" });
  example = startExample("signin-web", "src/server.ts", { PLATFORM_URL: server.url, CLIENT_ID: clientId, PORT: String(port) });
  await example.waitFor(/^signin-web listening on /);
});

afterAll(async () => {
  await example?.stop();
  await server?.stop();
});

async function html(jar: CookieJar, url: string) {
  const res = await jarFetch(jar, url);
  expect(res.status).toBe(200);
  return res.text();
}

it("signs in with PKCE, shows the profile and stats, refreshes, and logs out of the platform", async () => {
  const jar = new CookieJar();
  expect(await html(jar, `${appUrl}/`)).toContain("Sign in with the platform");

  // Sign in: the app sends the browser to the authorization endpoint with state and an S256 challenge.
  const start = await jarFetch(jar, `${appUrl}/login`);
  expect(start.status).toBe(302);
  const authorize = new URL(start.headers.get("location")!);
  expect(authorize.href.startsWith(`${server.issuer}/protocol/openid-connect/auth?`)).toBe(true);
  expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
  expect(authorize.searchParams.get("state")).toBeTruthy();
  const flow = await completeSignIn(server, authorize.href, { handle: "webby", password: PASSWORD, redirectUri: `${appUrl}/callback`, jar });
  expect(flow.loginShown).toBe(true);
  expect(flow.consentShown).toBe(true);

  // A callback with someone else's state is refused; the real one signs in.
  const forged = new URL(flow.callback);
  forged.searchParams.set("state", "not-the-state");
  const otherJar = new CookieJar();
  await html(otherJar, `${appUrl}/`);
  expect((await jarFetch(otherJar, forged.href)).status).toBe(400);
  const back = await jarFetch(jar, flow.callback.href);
  expect(back.status).toBe(303);
  expect(back.headers.get("location")).toBe("/");

  const profile = await html(jar, `${appUrl}/`);
  expect(profile).toContain("Hello, Webby Example");
  expect(profile).toContain("Signed in as <strong>@webby</strong>");
  expect(profile).toContain("Handle: webby"); // GET /me/stats with svc:stats.read

  // Refresh: new tokens (rotated), the profile still loads with them.
  const expiry = /Access token expires at ([^<]+)/.exec(profile)![1];
  await new Promise((r) => setTimeout(r, 1100)); // a later second, so the new token's expiry differs
  const refreshed = await jarFetch(jar, `${appUrl}/refresh`, { method: "POST" });
  expect(refreshed.status).toBe(303);
  const after = await html(jar, `${appUrl}/`);
  expect(after).toContain("Tokens refreshed.");
  expect(after).toContain("Hello, Webby Example");
  expect(/Access token expires at ([^<]+)/.exec(after)![1]).not.toBe(expiry);

  // Logout goes through end_session_endpoint with the id_token_hint and comes back to the app.
  const logout = await jarFetch(jar, `${appUrl}/logout`, { method: "POST" });
  expect(logout.status).toBe(303);
  const endSession = new URL(logout.headers.get("location")!);
  expect(endSession.origin + endSession.pathname).toBe(`${server.issuer}/protocol/openid-connect/logout`);
  expect(endSession.searchParams.get("id_token_hint")).toBeTruthy();
  expect(endSession.searchParams.get("post_logout_redirect_uri")).toBe(`${appUrl}/`);
  const landed = await confirmLogout(server, jar, endSession.href);
  expect(landed.headers.get("location")).toBe(`${appUrl}/`);
  expect(await html(jar, `${appUrl}/`)).toContain("Sign in with the platform");

  // The platform session ended too: signing in again shows the login form.
  const again = await jarFetch(jar, `${appUrl}/login`);
  const second = await completeSignIn(server, again.headers.get("location")!, { handle: "webby", password: PASSWORD, redirectUri: `${appUrl}/callback`, jar });
  expect(second.loginShown).toBe(true);
  expect(example.lines.join("\n")).not.toMatch(/eyJ/); // no token in its log
});
