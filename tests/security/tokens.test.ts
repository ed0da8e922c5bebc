import { decodeProtectedHeader, exportJWK, generateKeyPair, importJWK, SignJWT, decodeJwt, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../helpers/db";
import {
  clientCredentialsToken,
  createTestApp,
  createTestUser,
  refreshTokens,
  signInAndGetTokens,
  tokenRequest,
  type TestApp,
} from "../helpers/oidc";
import { startServer, type TestServer } from "../helpers/server";

/**
 * "Hostile input and access: tokens". Every kind of bad bearer token is refused by the
 * API with the right code, using real tokens from the sign-in service as the starting point:
 * forged signature, alg none, HS256 with the public key, an unknown or embedded key, wrong aud or
 * iss (signed with the platform's own key, as a confused deputy would), an ID token or refresh
 * token used as an access token, an expired token (short ACCESS_TOKEN_TTL), and tokens of a
 * deleted app, a suspended app and a disabled user.
 */
const TTL_SECONDS = 8;
const REDIRECT = "http://localhost:9/callback";
const PASSWORD = "token tests passphrase";

let server: TestServer;
let apiApp: TestApp;
let loginApp: TestApp;
let services: {
  apps: typeof import("../../lib/services/apps") & typeof import("../../lib/services/app-review");
  users: typeof import("../../lib/services/users");
  CLI_ACTOR: import("../../lib/services/actor").Actor;
  closeDb: () => Promise<void>;
};

beforeAll(async () => {
  server = await startServer({ seed: false, env: { ACCESS_TOKEN_TTL: String(TTL_SECONDS) } });
  apiApp = await createTestApp(server.databaseUrl, { type: "api", scopes: ["svc:chat.read", "svc:directory.read"] });
  loginApp = await createTestApp(server.databaseUrl, {
    type: "login",
    scopes: ["svc:chat.read", "svc:stats.read"],
    redirectUris: [REDIRECT],
  });
  // The services run in this process too (deleting, suspending, disabling exactly as the portal does).
  process.env.DATABASE_URL = server.databaseUrl;
  process.env.LOG_LEVEL = "silent";
  (await import("../../lib/env")).resetEnv();
  services = {
    apps: { ...(await import("../../lib/services/apps")), ...(await import("../../lib/services/app-review")) },
    users: await import("../../lib/services/users"),
    CLI_ACTOR: (await import("../../lib/services/actor")).CLI_ACTOR,
    closeDb: (await import("../../lib/database/client")).closeDb,
  };
});

afterAll(async () => {
  await services?.closeDb();
  await server?.stop();
});

async function call(path: string, token: string) {
  const res = await fetch(`${server.apiUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string } } };
}

async function expectInvalidToken(token: string, path = "/global-chat/messages?limit=1") {
  const res = await call(path, token);
  expect(res.status, `${token.slice(0, 60)}… → ${JSON.stringify(res.body)}`).toBe(401);
  expect(res.body.error?.code).toBe("invalid_token");
  return res;
}

const appToken = async (app = apiApp) => (await clientCredentialsToken(server, app.clientId, app.clientSecret!)).access_token;

async function userTokens(handle: string, app = loginApp) {
  await createTestUser(server.databaseUrl, { handle, password: PASSWORD });
  return signInAndGetTokens(server, { handle, password: PASSWORD, clientId: app.clientId, redirectUri: REDIRECT });
}

/** The platform's own ES256 signing key, read from the database: what a confused deputy would hold. */
async function platformKey(): Promise<{ kid: string; key: CryptoKey | Uint8Array }> {
  const rows = await query<{ kid: string; privateJwk: JWK }>(
    server.databaseUrl,
    `SELECT kid, "privateJwk" FROM "SigningKey" WHERE alg = 'ES256' AND "retiredAt" IS NULL`,
  );
  return { kid: rows[0]!.kid, key: await importJWK(rows[0]!.privateJwk, "ES256") };
}

/** Re-signs a real token's claims with `key`, after applying changes. */
async function resign(
  token: string,
  key: CryptoKey | Uint8Array,
  changes: { header?: Record<string, unknown>; payload?: Record<string, unknown> } = {},
): Promise<string> {
  const header = { ...decodeProtectedHeader(token), ...changes.header } as { alg: string; [k: string]: unknown };
  return new SignJWT({ ...decodeJwt(token), ...changes.payload }).setProtectedHeader(header).sign(key);
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

describe("real tokens work (the controls)", () => {
  it("an app token and a user token are accepted", async () => {
    expect((await call("/global-chat/messages?limit=1", await appToken())).status).toBe(200);
    const { access_token } = await userTokens("tok_control");
    expect((await call("/me", access_token)).status).toBe(200);
  });
});

describe("forged and confused tokens are 401 invalid_token", () => {
  it("forged signature: the real claims and kid, signed by an attacker's key", async () => {
    const real = await appToken();
    const attacker = await generateKeyPair("ES256");
    await expectInvalidToken(await resign(real, attacker.privateKey));
  });

  it("tampered payload: scopes widened under the original signature", async () => {
    const real = await appToken();
    const [h, , s] = real.split(".");
    const payload = { ...decodeJwt(real), scope: "svc:chat.read svc:chat.write svc:pokes.write svc:stats.read" };
    await expectInvalidToken(`${h}.${b64(payload)}.${s}`);
  });

  it('alg "none", with and without a signature part', async () => {
    const real = await appToken();
    const header = b64({ ...decodeProtectedHeader(real), alg: "none" });
    const payload = real.split(".")[1];
    await expectInvalidToken(`${header}.${payload}.`);
    await expectInvalidToken(`${header}.${payload}.${real.split(".")[2]}`);
    await expectInvalidToken(`${b64({ alg: "none" })}.${payload}.`);
  });

  it("HS256 signed with the published public key as the HMAC secret (algorithm confusion)", async () => {
    const real = await appToken();
    const jwks = (await (await fetch(`${server.issuer}/protocol/openid-connect/certs`)).json()) as { keys: JWK[] };
    const kid = decodeProtectedHeader(real).kid;
    const published = jwks.keys.find((k) => k.kid === kid)!;
    for (const secret of [JSON.stringify(published), `${published.x}${published.y}`]) {
      await expectInvalidToken(await resign(real, new TextEncoder().encode(secret), { header: { alg: "HS256" } }));
    }
  });

  it("a token signed by an unknown key, and one carrying its own key (jwk / jku headers)", async () => {
    const real = await appToken();
    const attacker = await generateKeyPair("ES256", { extractable: true });
    const jwk = await exportJWK(attacker.publicKey);
    await expectInvalidToken(await resign(real, attacker.privateKey, { header: { kid: "attacker-key" } }));
    await expectInvalidToken(await resign(real, attacker.privateKey, { header: { kid: undefined, jwk } }));
    await expectInvalidToken(await resign(real, attacker.privateKey, { header: { jku: "https://evil.example/jwks.json" } }));
  });

  it("wrong aud or iss, even signed with the platform's own key", async () => {
    const real = await appToken();
    const { kid, key } = await platformKey();
    // The control: re-signing unchanged gives a token the API accepts, so only the change matters.
    expect((await call("/global-chat/messages?limit=1", await resign(real, key, { header: { kid } }))).status).toBe(200);
    const variants = [
      { aud: "https://other-api.example/api/v1" },
      { aud: server.url },
      { aud: loginApp.clientId },
      { iss: "https://evil.example/realms/platform" },
      { iss: `${server.url}/realms/other` },
      { iss: undefined },
    ];
    for (const payload of variants) {
      const res = await call("/global-chat/messages?limit=1", await resign(real, key, { header: { kid }, payload }));
      expect(res.status, JSON.stringify(payload)).toBe(401);
      expect(res.body.error?.code).toBe("invalid_token");
    }
    // typ must say access token (RFC 9068): a plain JWT with the same claims is not one.
    await expectInvalidToken(await resign(real, key, { header: { kid, typ: "JWT" } }));
  });

  it("an ID token or a refresh token used as an access token", async () => {
    const tokens = await userTokens("tok_confused");
    await expectInvalidToken(tokens.id_token, "/me");
    await expectInvalidToken(tokens.refresh_token, "/me");
    // userinfo refuses the ID token too.
    const userinfo = await fetch(`${server.issuer}/protocol/openid-connect/userinfo`, { headers: { authorization: `Bearer ${tokens.id_token}` } });
    expect(userinfo.status).toBe(401);
    expect(((await userinfo.json()) as { error: string }).error).toBe("invalid_token");
  });

  it("an expired token (ACCESS_TOKEN_TTL) is invalid_token on the API and at userinfo", async () => {
    const app = await appToken();
    const user = await userTokens("tok_expiring");
    expect(decodeJwt(app).exp! - decodeJwt(app).iat!).toBe(TTL_SECONDS);
    // Used once while valid (so any cache of verified tokens holds it), then after expiry.
    expect((await call("/global-chat/messages?limit=1", app)).status).toBe(200);
    const wait = decodeJwt(user.access_token).exp! * 1000 - Date.now() + 1_100;
    await new Promise((r) => setTimeout(r, Math.max(wait, decodeJwt(app).exp! * 1000 - Date.now() + 1_100)));
    const res = await expectInvalidToken(app);
    expect(res.body.error?.message).toMatch(/expired/i);
    await expectInvalidToken(user.access_token, "/me");
    const userinfo = await fetch(`${server.issuer}/protocol/openid-connect/userinfo`, {
      headers: { authorization: `Bearer ${user.access_token}` },
    });
    expect(userinfo.status).toBe(401);
    // The refresh token still gets a fresh access token (it lives REFRESH_TOKEN_TTL).
    const refreshed = await refreshTokens(server, loginApp.clientId, user.refresh_token);
    expect(refreshed.status).toBe(200);
  });
});

describe("tokens of apps and users that lost access", () => {
  /** The API caches an app's/user's status for 2 s; wait out that bound. */
  async function eventually(check: () => Promise<boolean>): Promise<void> {
    for (let i = 0; i < 40; i++) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error("condition not met within 10 s");
  }

  it("a deleted app: its app token and its users' tokens are invalid_token, its secret and refresh tokens dead", async () => {
    const api = await createTestApp(server.databaseUrl, { type: "api", scopes: ["svc:chat.read"] });
    const login = await createTestApp(server.databaseUrl, { type: "login", scopes: ["svc:chat.read"], redirectUris: [REDIRECT] });
    const appOnly = await appToken(api);
    const user = await userTokens("tok_deleted_app", login);
    expect((await call("/global-chat/messages?limit=1", appOnly)).status).toBe(200);
    await services.apps.deleteApp(api.clientId, services.CLI_ACTOR);
    await services.apps.deleteApp(login.clientId, services.CLI_ACTOR);
    await eventually(async () => (await call("/global-chat/messages?limit=1", appOnly)).status === 401);
    await expectInvalidToken(appOnly);
    await expectInvalidToken(user.access_token, "/me");
    const cc = await tokenRequest(server, { grant_type: "client_credentials", client_id: api.clientId, client_secret: api.clientSecret });
    expect([400, 401]).toContain(cc.status);
    expect(cc.body.error).toBe("invalid_client");
    const refresh = await refreshTokens(server, login.clientId, user.refresh_token);
    expect(refresh.status).toBeGreaterThanOrEqual(400);
    expect(["invalid_client", "invalid_grant"]).toContain(refresh.body.error);
  });

  it("a suspended app: invalid_token at the API, invalid_client at the token endpoint, refresh refused", async () => {
    const api = await createTestApp(server.databaseUrl, { type: "api", scopes: ["svc:chat.read"] });
    const login = await createTestApp(server.databaseUrl, { type: "login", scopes: ["svc:chat.read"], redirectUris: [REDIRECT] });
    const appOnly = await appToken(api);
    const user = await userTokens("tok_suspended_app", login);
    await services.apps.suspendApp(api.clientId, "abuse", services.CLI_ACTOR);
    await services.apps.suspendApp(login.clientId, "abuse", services.CLI_ACTOR);
    await eventually(async () => (await call("/global-chat/messages?limit=1", appOnly)).status === 401);
    await expectInvalidToken(appOnly);
    await expectInvalidToken(user.access_token, "/me");
    await eventually(async () => {
      const cc = await tokenRequest(server, { grant_type: "client_credentials", client_id: api.clientId, client_secret: api.clientSecret });
      return cc.status === 401 && cc.body.error === "invalid_client";
    });
    const refresh = await refreshTokens(server, login.clientId, user.refresh_token);
    expect(refresh.status).toBeGreaterThanOrEqual(400);
    expect(["invalid_client", "invalid_grant"]).toContain(refresh.body.error);
  });

  it("a disabled user: 403 forbidden on the API, refresh refused, userinfo refused, no new sign-in", async () => {
    const user = await userTokens("tok_disabled");
    expect((await call("/me", user.access_token)).status).toBe(200);
    await services.users.setUserDisabled("tok_disabled", true, services.CLI_ACTOR);
    await eventually(async () => (await call("/me", user.access_token)).status === 403);
    const res = await call("/me/stats", user.access_token);
    expect(res.status).toBe(403);
    expect(res.body.error?.code).toBe("forbidden");
    const refresh = await refreshTokens(server, loginApp.clientId, user.refresh_token);
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe("invalid_grant");
    const userinfo = await fetch(`${server.issuer}/protocol/openid-connect/userinfo`, {
      headers: { authorization: `Bearer ${user.access_token}` },
    });
    expect(userinfo.status).toBe(401);
    await expect(
      signInAndGetTokens(server, { handle: "tok_disabled", password: PASSWORD, clientId: loginApp.clientId, redirectUri: REDIRECT }),
    ).rejects.toThrow(/account_disabled/);
  });
});
