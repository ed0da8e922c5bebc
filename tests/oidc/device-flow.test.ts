import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../helpers/db";
import { until } from "../helpers/poll";
import { startServer, type TestServer } from "../helpers/server";
import {
  completeDeviceSignIn,
  createTestApp,
  createTestUser,
  jarFetch,
  CookieJar,
  pollDeviceToken,
  refreshTokens,
  requestDeviceAuthorization,
  setAppStatus,
  startDeviceSignIn,
} from "../helpers/oidc";

/**
 * Issue 17, device authorization grant (RFC 8628): discovery, the device endpoint, polling answers
 * (authorization_pending, slow_down, expired_token, access_denied), the person's side through the
 * verification page, login and consent (plain form posts, as a browser without JavaScript), tokens
 * that work on the API, clients without the flag, suspended apps, and the wrong-code throttle.
 */
let server: TestServer;
const PASSWORD = "device sign-in pass";

beforeAll(async () => {
  server = await startServer({ seed: false });
  await createTestUser(server.databaseUrl, { handle: "dana", password: PASSWORD, displayName: "Dana Device" });
});

afterAll(async () => {
  await server?.stop();
});

async function deviceApp(options: { scopes?: string[]; deviceFlow?: boolean } = {}) {
  return createTestApp(server.databaseUrl, {
    type: "login",
    scopes: options.scopes ?? ["svc:stats.read"],
    name: "Living-room TV",
    deviceFlow: options.deviceFlow ?? true,
  });
}

/**
 * Moves a stored device code's clock to one second past its expiry, as if `expires_in` had gone
 * by: the payload's `exp` (what oidc-provider checks) and the row's `expiresAt` (what the adapter
 * checks) by the same amount.
 */
async function expireDeviceCode(userCode: string): Promise<void> {
  await query(
    server.databaseUrl,
    `UPDATE "OidcModel" SET
       "expiresAt" = "expiresAt" - make_interval(secs => (payload->>'exp')::int - extract(epoch FROM now())::int + 1),
       payload = jsonb_set(payload, '{exp}', to_jsonb(extract(epoch FROM now())::int - 1))
     WHERE kind = 'DeviceCode' AND "userCode" = $1`,
    [userCode.replace(/-/g, "")],
  );
}

