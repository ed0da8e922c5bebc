import { randomBytes } from "node:crypto";
import { writeFile, mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from "jose";
import * as oauth from "oauth4webapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliJson, runCli } from "../helpers/cli";
import { query } from "../helpers/db";
import { authorize, createTestApp, createTestUser, tokenRequest } from "../helpers/oidc";
import { startServer, type TestServer } from "../helpers/server";

/**
 * Keys instead of shared secrets (RFC 7523 private_key_jwt, issue 42 item 3), with oauth4webapi as
 * the client: `apps keys set --jwks-file | --jwks-uri` gives an API or login client public keys and
 * takes its secrets away; a signed assertion gets tokens, a secret never does, an assertion works
 * once (in the table every process claims in), for the token endpoint only and until its `exp`;
 * a key set with a private key is refused with a clear message.
 */
const PASSWORD = "pkjwt-password-1";
const REDIRECT = "http://127.0.0.1:9/callback";
const insecure = { [oauth.allowInsecureRequests]: true } as const;

let server: TestServer;
let as: oauth.AuthorizationServer;
let dir: string;
let keyHost: Server;
let served: Record<string, unknown> = { keys: [] };

interface KeyPair {
  privateKey: CryptoKey;
  publicJwk: Record<string, unknown>;
  privateJwk: Record<string, unknown>;
}

async function newKey(kid: string): Promise<KeyPair> {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  return {
    privateKey: privateKey as CryptoKey,
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" },
    privateJwk: { ...(await exportJWK(privateKey)), kid },
  };
}

async function jwksFile(keys: Record<string, unknown>[]): Promise<string> {
  const file = path.join(dir, `jwks-${randomBytes(4).toString("hex")}.json`);
  await writeFile(file, JSON.stringify({ keys }));
  return file;
}

const privateKeyJwt = (key: KeyPair) => oauth.PrivateKeyJwt({ key: key.privateKey, kid: key.publicJwk.kid as string });

/** An assertion made by hand (RFC 7523 §3), for the replays and bad audiences a client library never sends. */
function assertion(clientId: string, key: KeyPair, claims: { aud?: string; jti?: string; exp?: number } = {}): Promise<string> {
  return new SignJWT({ jti: claims.jti ?? randomBytes(16).toString("base64url") })
    .setProtectedHeader({ alg: "ES256", kid: key.publicJwk.kid as string })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(claims.aud ?? as.token_endpoint!)
    .setIssuedAt()
    .setExpirationTime(claims.exp ?? Math.floor(Date.now() / 1000) + 60)
    .sign(key.privateKey);
}

function withAssertion(clientId: string, signed: string) {
  return tokenRequest(server, {
    grant_type: "client_credentials",
    client_id: clientId,
    client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
    client_assertion: signed,
  });
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "pkjwt-"));
  keyHost = createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(served)));
  await new Promise<void>((resolve) => keyHost.listen(0, "127.0.0.1", resolve));
  // The key set URL is on this machine: private addresses allowed, as in development.
  server = await startServer({ seed: false, env: { CLIENT_METADATA_ALLOW_PRIVATE: "1" } });
  await createTestUser(server.databaseUrl, { handle: "kira", password: PASSWORD });
  const issuer = new URL(server.issuer);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
});

