import * as oauth from "oauth4webapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliJson } from "../helpers/cli";
import { query } from "../helpers/db";
import { completeSignIn, CookieJar, createTestApp, createTestUser, jarFetch } from "../helpers/oidc";
import { startServer, type TestServer } from "../helpers/server";

/**
 * Pushed authorization requests (RFC 9126, issue 42), with panva's oauth4webapi as the client:
 * discovery names the endpoint at Keycloak's path, a login client pushes its request and sends the
 * browser with the request_uri alone, the hosted pages and the code exchange work as for a plain
 * request, a request_uri works once, a pushed request's redirect_uri must be registered, and an app
 * set to require PAR (`apps update --require-par`, or its settings page) refuses a plain request.
 */
const PASSWORD = "par-password-1";
const REDIRECT = "http://127.0.0.1:9/callback";
const insecure = { [oauth.allowInsecureRequests]: true } as const;

let server: TestServer;
let as: oauth.AuthorizationServer;
let clientId: string;

beforeAll(async () => {
  // With Next: the hosted login page is looked at, as a browser gets it.
  server = await startServer({ next: true, seed: false });
  await createTestUser(server.databaseUrl, { handle: "pia", password: PASSWORD, displayName: "Pia Pushed" });
  ({ clientId } = await createTestApp(server.databaseUrl, { type: "login", name: "Pushed Planner", scopes: ["svc:chat.read"], redirectUris: [REDIRECT] }));
  const issuer = new URL(server.issuer);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
});

afterAll(async () => {
  await server?.stop();
});

/** Pushes a code + PKCE request for `clientId`; its request_uri, expiry and verifier. */
async function push(extra: Record<string, string> = {}): Promise<{ requestUri: string; expiresIn: number; verifier: string }> {
  const verifier = oauth.generateRandomCodeVerifier();
  const params = new URLSearchParams({
    response_type: "code",
    redirect_uri: REDIRECT,
    scope: "openid svc:chat.read",
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    ...extra,
  });
  const response = await oauth.pushedAuthorizationRequest(as, { client_id: clientId }, oauth.None(), params, insecure);
  const { request_uri, expires_in } = await oauth.processPushedAuthorizationResponse(as, { client_id: clientId }, response);
  return { requestUri: request_uri, expiresIn: expires_in, verifier };
}

function authorizeWith(requestUri: string): string {
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({ client_id: clientId, request_uri: requestUri }).toString();
  return url.href;
}

describe("pushed authorization requests", () => {
  it("are in the discovery document, at Keycloak's path, optional by default", () => {
    expect(as.pushed_authorization_request_endpoint).toBe(`${server.issuer}/protocol/openid-connect/ext/par/request`);
    // Optional for every client unless its app requires it (absent means false, RFC 9126 §5).
    expect(as.require_pushed_authorization_requests ?? false).toBe(false);
  });

  it("a login client pushes its request and signs the person in with the request_uri alone; the request_uri works once", async () => {
    const { requestUri, expiresIn } = await push();
    expect(requestUri).toMatch(/^urn:ietf:params:oauth:request_uri:/);
    expect(expiresIn).toBeGreaterThan(0);
    expect(expiresIn).toBeLessThanOrEqual(600);
    // Stored under its digest, like codes and tokens: the table never holds a usable request_uri.
    const handle = requestUri.split(":").pop()!;
    const stored = await query<{ id: string; payload: string }>(server.databaseUrl, `SELECT id, payload::text FROM "OidcModel" WHERE kind = 'PushedAuthorizationRequest'`);
    expect(stored.length).toBeGreaterThan(0);
    for (const row of stored) {
      expect(row.id).toMatch(/^sha256:/);
      expect(row.payload).not.toContain(handle);
    }

    // The hosted login page, reached with a request_uri, names the app as for a plain request.
    const jar = new CookieJar();
    const first = await jarFetch(jar, authorizeWith(requestUri), { redirect: "manual" });
    const interaction = new URL(first.headers.get("location")!, server.url);
    expect(interaction.pathname).toMatch(/^\/interaction\/[A-Za-z0-9_-]+$/);
    const page = await jarFetch(jar, interaction.href);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Pushed Planner");

    // A sign-in from another pushed request, to the code and the tokens.
    const second = await push();
    const signedIn = await completeSignIn(server, authorizeWith(second.requestUri), { handle: "pia", password: PASSWORD, redirectUri: REDIRECT });
    const params = oauth.validateAuthResponse(as, { client_id: clientId }, signedIn.callback, oauth.expectNoState);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      { client_id: clientId },
      await oauth.authorizationCodeGrantRequest(as, { client_id: clientId }, oauth.None(), params, REDIRECT, second.verifier, insecure),
    );
    expect(tokens.scope?.split(" ").sort()).toEqual(["openid", "svc:chat.read"]);
    expect(oauth.getValidatedIdTokenClaims(tokens)?.sub).toBeDefined();

    // Used once: the same request_uri again is refused.
    const again = await jarFetch(new CookieJar(), authorizeWith(second.requestUri), { redirect: "manual" });
    expect(again.status).toBe(400);
    expect(await again.text()).toMatch(/request_uri/i);
  });

  it("a pushed request's redirect_uri must be registered", async () => {
    await expect(push({ redirect_uri: "https://elsewhere.example/callback" })).rejects.toMatchObject({
      error: "invalid_request",
      error_description: expect.stringMatching(/redirect_uri/),
    });
  });

  it("an app set to require PAR refuses a plain authorization request and takes a pushed one", async () => {
    const updated = await cliJson<{ require_par: boolean }>(server.databaseUrl, ["apps", "update", clientId, "--require-par"]);
    expect(updated.require_par).toBe(true);
    const verifier = oauth.generateRandomCodeVerifier();
    const plain = new URL(as.authorization_endpoint!);
    plain.search = new URLSearchParams({
      client_id: clientId,
      response_type: "code",
      redirect_uri: REDIRECT,
      scope: "openid",
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
    }).toString();
    // The change channel drops the sign-in service's cached client as the change commits.
    const location = async () => new URL((await fetch(plain, { redirect: "manual" })).headers.get("location") ?? "about:blank", server.url);
    let back = await location();
    for (let i = 0; i < 20 && !back.searchParams.has("error"); i++) back = await location();
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get("error")).toBe("invalid_request");
    expect(back.searchParams.get("error_description")).toMatch(/Pushed Authorization Request must be used/i);

    const { requestUri } = await push();
    const pushed = await fetch(authorizeWith(requestUri), { redirect: "manual" });
    expect(new URL(pushed.headers.get("location")!, server.url).pathname).toMatch(/^\/interaction\//);

    const off = await cliJson<{ require_par: boolean }>(server.databaseUrl, ["apps", "update", clientId, "--no-require-par"]);
    expect(off.require_par).toBe(false);
    let plainAgain = await location();
    for (let i = 0; i < 20 && plainAgain.searchParams.has("error"); i++) plainAgain = await location();
    expect(plainAgain.pathname).toMatch(/^\/interaction\//);
  });

  it("an API client cannot require PAR: it has no sign-in to push", async () => {
    const api = await createTestApp(server.databaseUrl, { type: "api", scopes: ["svc:chat.read"] });
    await expect(cliJson(server.databaseUrl, ["apps", "update", api.clientId, "--require-par"])).rejects.toThrow(/login clients only/);
  });
});
