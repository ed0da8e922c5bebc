import { createHash } from "node:crypto";
import { decodeJwt, decodeProtectedHeader } from "jose";
import * as client from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../helpers/db";
import { answeredBy, pointAppAt, startServer, type TestServer } from "../helpers/server";
import { until } from "../helpers/poll";
import { authorizationEndpoint, createTestApp, createTestUser, setAppStatus, tokenRequest } from "../helpers/oidc";

/**
 * SPEC Authentication "API client: client credentials", States (not approved → invalid_client) and
 * Errors; PRODUCT: client_secret_post and client_secret_basic, secrets stored only as hashes, JWT
 * access tokens (RFC 9068) verified locally by the API.
 */
let server: TestServer;
let verifyAccessToken: typeof import("../../lib/oidc/verify").verifyAccessToken;
const SCOPES = ["svc:chat.read", "svc:directory.read"];
let closeDb: () => Promise<void>;

beforeAll(async () => {
  server = await startServer({ seed: false });
  // The API's verifier, in-process against the server's database (keys are read from it).
  closeDb = await pointAppAt(server.databaseUrl, { APP_URL: server.url, LOG_LEVEL: "silent" });
  ({ verifyAccessToken } = await import("../../lib/oidc/verify"));
});

afterAll(async () => {
  await closeDb?.();
  await server?.stop();
});

