import { createHash } from "node:crypto";
import * as client from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../helpers/db";
import { pointAppAt, startServer, type TestServer } from "../helpers/server";
import { createTestApp, createTestUser, refreshTokens, signInAndGetTokens, tokenRequest } from "../helpers/oidc";

/**
 * SPEC States "Refresh token" and "Access token", Authentication step 6, Errors (refresh →
 * invalid_grant); PRODUCT: rotation with reuse revoking the grant, CORS for single-page apps. The
 * server runs with ACCESS_TOKEN_TTL=8 (long enough for a loaded CI machine to verify it first) to see an access token expire.
 */
let server: TestServer;
const REDIRECT = "http://localhost:5173/callback";
const SPA_ORIGIN = "http://localhost:5173";
const PASSWORD = "refresh-test-password";
let clientId: string;
let verifyAccessToken: typeof import("../../lib/oidc/verify").verifyAccessToken;
let closeDb: () => Promise<void>;

beforeAll(async () => {
  server = await startServer({ seed: false, env: { ACCESS_TOKEN_TTL: "8", REFRESH_TOKEN_TTL: "600" } });
  await createTestUser(server.databaseUrl, { handle: "rhea", password: PASSWORD });
  ({ clientId } = await createTestApp(server.databaseUrl, {
    type: "login",
    scopes: ["svc:chat.read", "svc:notifications.read"],
    redirectUris: [REDIRECT],
    firstParty: true,
  }));
  closeDb = await pointAppAt(server.databaseUrl, { APP_URL: server.url, LOG_LEVEL: "silent" });
  ({ verifyAccessToken } = await import("../../lib/oidc/verify"));
});

afterAll(async () => {
  await closeDb?.();
  await server?.stop();
});

const signIn = () => signInAndGetTokens(server, { handle: "rhea", password: PASSWORD, clientId, redirectUri: REDIRECT });

