import { createHash, randomBytes } from "node:crypto";
import { calculateJwkThumbprint, decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey } from "jose";
import * as oauth from "oauth4webapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliJson } from "../helpers/cli";
import { authorize, createTestApp, createTestUser } from "../helpers/oidc";
import { answeredBy, startServer, type TestServer } from "../helpers/server";

/**
 * DPoP (RFC 9449, issue 42 item 1), with panva's oauth4webapi as the client: client credentials,
 * the authorization code and refresh grants issue `token_type: DPoP` tokens bound to the proof's
 * key (`cnf.jkt`), through the token endpoint's fast paths (answeredBy reads which path answered);
 * a public client's refresh token works only with its key; the API, /mcp and userinfo refuse a
 * bound token without a proof, as a bearer token, with a proof of another URL, method or key, and
 * with a proof already used — in another process too; an app may require DPoP; and with
 * DPOP_NONCE=1 every proof must carry the server's nonce.
 */
const PASSWORD = "dpop-password-1";
const REDIRECT = "http://127.0.0.1:9/callback";
const insecure = { [oauth.allowInsecureRequests]: true } as const;

let server: TestServer;
let twin: TestServer;
let as: oauth.AuthorizationServer;
let api: { clientId: string; clientSecret: string };
let login: { clientId: string };

beforeAll(async () => {
  server = await startServer({ seed: false });
  // A second process on the same database and URL, as behind a load balancer: a proof spent in one is spent in both.
  twin = await startServer({ databaseUrl: server.databaseUrl, env: { APP_URL: server.url } });
  await createTestUser(server.databaseUrl, { handle: "dora", password: PASSWORD, displayName: "Dora Dpop" });
  api = (await createTestApp(server.databaseUrl, { type: "api", scopes: ["svc:chat.read", "svc:stats.read"] })) as typeof api;
  login = await createTestApp(server.databaseUrl, { type: "login", scopes: ["svc:chat.read", "svc:stats.read"], redirectUris: [REDIRECT] });
  const issuer = new URL(server.issuer);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
}, 300_000);

afterAll(async () => {
  await twin?.stop();
  await server?.stop();
});

interface Key {
  keyPair: CryptoKeyPair;
  jwk: Record<string, unknown>;
  jkt: string;
}

async function newKey(): Promise<Key> {
  const keyPair = (await generateKeyPair("ES256", { extractable: true })) as CryptoKeyPair;
  const jwk = await exportJWK(keyPair.publicKey);
  return { keyPair, jwk: jwk as Record<string, unknown>, jkt: await calculateJwkThumbprint(jwk) };
}

/** A proof made by hand (what oauth4webapi would send), for the cases a well-behaved client never sends. */
function proof(key: Key, claims: { htm: string; htu: string; accessToken?: string; jti?: string; iat?: number; headerJwk?: Record<string, unknown> }): Promise<string> {
  return new SignJWT({
    htm: claims.htm,
    htu: claims.htu,
    jti: claims.jti ?? randomBytes(16).toString("base64url"),
    ...(claims.accessToken ? { ath: createHash("sha256").update(claims.accessToken).digest("base64url") } : {}),
  })
    .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk: claims.headerJwk ?? key.jwk })
    .setIssuedAt(claims.iat ?? Math.floor(Date.now() / 1000))
    .sign(key.keyPair.privateKey as CryptoKey);
}

async function clientCredentials(key: Key | undefined): Promise<oauth.TokenEndpointResponse> {
  const options = { ...insecure, ...(key ? { DPoP: oauth.DPoP({}, key.keyPair) } : {}) };
  const response = await oauth.clientCredentialsGrantRequest(as, { client_id: api.clientId }, oauth.ClientSecretPost(api.clientSecret), new URLSearchParams(), options);
  return oauth.processClientCredentialsResponse(as, { client_id: api.clientId }, response);
}

const apiUrl = (path: string, on: TestServer = server) => `${on.url}/api/v1${path}`;