describe("device authorization grant", () => {
  it("is in discovery at Keycloak's path", async () => {
    const doc = (await (await fetch(`${server.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(doc.device_authorization_endpoint).toBe(`${server.issuer}/protocol/openid-connect/auth/device`);
    expect(doc.grant_types_supported).toContain("urn:ietf:params:oauth:grant-type:device_code");
  });

  it("answers the device authorization request per RFC 8628 §3.2, then authorization_pending", async () => {
    const app = await deviceApp();
    const auth = await startDeviceSignIn(server, app.clientId, "openid profile");
    expect(auth).toMatchObject({
      device_code: expect.any(String),
      verification_uri: `${server.issuer}/device`,
      expires_in: 600,
      interval: 5,
    });
    expect(auth.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(auth.verification_uri_complete).toBe(`${server.issuer}/device?user_code=${auth.user_code}`);
    const poll = await pollDeviceToken(server, app.clientId, auth.device_code);
    expect(poll.status).toBe(400);
    expect(poll.body).toMatchObject({ error: "authorization_pending" });
  });

  it("answers slow_down to polling faster than the interval, and pending again after it", async () => {
    const app = await deviceApp();
    const auth = await startDeviceSignIn(server, app.clientId);
    expect((await pollDeviceToken(server, app.clientId, auth.device_code)).body.error).toBe("authorization_pending");
    const fast = await pollDeviceToken(server, app.clientId, auth.device_code);
    expect(fast.status).toBe(400);
    expect(fast.body).toMatchObject({ error: "slow_down", error_description: expect.any(String) });
    // Past the 5 s interval (RFC 8628 3.5), timed from the refused poll's answer: a rule the server
    // keeps with the device code in PostgreSQL, not a cache, so this wait cannot race a lifetime.
    await new Promise((resolve) => setTimeout(resolve, 5_100));
    expect((await pollDeviceToken(server, app.clientId, auth.device_code)).body.error).toBe("authorization_pending");
  }, 20_000);

  it("signs the person in: code page, login, consent; polling returns tokens that work on the API", async () => {
    const app = await deviceApp({ scopes: ["svc:stats.read"] });
    const auth = await startDeviceSignIn(server, app.clientId, "openid profile");
    const person = await completeDeviceSignIn(server, { userCode: auth.user_code, handle: "dana", password: PASSWORD });
    expect(person).toMatchObject({ step: "success", loginShown: true, consentShown: true });
    expect(person.page.searchParams.get("client_id")).toBe(app.clientId);

    const { status, body } = await pollDeviceToken(server, app.clientId, auth.device_code);
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({
      token_type: "Bearer",
      expires_in: 3600,
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      id_token: expect.any(String),
    });
    // Same token as the browser flow: user-delegated JWT for the API, svc scopes attached to openid.
    const claims = decodeJwt(body.access_token as string);
    expect(claims.client_id).toBe(app.clientId);
    expect(claims.sub).toEqual(expect.any(String));
    expect(String(body.scope).split(" ").sort()).toEqual(["openid", "profile", "svc:stats.read"]);
    const me = await fetch(`${server.url}/api/v1/me`, { headers: { authorization: `Bearer ${body.access_token as string}` } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { user: { username: string } }).user.username).toBe("dana");

    // The refresh token rotates as in the browser flow; the device code is spent (a replay is
    // invalid_grant, and oidc-provider revokes the grant, as for a replayed authorization code).
    const refreshed = await refreshTokens(server, app.clientId, body.refresh_token as string);
    expect(refreshed.status).toBe(200);
    expect((await pollDeviceToken(server, app.clientId, auth.device_code)).body.error).toBe("invalid_grant");
  });

  it("prefilled or typed, the code page round trip keeps the platform session for a second device", async () => {
    const app = await deviceApp();
    const first = await startDeviceSignIn(server, app.clientId);
    const jar = new CookieJar();
    await completeDeviceSignIn(server, { userCode: first.user_code, handle: "dana", password: PASSWORD, jar });
    const second = await startDeviceSignIn(server, app.clientId);
    // Typed in lower case without the dash: normalized like oidc-provider does.
    const again = await completeDeviceSignIn(server, {
      userCode: second.user_code.replace("-", "").toLowerCase(),
      handle: "dana",
      password: PASSWORD,
      jar,
      prefilled: false,
    });
    // Signed in already and consent remembered: straight to success.
    expect(again).toMatchObject({ step: "success", loginShown: false, consentShown: false });
    expect((await pollDeviceToken(server, app.clientId, second.device_code)).status).toBe(200);
  });

  it("\"Not you?\" on the consent page starts the device sign-in again at its code, for another account", async () => {
    const app = await deviceApp({ scopes: ["svc:chat.read"] });
    const auth = await startDeviceSignIn(server, app.clientId);
    const jar = new CookieJar();
    const origin = new URL(server.url).origin;
    const post = (url: string, fields: Record<string, string>) =>
      jarFetch(jar, url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin },
        body: new URLSearchParams(fields),
      });
    const follow = async (res: Response) => jarFetch(jar, new URL(res.headers.get("location")!, server.url).href);
    await jarFetch(jar, auth.verification_uri_complete);
    await post(`${server.issuer}/device`, { xsrf: jar.get("_device_xsrf")!, user_code: auth.user_code });
    let res = await post(`${server.issuer}/device`, { xsrf: jar.get("_device_xsrf")!, user_code: auth.user_code, confirm: "yes" });
    const login = new URL(res.headers.get("location")!, server.url);
    res = await post(`${login.href}/login`, { username: "dana", password: PASSWORD });
    res = await follow(res); // the device resume: consent is next
    const consent = new URL(res.headers.get("location")!, server.url);
    expect(consent.pathname).toMatch(/^\/interaction\//);
    res = await post(`${consent.href}/switch`, {});
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`${server.issuer}/device?user_code=${auth.user_code.replace("-", "")}`);
    // Signed out: the same code, entered again, asks who is there.
    const again = await completeDeviceSignIn(server, { userCode: auth.user_code, handle: "dana", password: PASSWORD, jar });
    expect(again).toMatchObject({ step: "success", loginShown: true });
    expect((await pollDeviceToken(server, app.clientId, auth.device_code)).status).toBe(200);
  });

  it("the database alone never yields a usable device code (stored as a digest; row references only on the device page)", async () => {
    const app = await deviceApp();
    const auth = await startDeviceSignIn(server, app.clientId);
    await completeDeviceSignIn(server, { userCode: auth.user_code, handle: "dana", password: PASSWORD });
    const [row] = await query<{ id: string; payload: Record<string, unknown> }>(
      server.databaseUrl,
      `SELECT id, payload FROM "OidcModel" WHERE kind = 'DeviceCode' AND "userCode" = $1`,
      [auth.user_code.replace("-", "")],
    );
    expect(row!.id).not.toContain(auth.device_code);
    expect(JSON.stringify(row!.payload)).not.toContain(auth.device_code);
    for (const forged of [row!.id, `devref.${row!.id}`]) {
      expect((await pollDeviceToken(server, app.clientId, forged)).body.error).toBe("invalid_grant");
    }
    expect((await pollDeviceToken(server, app.clientId, auth.device_code)).status).toBe(200);
  });

  it("access_denied when the person cancels at the confirmation", async () => {
    const app = await deviceApp();
    const auth = await startDeviceSignIn(server, app.clientId);
    const person = await completeDeviceSignIn(server, { userCode: auth.user_code, handle: "dana", password: PASSWORD, confirm: "cancel" });
    expect(person.step).toBe("cancelled");
    const { status, body } = await pollDeviceToken(server, app.clientId, auth.device_code);
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: "access_denied" });
  });

  it("access_denied when the person denies consent", async () => {
    const app = await deviceApp({ scopes: ["svc:chat.read"] });
    const auth = await startDeviceSignIn(server, app.clientId);
    const person = await completeDeviceSignIn(server, { userCode: auth.user_code, handle: "dana", password: PASSWORD, consent: "deny" });
    expect(person).toMatchObject({ step: "cancelled", consentShown: true });
    expect((await pollDeviceToken(server, app.clientId, auth.device_code)).body).toMatchObject({ error: "access_denied" });
  });

  it("expired_token once the device code has expired; the code page says so", async () => {
    const app = await deviceApp();
    const auth = await startDeviceSignIn(server, app.clientId);
    await expireDeviceCode(auth.user_code);
    const { status, body } = await pollDeviceToken(server, app.clientId, auth.device_code);
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: "expired_token" });
    const person = await completeDeviceSignIn(server, { userCode: auth.user_code, handle: "dana", password: PASSWORD });
    expect(person.step).toBe("input");
    expect(person.page.searchParams.get("error")).toBe("expired");
  });

  it("unauthorized_client for a login client without device sign-in, and for an API client", async () => {
    const app = await deviceApp({ deviceFlow: false });
    const { status, body } = await requestDeviceAuthorization(server, { client_id: app.clientId, scope: "openid" });
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: "unauthorized_client" });
    const api = await createTestApp(server.databaseUrl, { type: "api", scopes: ["svc:chat.read"] });
    const apiRes = await requestDeviceAuthorization(server, { client_id: api.clientId, client_secret: api.clientSecret, scope: "openid" });
    expect(apiRes.status).toBe(400);
    expect(apiRes.body).toMatchObject({ error: "unauthorized_client" });
  });

  it("only the approved configuration counts: a request to turn it on that waits for review does not", async () => {
    const app = await deviceApp({ deviceFlow: false });
    await query(
      server.databaseUrl,
      `UPDATE "Application" SET "pendingChange" = $2 WHERE "clientId" = $1`,
      [app.clientId, JSON.stringify({ deviceFlow: true, requestedAt: new Date().toISOString(), requestedBy: "testdev" })],
    );
    expect((await requestDeviceAuthorization(server, { client_id: app.clientId, scope: "openid" })).body).toMatchObject({
      error: "unauthorized_client",
    });
  });

  it("a suspended app's device codes stop working: polling and the code page both refuse", async () => {
    const app = await deviceApp();
    const auth = await startDeviceSignIn(server, app.clientId);
    await setAppStatus(server.databaseUrl, app.clientId, "suspended");
    // A bare UPDATE (no change-channel announcement): the client cache's 5 s lifetime bounds how
    // long the app still looks approved. Polled on the device authorization endpoint (polling the
    // token endpoint faster than the interval would be slow_down), with slack for a busy machine.
    await until(
      async () => expect((await requestDeviceAuthorization(server, { client_id: app.clientId })).body).toMatchObject({ error: "invalid_client" }),
      { withinMs: 8_000, intervalMs: 250 },
    );
    const { status, body } = await pollDeviceToken(server, app.clientId, auth.device_code);
    expect(status).toBe(401);
    expect(body).toMatchObject({ error: "invalid_client" });
    const person = await completeDeviceSignIn(server, { userCode: auth.user_code, handle: "dana", password: PASSWORD });
    expect(person.step).toBe("input");
    expect(person.page.searchParams.get("error")).toBe("app_unavailable");
    expect((await requestDeviceAuthorization(server, { client_id: app.clientId })).body).toMatchObject({ error: "invalid_client" });
  }, 20_000);

  it("hostile input on the device endpoints is answered, never a 500", async () => {
    const app = await deviceApp();
    const weird = ["\u0000", "x".repeat(5000), "<script>alert(1)</script>", "BCDF-GHJK\ud800", "%00", "  "];
    for (const value of weird) {
      const auth = await requestDeviceAuthorization(server, { client_id: value, scope: value });
      expect([400, 401], value.slice(0, 20)).toContain(auth.status);
      const poll = await pollDeviceToken(server, app.clientId, value);
      expect(poll.status, value.slice(0, 20)).toBe(400);
      const page = await fetch(`${server.issuer}/device?${new URLSearchParams({ user_code: value }).toString()}`, { redirect: "manual" });
      expect(page.status, value.slice(0, 20)).toBe(303);
      expect(page.headers.get("location")).not.toContain("<script>");
      const jar = new CookieJar();
      await jarFetch(jar, `${server.issuer}/device`);
      const form = await jarFetch(jar, `${server.issuer}/device`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ xsrf: jar.get("_device_xsrf")!, user_code: value }),
      });
      expect(form.status, value.slice(0, 20)).toBe(303);
    }
    // Duplicate parameters are refused in OAuth form.
    const dup = await fetch(`${server.issuer}/protocol/openid-connect/auth/device`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `client_id=${app.clientId}&client_id=${app.clientId}`,
    });
    expect(dup.status).toBe(400);
    expect(((await dup.json()) as { error: string }).error).toBe("invalid_request");
  });

  it("refuses a code form without the page's CSRF value, and throttles wrong codes per IP", async () => {
    // Other tests of this file typed wrong codes from this address too: start from a clean count.
    await query(server.databaseUrl, `DELETE FROM "RateLimit" WHERE key LIKE 'device:ip:%'`);
    const jar = new CookieJar();
    // A form from elsewhere: no xsrf from this browser's page.
    const forged = await jarFetch(jar, `${server.issuer}/device`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ xsrf: "guess", user_code: "BCDF-GHJK" }),
    });
    expect(forged.status).toBe(303);
    expect(forged.headers.get("location")).toBe(`${server.issuer}/device`);

    const page = await jarFetch(jar, `${server.issuer}/device`);
    expect(page.status).toBe(303);
    expect(new URL(page.headers.get("location")!).pathname).toBe("/interaction/device");
    const errors: (string | null)[] = [];
    for (let i = 0; i < 11; i++) {
      const res = await jarFetch(jar, `${server.issuer}/device`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ xsrf: jar.get("_device_xsrf")!, user_code: "BCDF-GHJK" }),
      });
      errors.push(new URL(res.headers.get("location")!).searchParams.get("error"));
    }
    expect(errors.slice(0, 10).every((e) => e === "not_found")).toBe(true);
    expect(errors[10]).toBe("too_many_attempts");
    // A real code from that address is refused too until the window ends.
    const app = await deviceApp();
    const auth = await startDeviceSignIn(server, app.clientId);
    const person = await completeDeviceSignIn(server, { userCode: auth.user_code, handle: "dana", password: PASSWORD });
    expect(person.page.searchParams.get("error")).toBe("too_many_attempts");
    expect(Number(person.page.searchParams.get("retry_at"))).toBeGreaterThan(Date.now() / 1000);
  });
});