afterAll(async () => {
  await server?.stop();
  await new Promise((resolve) => keyHost?.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

describe("private_key_jwt", () => {
  it("is in discovery", () => {
    expect(as.token_endpoint_auth_methods_supported).toContain("private_key_jwt");
  });

  it("an API client with keys gets tokens with a signed assertion and never with its old secret; an assertion works once", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "api", scopes: ["svc:chat.read"] });
    const key = await newKey("k1");
    const set = await cliJson<{ token_endpoint_auth_method: string; keys: { kid: string }[] }>(server.databaseUrl, [
      "apps",
      "keys",
      "set",
      app.clientId,
      "--jwks-file",
      await jwksFile([key.publicJwk]),
    ]);
    expect(set).toMatchObject({ token_endpoint_auth_method: "private_key_jwt", keys: [{ kid: "k1" }] });
    // No secret left at all.
    expect(await query(server.databaseUrl, `SELECT s.id FROM "ClientSecret" s JOIN "Application" a ON a.id = s."applicationId" WHERE a."clientId" = $1`, [app.clientId])).toEqual([]);

    const client = { client_id: app.clientId };
    // The change channel drops the cached client as the change commits; retried until it did.
    let tokens: oauth.TokenEndpointResponse | undefined;
    for (let i = 0; i < 20 && !tokens; i++) {
      const response = await oauth.clientCredentialsGrantRequest(as, client, privateKeyJwt(key), new URLSearchParams(), insecure);
      tokens = response.status === 200 ? await oauth.processClientCredentialsResponse(as, client, response) : undefined;
    }
    expect(tokens?.scope).toBe("svc:chat.read");
    const read = await fetch(`${server.apiUrl}/global-chat/messages?limit=1`, { headers: { authorization: `Bearer ${tokens!.access_token}` } });
    expect(read.status).toBe(200);

    // Keys or a secret, never both: no secret can be added to it.
    const add = await runCli(server.databaseUrl, ["apps", "secrets", "add", app.clientId]);
    expect(add.code).not.toBe(0);
    expect(add.stderr).toMatch(/holds no secret/);

    // The secret it had, in the body or in Basic: invalid_client.
    const withSecret = await tokenRequest(server, { grant_type: "client_credentials", client_id: app.clientId, client_secret: app.clientSecret });
    expect(withSecret.status).toBe(401);
    expect(withSecret.body.error).toBe("invalid_client");

    // One assertion, twice: the second is a replay.
    const once = await assertion(app.clientId, key);
    expect((await withAssertion(app.clientId, once)).status).toBe(200);
    const replay = await withAssertion(app.clientId, once);
    expect(replay.status).toBe(401);
    expect(replay.body.error).toBe("invalid_client");
    // Another audience, an expired one, another key: refused.
    for (const bad of [
      await assertion(app.clientId, key, { aud: "https://elsewhere.example/token" }),
      await assertion(app.clientId, key, { exp: Math.floor(Date.now() / 1000) - 120 }),
      await assertion(app.clientId, await newKey("k1")),
    ]) {
      const refused = await withAssertion(app.clientId, bad);
      expect(refused.status).toBe(401);
      expect(refused.body.error).toBe("invalid_client");
    }
    // An assertion that lives longer than a DPoP proof is remembered as long as it lives.
    const longLived = await assertion(app.clientId, key, { exp: Math.floor(Date.now() / 1000) + 3600 });
    expect((await withAssertion(app.clientId, longLived)).status).toBe(200);
    const [claim] = await query<{ seconds: number }>(server.databaseUrl, `SELECT extract(epoch FROM max("expiresAt") - now())::int AS seconds FROM "SpentJti"`);
    expect(claim!.seconds).toBeGreaterThan(3000);
  });

  it("a key set with a private key is refused, saying so; nothing changes", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "api", scopes: ["svc:chat.read"] });
    const key = await newKey("leaky");
    const run = await runCli(server.databaseUrl, ["apps", "keys", "set", app.clientId, "--jwks-file", await jwksFile([key.privateJwk])]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/private key/);
    const shown = await cliJson<{ token_endpoint_auth_method: string | null }>(server.databaseUrl, ["apps", "keys", "show", app.clientId]);
    expect(shown.token_endpoint_auth_method).toBeNull();
    const small = await runCli(server.databaseUrl, ["apps", "keys", "set", app.clientId, "--jwks-file", await jwksFile([{ kty: "EC", crv: "P-256", x: "AAAA", y: "AAAA" }])]);
    expect(small.code).not.toBe(0);
    expect(small.stderr).toMatch(/not a valid public key/);
  });

  it("a login client with keys from its jwks_uri signs its code exchange; without an assertion it is refused", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "login", scopes: ["svc:chat.read"], redirectUris: [REDIRECT] });
    const key = await newKey("login-1");
    served = { keys: [key.publicJwk] };
    const uri = `http://127.0.0.1:${(keyHost.address() as AddressInfo).port}/jwks.json`;
    const set = await runCli(server.databaseUrl, ["apps", "keys", "set", app.clientId, "--jwks-uri", uri, "--json"], { env: { CLIENT_METADATA_ALLOW_PRIVATE: "1" } });
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ jwks_uri: uri, keys: [{ kid: "login-1" }] });

    const client = { client_id: app.clientId };
    const exchange = async (auth: oauth.ClientAuth) => {
      const signedIn = await authorize(server, { clientId: app.clientId, redirectUri: REDIRECT, handle: "kira", password: PASSWORD, scope: "openid svc:chat.read" });
      const params = oauth.validateAuthResponse(as, client, new URL(signedIn.callback), signedIn.state);
      return oauth.authorizationCodeGrantRequest(as, client, auth, params, REDIRECT, signedIn.verifier, insecure);
    };
    let response = await exchange(privateKeyJwt(key));
    for (let i = 0; i < 20 && response.status !== 200; i++) response = await exchange(privateKeyJwt(key));
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    expect(tokens.refresh_token).toBeDefined();
    // A refresh is authenticated too: oidc-provider answers it (the fast path takes public clients only).
    const refreshed = await oauth.refreshTokenGrantRequest(as, client, privateKeyJwt(key), tokens.refresh_token!, insecure);
    expect(refreshed.status).toBe(200);

    const publicOnly = await exchange(oauth.None());
    expect(publicOnly.status).toBe(401);
    expect(await publicOnly.json()).toMatchObject({ error: "invalid_client" });

    // Back to a public client.
    await cliJson(server.databaseUrl, ["apps", "keys", "clear", app.clientId]);
    let back = await exchange(oauth.None());
    for (let i = 0; i < 20 && back.status !== 200; i++) back = await exchange(oauth.None());
    expect(back.status).toBe(200);
  });
});