const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`;

describe("client credentials", () => {
  it("client_secret_post: an RFC 9068 JWT for the API with exactly the registered app-level scopes, no refresh token", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "api", scopes: SCOPES });
    const {
      answer: { status, body, headers },
      paths,
    } = await answeredBy(server, () =>
      tokenRequest(server, {
        grant_type: "client_credentials",
        client_id: app.clientId,
        client_secret: app.clientSecret,
      }),
    );
    expect(status).toBe(200);
    // lib/oidc/client-credentials.ts answered it (the server's counters, GET /metrics).
    expect(paths).toEqual({ client_credentials_fast: 1 });
    expect(headers.get("cache-control")).toContain("no-store");
    expect(body).toMatchObject({ token_type: "Bearer", expires_in: 3600 });
    expect(body).not.toHaveProperty("refresh_token");
    expect(body).not.toHaveProperty("id_token");
    expect(String(body.scope).split(" ").sort()).toEqual(SCOPES);

    const token = String(body.access_token);
    expect(decodeProtectedHeader(token)).toMatchObject({ typ: "at+jwt", alg: "ES256" });
    const payload = decodeJwt(token);
    expect(payload).toMatchObject({ iss: server.issuer, aud: server.apiUrl, client_id: app.clientId });
    expect(payload).not.toHaveProperty("sub"); // app-only: no user
    expect(payload.exp! - payload.iat!).toBe(3600);

    const claims = await verifyAccessToken(token);
    expect(claims.sub).toBeUndefined();
    expect(claims.clientId).toBe(app.clientId);
    expect(claims.scopes.sort()).toEqual(SCOPES);
  });

  it("client_secret_basic works the same", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "api", scopes: ["svc:chat.read"] });
    const { status, body } = await tokenRequest(
      server,
      { grant_type: "client_credentials" },
      { authorization: basic(app.clientId, app.clientSecret!) },
    );
    expect(status).toBe(200);
    expect(body.scope).toBe("svc:chat.read");
  });

  it("works with openid-client as the client (discovery, client_secret_basic)", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "api", scopes: SCOPES });
    const config = await client.discovery(
      new URL(server.issuer),
      app.clientId,
      undefined,
      client.ClientSecretBasic(app.clientSecret!),
      { execute: [client.allowInsecureRequests] },
    );
    const tokens = await client.clientCredentialsGrant(config);
    expect(tokens.token_type.toLowerCase()).toBe("bearer");
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope?.split(" ").sort()).toEqual(SCOPES);
  });

  it("a requested scope list narrows the registered one; user-only scopes never reach an API client", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "api", scopes: [...SCOPES, "svc:stats.read"] });
    const asked = await tokenRequest(server, {
      grant_type: "client_credentials",
      client_id: app.clientId,
      client_secret: app.clientSecret,
      scope: "svc:chat.read",
    });
    expect(asked.status).toBe(200);
    expect(asked.body.scope).toBe("svc:chat.read");
    expect(decodeJwt(String(asked.body.access_token)).scope).toBe("svc:chat.read");
    // Asking for one the app may not hold is invalid_scope naming it (tests/oidc/invalid-scope.test.ts).
    const userOnly = await tokenRequest(server, {
      grant_type: "client_credentials",
      client_id: app.clientId,
      client_secret: app.clientSecret,
      scope: "svc:chat.read svc:stats.read",
    });
    expect(userOnly.status).toBe(400);
    expect(userOnly.body).toMatchObject({ error: "invalid_scope", scope: "svc:stats.read" });

    // svc:stats.read needs a user: registered, but not granted to the app itself.
    const all = await tokenRequest(server, { grant_type: "client_credentials", client_id: app.clientId, client_secret: app.clientSecret });
    expect(String(all.body.scope).split(" ").sort()).toEqual(SCOPES);
  });

  it("a wrong secret, an unknown client or a missing secret is invalid_client", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "api", scopes: SCOPES });
    const cases = [
      { form: { grant_type: "client_credentials", client_id: app.clientId, client_secret: `${app.clientSecret}x` } },
      { form: { grant_type: "client_credentials", client_id: app.clientId, client_secret: "" } },
      { form: { grant_type: "client_credentials", client_id: "api_does_not_exist", client_secret: app.clientSecret } },
      { form: { grant_type: "client_credentials" }, headers: { authorization: basic(app.clientId, "wrong") } },
    ];
    for (const c of cases) {
      const { status, body } = await tokenRequest(server, c.form, c.headers);
      expect([400, 401], JSON.stringify(c.form)).toContain(status);
      expect(body.error).toMatch(/^invalid_(client|request)$/);
      expect(body).not.toHaveProperty("access_token");
    }
    const wrong = await tokenRequest(server, cases[0]!.form);
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe("invalid_client");
  });

  it("pending, rejected and suspended apps get invalid_client, even with the right secret", async () => {
    for (const status of ["pending", "rejected", "suspended"] as const) {
      const app = await createTestApp(server.databaseUrl, { type: "api", scopes: SCOPES, status });
      const res = await tokenRequest(server, { grant_type: "client_credentials", client_id: app.clientId, client_secret: app.clientSecret });
      expect(res.status, status).toBe(401);
      expect(res.body.error).toBe("invalid_client");
    }
  });

  it("approval makes a pending app work; suspension stops it (within the client cache window)", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "api", scopes: SCOPES, status: "pending" });
    const form = { grant_type: "client_credentials", client_id: app.clientId, client_secret: app.clientSecret };
    expect((await tokenRequest(server, form)).body.error).toBe("invalid_client");
    // A bare UPDATE (no change-channel announcement): only the client cache's 5 s lifetime bounds
    // how long the old status is served. Polled, with that bound plus slack for a busy machine.
    await setAppStatus(server.databaseUrl, app.clientId, "approved");
    await until(async () => expect((await tokenRequest(server, form)).status).toBe(200), { withinMs: 8_000, intervalMs: 250 });
    await setAppStatus(server.databaseUrl, app.clientId, "suspended");
    await until(async () => expect((await tokenRequest(server, form)).body.error).toBe("invalid_client"), { withinMs: 8_000, intervalMs: 250 });
  });

  it("an API client cannot use the code flow, and a login client cannot use client credentials", async () => {
    const api = await createTestApp(server.databaseUrl, { type: "api", scopes: SCOPES });
    const auth = new URL(authorizationEndpoint(server));
    auth.search = new URLSearchParams({
      client_id: api.clientId,
      response_type: "code",
      redirect_uri: "http://localhost:9/cb",
      scope: "openid",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
    }).toString();
    const res = await fetch(auth, { redirect: "manual" });
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();

    const login = await createTestApp(server.databaseUrl, { type: "login", scopes: SCOPES });
    const cc = await tokenRequest(server, { grant_type: "client_credentials", client_id: login.clientId });
    expect(cc.status).toBeGreaterThanOrEqual(400);
    expect(cc.body).not.toHaveProperty("access_token");
  });

  it("a secret the product generated is stored only as its SHA-256 hex, and never appears in the logs", async () => {
    // The app and its secret come from the services the portal and the CLI use (not from a test
    // helper that writes the row itself), so this checks what the product stores.
    const [{ createApp }, { approveApp }, { revealSecretOnce }, { CLI_ACTOR }] = await Promise.all([
      import("../../lib/services/apps"),
      import("../../lib/services/app-review"),
      import("../../lib/services/app-secrets"),
      import("../../lib/services/actor"),
    ]);
    const owner = await createTestUser(server.databaseUrl, { handle: "cc_owner", password: "cc owner password 1" });
    const created = await createApp(
      { name: "Hashed", description: "", type: "api", scopes: ["svc:chat.read"], redirectUris: [], postLogoutRedirectUris: [] },
      { id: owner.id },
      CLI_ACTOR,
    );
    await approveApp(created.clientId, CLI_ACTOR);
    const revealed = await revealSecretOnce(created.clientId, CLI_ACTOR);
    expect(revealed).not.toBeNull();
    const secret = revealed!.clientSecret;

    // The secret works, and a wrong one is refused: both go through the server's log.
    const ok = await tokenRequest(server, { grant_type: "client_credentials", client_id: created.clientId, client_secret: secret });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const wrong = await tokenRequest(server, { grant_type: "client_credentials", client_id: created.clientId, client_secret: `${secret}-wrong` });
    expect(wrong.body.error).toBe("invalid_client");

    const rows = await query<{ id: string; hash: string; hint: string; row: string }>(
      server.databaseUrl,
      `SELECT s.id, s.hash, s.hint, s::text AS row FROM "ClientSecret" s JOIN "Application" a ON a.id = s."applicationId" WHERE a."clientId" = $1`,
      [created.clientId],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.id).toBe(revealed!.secretId);
    expect(rows[0]!.hash).toBe(createHash("sha256").update(secret, "utf8").digest("hex"));
    expect(rows[0]!.hint).toBe(secret.slice(-4));
    expect(rows[0]!.row).not.toContain(secret);
    expect(server.logs.join("\n")).not.toContain(secret);
  });
});