describe("refresh tokens", () => {
  it("a refresh returns a new access token and a new refresh token; the old refresh token stops working", async () => {
    const tokens = await signIn();
    const first = await refreshTokens(server, clientId, tokens.refresh_token);
    expect(first.status).toBe(200);
    expect(first.body.access_token).toEqual(expect.any(String));
    expect(first.body.access_token).not.toBe(tokens.access_token);
    expect(first.body.refresh_token).toEqual(expect.any(String));
    expect(first.body.refresh_token).not.toBe(tokens.refresh_token);
    expect(String(first.body.scope).split(" ").sort()).toEqual(tokens.scope.split(" ").sort());
    expect(first.body.expires_in).toBe(8);

    const reused = await refreshTokens(server, clientId, tokens.refresh_token);
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe("invalid_grant");
  });

  it("reusing a rotated refresh token revokes the whole grant: the newest refresh token dies too", async () => {
    const tokens = await signIn();
    const rotated = await refreshTokens(server, clientId, tokens.refresh_token);
    const newest = String(rotated.body.refresh_token);
    expect((await refreshTokens(server, clientId, tokens.refresh_token)).body.error).toBe("invalid_grant");
    const after = await refreshTokens(server, clientId, newest);
    expect(after.status).toBe(400);
    expect(after.body.error).toBe("invalid_grant");
  });

  it("works through openid-client, several rotations in a row", async () => {
    const tokens = await signIn();
    const config = await client.discovery(new URL(server.issuer), clientId, { redirect_uris: [REDIRECT] }, client.None(), {
      execute: [client.allowInsecureRequests],
    });
    let refresh = tokens.refresh_token;
    for (let i = 0; i < 3; i++) {
      const next = await client.refreshTokenGrant(config, refresh);
      expect(next.refresh_token).toBeTruthy();
      expect(next.refresh_token).not.toBe(refresh);
      refresh = next.refresh_token!;
    }
  });

  it("concurrent refreshes of one token: exactly one succeeds", async () => {
    const tokens = await signIn();
    const results = await Promise.all(Array.from({ length: 6 }, () => refreshTokens(server, clientId, tokens.refresh_token)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) expect(r.body.error).toBe("invalid_grant");
  });

  it("a user disabled after signing in can no longer refresh", async () => {
    await createTestUser(server.databaseUrl, { handle: "gone", password: PASSWORD });
    const tokens = await signInAndGetTokens(server, { handle: "gone", password: PASSWORD, clientId, redirectUri: REDIRECT });
    await query(server.databaseUrl, `UPDATE "User" SET disabled = true WHERE handle = 'gone'`);
    const res = await refreshTokens(server, clientId, tokens.refresh_token);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_grant");
  });

  it("an unknown, revoked or other client's refresh token is invalid_grant", async () => {
    expect((await refreshTokens(server, clientId, "garbage")).body.error).toBe("invalid_grant");

    const tokens = await signIn();
    const revoke = await fetch(`${server.issuer}/protocol/openid-connect/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: tokens.refresh_token, client_id: clientId }),
    });
    expect(revoke.status).toBe(200);
    const after = await refreshTokens(server, clientId, tokens.refresh_token);
    expect(after.status).toBe(400);
    expect(after.body.error).toBe("invalid_grant");

    const other = await createTestApp(server.databaseUrl, { type: "login", redirectUris: [REDIRECT], firstParty: true });
    const mine = await signIn();
    expect((await refreshTokens(server, other.clientId, mine.refresh_token)).body.error).toBe("invalid_grant");
  });
});

describe("introspection", () => {
  const introspect = (token: string, id = clientId) =>
    fetch(`${server.issuer}/protocol/openid-connect/token/introspect`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams({ token, client_id: id }),
    });

  it("a refresh token is active until revoked; JWT access tokens are verified locally, not introspected", async () => {
    const tokens = await signIn();
    const active = (await (await introspect(tokens.refresh_token)).json()) as Record<string, unknown>;
    expect(active).toMatchObject({ active: true, client_id: clientId, sub: expect.stringMatching(/^[0-9]+$/) });
    expect(String(active.scope).split(" ")).toContain("svc:chat.read");

    await refreshTokens(server, clientId, tokens.refresh_token); // rotated: the old one is no longer active
    expect(await (await introspect(tokens.refresh_token)).json()).toMatchObject({ active: false });

    // oidc-provider refuses structured (JWT) tokens here by design: the API checks them itself.
    const jwt = await introspect(tokens.access_token);
    expect(jwt.status).toBe(400);
    expect(await jwt.json()).toMatchObject({ error: "unsupported_token_type" });
  });
});

describe("access token lifetime", () => {
  it("an expired access token is rejected by the API's verifier", async () => {
    const tokens = await signIn();
    expect(tokens.expires_in).toBe(8);
    const claims = await verifyAccessToken(tokens.access_token);
    expect(claims.sub).toEqual(expect.stringMatching(/^[0-9]+$/));
    expect(claims.exp - claims.iat).toBe(8);
    // Wait until the token's own expiry has passed.
    await new Promise((r) => setTimeout(r, Math.max(0, claims.exp * 1000 - Date.now()) + 1100));
    await expect(verifyAccessToken(tokens.access_token)).rejects.toMatchObject({ code: "invalid_token", status: 401 });
    // The refresh token still gets a fresh one.
    const fresh = await refreshTokens(server, clientId, tokens.refresh_token);
    await expect(verifyAccessToken(String(fresh.body.access_token))).resolves.toMatchObject({ clientId });
  });

  it("an ID token is not an access token", async () => {
    const tokens = await signIn();
    await expect(verifyAccessToken(tokens.id_token)).rejects.toMatchObject({ code: "invalid_token" });
  });
});

describe("CORS for single-page apps", () => {
  it("token endpoint: the registered redirect origin is allowed, others are not", async () => {
    const tokens = await signIn();
    const preflight = await fetch(`${server.issuer}/protocol/openid-connect/token`, {
      method: "OPTIONS",
      headers: { origin: SPA_ORIGIN, "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe(SPA_ORIGIN);

    const ok = await refreshTokens(server, clientId, tokens.refresh_token, { origin: SPA_ORIGIN });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe(SPA_ORIGIN);

    const evil = await refreshTokens(server, clientId, String(ok.body.refresh_token), { origin: "https://evil.example" });
    expect(evil.headers.get("access-control-allow-origin")).toBeNull();
    expect(evil.status).toBe(400);
  });

  it("API clients get no CORS (a secret never belongs in a browser)", async () => {
    const api = await createTestApp(server.databaseUrl, { type: "api", scopes: ["svc:chat.read"] });
    const res = await tokenRequest(
      server,
      { grant_type: "client_credentials", client_id: api.clientId, client_secret: api.clientSecret },
      { origin: SPA_ORIGIN },
    );
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("userinfo and revoke answer the registered origin", async () => {
    const tokens = await signIn();
    const info = await fetch(`${server.issuer}/protocol/openid-connect/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}`, origin: SPA_ORIGIN },
    });
    expect(info.status).toBe(200);
    expect(info.headers.get("access-control-allow-origin")).toBe(SPA_ORIGIN);
    const revoke = await fetch(`${server.issuer}/protocol/openid-connect/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: SPA_ORIGIN },
      body: new URLSearchParams({ token: tokens.refresh_token, client_id: clientId }),
    });
    expect(revoke.status).toBe(200);
    expect(revoke.headers.get("access-control-allow-origin")).toBe(SPA_ORIGIN);
  });
});