async function callApi(token: string, init: { scheme?: string; dpop?: string; method?: string; path?: string; on?: TestServer } = {}) {
  const res = await fetch(apiUrl(init.path ?? "/users/dora", init.on), {
    method: init.method ?? "GET",
    headers: { authorization: `${init.scheme ?? "DPoP"} ${token}`, ...(init.dpop ? { dpop: init.dpop } : {}) },
  });
  return { status: res.status, challenge: res.headers.get("www-authenticate") ?? "", body: (await res.json()) as { error?: { code: string; message: string } } };
}

describe("DPoP", () => {
  it("is in the metadata of the authorization server and of both protected resources", async () => {
    expect(as.dpop_signing_alg_values_supported).toEqual(expect.arrayContaining(["ES256"]));
    for (const path of ["/.well-known/oauth-protected-resource/api/v1", "/.well-known/oauth-protected-resource/mcp"]) {
      const metadata = (await (await fetch(`${server.url}${path}`)).json()) as Record<string, unknown>;
      expect(metadata.dpop_signing_alg_values_supported).toEqual(expect.arrayContaining(["ES256"]));
      expect(metadata.dpop_bound_access_tokens_required).toBe(false);
    }
  });

  it("client credentials with a proof: a DPoP token bound to its key, from the fast path; the API takes it only with a proof of its key, for this URL and method, once", async () => {
    const key = await newKey();
    const { answer: tokens, paths } = await answeredBy(server, () => clientCredentials(key));
    expect(paths).toEqual({ client_credentials_fast: 1 });
    expect(tokens.token_type).toBe("dpop");
    const token = tokens.access_token;
    expect(decodeJwt(token).cnf).toEqual({ jkt: key.jkt });

    // With a proof of this request: the profile reads.
    const good = await callApi(token, { dpop: await proof(key, { htm: "GET", htu: apiUrl("/users/dora"), accessToken: token }) });
    expect(good.status).toBe(200);

    // Without a proof; as a bearer token; a proof for another URL, another method, another key, another token.
    const refusals = [
      await callApi(token),
      await callApi(token, { scheme: "Bearer" }),
      await callApi(token, { dpop: await proof(key, { htm: "GET", htu: apiUrl("/me"), accessToken: token }) }),
      await callApi(token, { dpop: await proof(key, { htm: "POST", htu: apiUrl("/users/dora"), accessToken: token }) }),
      await callApi(token, { dpop: await proof(await newKey(), { htm: "GET", htu: apiUrl("/users/dora"), accessToken: token }) }),
      await callApi(token, { dpop: await proof(key, { htm: "GET", htu: apiUrl("/users/dora"), accessToken: `${token}x` }) }),
      await callApi(token, { dpop: await proof(key, { htm: "GET", htu: apiUrl("/users/dora"), accessToken: token, iat: Math.floor(Date.now() / 1000) - 600 }) }),
      // Signed by another key than the one its header names (a forgery of the bound key).
      await callApi(token, { dpop: await proof(await newKey(), { htm: "GET", htu: apiUrl("/users/dora"), accessToken: token, headerJwk: key.jwk }) }),
      // A private key in the header.
      await callApi(token, { dpop: await proof(key, { htm: "GET", htu: apiUrl("/users/dora"), accessToken: token, headerJwk: { ...key.jwk, d: "AAAA" } }) }),
    ];
    for (const refused of refusals) {
      expect(refused.status).toBe(401);
      expect(refused.body.error?.code).toBe("invalid_token");
      expect(refused.challenge).toMatch(/^DPoP error="(invalid_dpop_proof|invalid_token)"/);
      expect(refused.challenge).toContain('algs="ES256');
    }
    expect(refusals[1]!.challenge).toMatch(/^DPoP error="invalid_token"/);
    expect(refusals[2]!.body.error?.message).toMatch(/htu/);
    expect(refusals[3]!.body.error?.message).toMatch(/htm/);
    expect(refusals[4]!.body.error?.message).toMatch(/another key/);
    expect(refusals[5]!.body.error?.message).toMatch(/ath/);
    expect(refusals[6]!.body.error?.message).toMatch(/iat/);
    expect(refusals[7]!.body.error?.message).toMatch(/signature/);
    expect(refusals[8]!.body.error?.message).toMatch(/public key/);

    // A proof works once: again in this process, and in the other process behind the same URL.
    const once = await proof(key, { htm: "GET", htu: apiUrl("/users/dora"), accessToken: token });
    expect((await callApi(token, { dpop: once })).status).toBe(200);
    const replayed = await callApi(token, { dpop: once });
    expect(replayed.status).toBe(401);
    expect(replayed.body.error?.message).toMatch(/already used/);
    const elsewhere = await proof(key, { htm: "GET", htu: apiUrl("/users/dora"), accessToken: token });
    expect((await callApi(token, { dpop: elsewhere, on: twin })).status).toBe(200);
    const replayedElsewhere = await callApi(token, { dpop: elsewhere });
    expect(replayedElsewhere.status).toBe(401);
    expect(replayedElsewhere.body.error?.message).toMatch(/already used/);

    // A bearer token stays a bearer token: the DPoP scheme is refused for it.
    const bearer = await clientCredentials(undefined);
    expect(bearer.token_type).toBe("bearer");
    expect((await callApi(bearer.access_token, { scheme: "Bearer" })).status).toBe(200);
    const asDpop = await callApi(bearer.access_token, { dpop: await proof(key, { htm: "GET", htu: apiUrl("/users/dora"), accessToken: bearer.access_token }) });
    expect(asDpop.status).toBe(401);
    expect(asDpop.body.error?.message).toMatch(/not DPoP-bound/);
  });

  it("an Ed25519 key binds tokens too (oauth4webapi's proofs, token endpoint and API)", async () => {
    const keyPair = (await generateKeyPair("Ed25519", { extractable: true })) as CryptoKeyPair;
    const DPoP = oauth.DPoP({}, keyPair);
    const response = await oauth.clientCredentialsGrantRequest(as, { client_id: api.clientId }, oauth.ClientSecretPost(api.clientSecret), new URLSearchParams(), { ...insecure, DPoP });
    const tokens = await oauth.processClientCredentialsResponse(as, { client_id: api.clientId }, response);
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt: await calculateJwkThumbprint(await exportJWK(keyPair.publicKey)) });
    const read = await oauth.protectedResourceRequest(tokens.access_token, "GET", new URL(apiUrl("/users/dora")), new Headers(), null, { ...insecure, DPoP });
    expect(read.status).toBe(200);
  });

  it("a proof's jti spent at the token endpoint cannot be spent again, in either process", async () => {
    const key = await newKey();
    const jti = randomBytes(16).toString("base64url");
    const tokenUrl = (on: TestServer) => `${on.url}${new URL(as.token_endpoint!).pathname}`;
    const body = new URLSearchParams({ grant_type: "client_credentials", client_id: api.clientId, client_secret: api.clientSecret });
    const send = async (on: TestServer, dpop: string) =>
      fetch(tokenUrl(on), { method: "POST", headers: { dpop, "content-type": "application/x-www-form-urlencoded" }, body });
    const first = await answeredBy(server, async () => send(server, await proof(key, { htm: "POST", htu: tokenUrl(server), jti })));
    expect(first.paths).toEqual({ client_credentials_fast: 1 });
    expect(first.answer.status).toBe(200);
    // The same jti again, in this process and in the other (each proof naming the URL it is sent to).
    for (const on of [server, twin]) {
      const again = await send(on, await proof(key, { htm: "POST", htu: tokenUrl(on), jti }));
      expect(again.status).toBe(400);
      expect(await again.json()).toMatchObject({ error: "invalid_grant" });
    }
    // A fresh jti of the same key is good in the other process: only the spent one was refused.
    expect((await send(twin, await proof(key, { htm: "POST", htu: tokenUrl(twin) }))).status).toBe(200);
  });

  it("a public client's refresh token is bound to the key of its code exchange: the fast path refreshes it with that key only", async () => {
    const key = await newKey();
    const DPoP = oauth.DPoP({}, key.keyPair);
    const signedIn = await authorize(server, { clientId: login.clientId, redirectUri: REDIRECT, handle: "dora", password: PASSWORD, scope: "openid svc:chat.read" });
    const params = oauth.validateAuthResponse(as, { client_id: login.clientId }, new URL(signedIn.callback), signedIn.state);
    const exchanged = await oauth.processAuthorizationCodeResponse(
      as,
      { client_id: login.clientId },
      await oauth.authorizationCodeGrantRequest(as, { client_id: login.clientId }, oauth.None(), params, REDIRECT, signedIn.verifier, { ...insecure, DPoP }),
    );
    expect(exchanged.token_type).toBe("dpop");
    expect(decodeJwt(exchanged.access_token).cnf).toEqual({ jkt: key.jkt });
    const refreshToken = exchanged.refresh_token!;
    expect(refreshToken).toBeDefined();

    // Userinfo takes the bound token with a proof, and not without one.
    const userinfo = await oauth.userInfoRequest(as, { client_id: login.clientId }, exchanged.access_token, { ...insecure, DPoP });
    expect(userinfo.status).toBe(200);
    const noProof = await fetch(as.userinfo_endpoint!, { headers: { authorization: `DPoP ${exchanged.access_token}` } });
    expect(noProof.status).toBe(401);
    expect(noProof.headers.get("www-authenticate")).toMatch(/^DPoP .*error="invalid_dpop_proof"/);

    // Without a proof, or with another key: refused (oidc-provider's answer), and the token still good.
    const refresh = (options: Record<string, unknown>) => oauth.refreshTokenGrantRequest(as, { client_id: login.clientId }, oauth.None(), refreshToken, { ...insecure, ...options });
    const withoutProof = await refresh({});
    expect(withoutProof.status).toBe(400);
    expect(await withoutProof.json()).toMatchObject({ error: "invalid_grant" });
    const otherKey = await refresh({ DPoP: oauth.DPoP({}, (await newKey()).keyPair) });
    expect(otherKey.status).toBe(400);
    expect(await otherKey.json()).toMatchObject({ error: "invalid_grant" });

    const { answer, paths } = await answeredBy(server, () => refresh({ DPoP }));
    expect(paths).toEqual({ refresh_fast: 1 });
    const refreshed = await oauth.processRefreshTokenResponse(as, { client_id: login.clientId }, answer);
    expect(refreshed.token_type).toBe("dpop");
    expect(decodeJwt(refreshed.access_token).cnf).toEqual({ jkt: key.jkt });
    // The successor is bound too.
    const successor = await oauth.refreshTokenGrantRequest(as, { client_id: login.clientId }, oauth.None(), refreshed.refresh_token!, insecure);
    expect(successor.status).toBe(400);

    // The person's token reads their profile through the API with oauth4webapi's proof.
    const me = await oauth.protectedResourceRequest(refreshed.access_token, "GET", new URL(apiUrl("/me")), new Headers(), null, { ...insecure, DPoP });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { user: { username: string } }).user.username).toBe("dora");
  });

  it("the MCP server takes a bound token for /mcp with a proof of the /mcp request; its tool calls run as that request", async () => {
    const key = await newKey();
    const DPoP = oauth.DPoP({}, key.keyPair);
    const signedIn = await authorize(server, {
      clientId: login.clientId,
      redirectUri: REDIRECT,
      handle: "dora",
      password: PASSWORD,
      scope: "openid svc:chat.read",
      extraParams: { resource: `${server.url}/mcp` },
    });
    const params = oauth.validateAuthResponse(as, { client_id: login.clientId }, new URL(signedIn.callback), signedIn.state);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      { client_id: login.clientId },
      await oauth.authorizationCodeGrantRequest(as, { client_id: login.clientId }, oauth.None(), params, REDIRECT, signedIn.verifier, {
        ...insecure,
        DPoP,
        additionalParameters: { resource: `${server.url}/mcp` },
      }),
    );
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_me", arguments: {} } };
    const headers = new Headers({ "content-type": "application/json", accept: "application/json, text/event-stream" });
    const answer = await oauth.protectedResourceRequest(tokens.access_token, "POST", new URL(`${server.url}/mcp`), headers, JSON.stringify(call), { ...insecure, DPoP });
    expect(answer.status).toBe(200);
    const result = (await answer.json()) as { result: { structuredContent: { user: { username: string } }; isError?: boolean } };
    expect(result.result.isError).toBeFalsy();
    expect(result.result.structuredContent.user.username).toBe("dora");

    const without = await fetch(`${server.url}/mcp`, { method: "POST", headers: { ...Object.fromEntries(headers), authorization: `DPoP ${tokens.access_token}` }, body: JSON.stringify(call) });
    expect(without.status).toBe(401);
    expect(without.headers.get("www-authenticate")).toMatch(/^DPoP error="invalid_dpop_proof".*resource_metadata=/);
  });

  it("an app set to require DPoP gets no token without a proof, and a bound one with", async () => {
    const updated = await cliJson<{ require_dpop: boolean }>(server.databaseUrl, ["apps", "update", api.clientId, "--require-dpop"]);
    expect(updated.require_dpop).toBe(true);
    // The change channel drops the cached client as the change commits.
    let refused: unknown;
    for (let i = 0; i < 20 && !refused; i++) refused = await clientCredentials(undefined).then(() => undefined, (error: unknown) => error);
    expect(refused).toMatchObject({ error: "invalid_grant" });
    const key = await newKey();
    const { answer, paths } = await answeredBy(server, () => clientCredentials(key));
    expect(paths).toEqual({ client_credentials_fast: 1 });
    expect(answer.token_type).toBe("dpop");
    await cliJson(server.databaseUrl, ["apps", "update", api.clientId, "--no-require-dpop"]);
  });
});