describe("refresh token lifetime", () => {
  // SPEC States "Refresh token": valid → invalid on expiry (or revocation); Errors: a refresh with
  // an expired refresh token is HTTP 400 invalid_grant. A server whose sign-ins last REFRESH_TOKEN_TTL
  // seconds: the token below expires with time alone, never revoked.
  const TTL = 8;
  let short: TestServer;
  let shortClientId: string;

  beforeAll(async () => {
    short = await startServer({ seed: false, env: { REFRESH_TOKEN_TTL: String(TTL) } });
    await createTestUser(short.databaseUrl, { handle: "rhea", password: PASSWORD });
    ({ clientId: shortClientId } = await createTestApp(short.databaseUrl, {
      type: "login",
      scopes: ["svc:chat.read"],
      redirectUris: [REDIRECT],
      firstParty: true,
    }));
  });

  afterAll(async () => {
    await short?.stop();
  });

  it("an expired (not revoked) refresh token is HTTP 400 invalid_grant", async () => {
    const started = Date.now();
    const tokens = await signInAndGetTokens(short, { handle: "rhea", password: PASSWORD, clientId: shortClientId, redirectUri: REDIRECT });
    // Valid while it lives: a refresh works and rotates it (the new one keeps the sign-in's expiry).
    const rotated = await refreshTokens(short, shortClientId, tokens.refresh_token);
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    const refreshToken = String(rotated.body.refresh_token);

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + TTL * 1000 + 1_500 - Date.now())));
    // Its row as the refresh finds it (read first: a refresh changes it).
    const key = `sha256:${createHash("sha256").update(refreshToken).digest("base64url")}`;
    const rows = await query<{ consumed: boolean; expired: boolean }>(
      short.databaseUrl,
      `SELECT "consumedAt" IS NOT NULL AS consumed, "expiresAt" < timezone('UTC', now()) AS expired
       FROM "OidcModel" WHERE kind = 'RefreshToken' AND id = $1`,
      [key],
    );

    const res = await refreshTokens(short, shortClientId, refreshToken);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error).toBe("invalid_grant");
    expect(res.body).not.toHaveProperty("access_token");
    // Not revoked: the row was still there, unused; only its time had run out.
    expect(rows).toEqual([{ consumed: false, expired: true }]);
  });
});