describe("DPoP with server nonces (DPOP_NONCE=1)", () => {
  let nonced: TestServer;
  let nas: oauth.AuthorizationServer;
  let app: { clientId: string; clientSecret: string };

  beforeAll(async () => {
    nonced = await startServer({ seed: false, env: { DPOP_NONCE: "1" } });
    app = (await createTestApp(nonced.databaseUrl, { type: "api", scopes: ["svc:chat.read"] })) as typeof app;
    await createTestUser(nonced.databaseUrl, { handle: "dora", password: PASSWORD });
    const issuer = new URL(nonced.issuer);
    nas = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  }, 300_000);

  afterAll(async () => {
    await nonced?.stop();
  });

  it("a proof without the server's nonce is answered use_dpop_nonce with one; the retry carries it, at the token endpoint and the API", async () => {
    const key = await newKey();
    const DPoP = oauth.DPoP({}, key.keyPair);
    const request = () => oauth.clientCredentialsGrantRequest(nas, { client_id: app.clientId }, oauth.ClientSecretPost(app.clientSecret), new URLSearchParams(), { ...insecure, DPoP });
    const first = await request();
    expect(first.status).toBe(400);
    expect(first.headers.get("dpop-nonce")).toBeTruthy();
    await expect(oauth.processClientCredentialsResponse(nas, { client_id: app.clientId }, first)).rejects.toSatisfy(oauth.isDPoPNonceError);
    // The retry (oauth4webapi keeps the nonce in its handle) goes to the fast path.
    const { answer, paths } = await answeredBy(nonced, request);
    expect(paths).toEqual({ client_credentials_fast: 1 });
    const tokens = await oauth.processClientCredentialsResponse(nas, { client_id: app.clientId }, answer);
    expect(tokens.token_type).toBe("dpop");

    // The API accepts the same nonce (one construction for the sign-in service and the API).
    const read = () => oauth.protectedResourceRequest(tokens.access_token, "GET", new URL(`${nonced.url}/api/v1/users/dora`), new Headers(), null, { ...insecure, DPoP });
    expect((await read()).status).toBe(200);
    // A proof without a nonce is answered use_dpop_nonce with a fresh one.
    const stale = await fetch(`${nonced.url}/api/v1/users/dora`, {
      headers: { authorization: `DPoP ${tokens.access_token}`, dpop: await proof(key, { htm: "GET", htu: `${nonced.url}/api/v1/users/dora`, accessToken: tokens.access_token }) },
    });
    expect(stale.status).toBe(401);
    expect(stale.headers.get("www-authenticate")).toMatch(/^DPoP error="use_dpop_nonce"/);
    expect(stale.headers.get("dpop-nonce")).toBeTruthy();
  });
});
