import { auth, extractWWWAuthenticateParams, type AddClientAuthentication } from "@modelcontextprotocol/sdk/client/auth.js";
import { createPrivateKeyJwtAuth } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { decodeJwt, exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, TEST_PASSWORD, type Api } from "../api/support";
import { startAgentWebsite, TestAgent, type AgentWebsite, type Served } from "../helpers/agents";
import { cliJson, runCli } from "../helpers/cli";
import { query } from "../helpers/db";
import { makeLogo } from "../helpers/images";
import { completeSignIn, CookieJar } from "../helpers/oidc";
import { startServer, type TestServer } from "../helpers/server";

/**
 * AI agents sign in with the official MCP TypeScript SDK's client auth (issue 40): the agent's
 * client ID is the https URL of its Client ID Metadata Document, served here over TLS with a
 * self-signed certificate the server trusts through NODE_EXTRA_CA_CERTS (CLIENT_METADATA_ALLOW_PRIVATE
 * lets it fetch from this machine). The SDK discovers the sign-in service from a 401, the person
 * signs in and allows it (the hosted pages' forms, posted as a browser does), and the token is
 * for the one resource it asked for. Then the admins' rules: read scopes unless the domain is
 * trusted, suspension and blocks ending tokens at once, and every kind of bad document refused
 * with a clear page.
 */

const CALLBACK = "http://127.0.0.1:9/callback";

/** The agents' web server (tests/helpers/agents.ts): path → answer, set per test. */
let site: AgentWebsite;
let documents: Map<string, Served>;
let docOrigin: string;

let api: Api;
let server: TestServer;
let person: { handle: string; id: number };

function agentUrl(name: string): string {
  return `${docOrigin}/agents/${name}/client.json`;
}

/** Serves a valid metadata document for `name` (with `extra` fields merged in) and returns its client ID. */
function publishAgent(name: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): string {
  return site.publish(name, CALLBACK, extra, headers);
}

/**
 * The whole flow as an MCP client runs it: auth() discovers and sends the person to the
 * authorization URL; the person signs in and allows; auth() again with the code gets the tokens.
 */
async function connectAgent(
  clientId: string | undefined,
  options: { serverUrl: string; resourceMetadataUrl?: URL; scope?: string; jar?: CookieJar; target?: TestServer; signWith?: AddClientAuthentication },
): Promise<{ tokens: OAuthTokens; agent: TestAgent; consentShown: boolean; authorizationUrl: URL }> {
  const target = options.target ?? server;
  const agent = new TestAgent(clientId, CALLBACK);
  agent.addClientAuthentication = options.signWith;
  const first = await auth(agent, { serverUrl: options.serverUrl, resourceMetadataUrl: options.resourceMetadataUrl, scope: options.scope });
  expect(first).toBe("REDIRECT");
  const authorizationUrl = agent.authorizationUrl!;
  const signedIn = await completeSignIn(target, authorizationUrl.href, {
    handle: person.handle,
    password: TEST_PASSWORD,
    redirectUri: CALLBACK,
    jar: options.jar,
  });
  expect(signedIn.callback.searchParams.get("iss")).toBe(target.issuer);
  const code = signedIn.code;
  expect(code, signedIn.callback.href).toBeTruthy();
  expect(await auth(agent, { serverUrl: options.serverUrl, resourceMetadataUrl: options.resourceMetadataUrl, authorizationCode: code! })).toBe("AUTHORIZED");
  return { tokens: agent.tokens()!, agent, consentShown: signedIn.consentShown, authorizationUrl };
}

/** The error page the authorization endpoint shows for `clientId` (no redirect: the client is not trusted). */
async function authorizationError(target: TestServer, clientId: string): Promise<{ status: number; text: string }> {
  const url = new URL(`${target.issuer}/protocol/openid-connect/auth`);
  url.search = new URLSearchParams({
    client_id: clientId,
    response_type: "code",
    redirect_uri: CALLBACK,
    scope: "openid",
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    code_challenge_method: "S256",
  }).toString();
  const res = await fetch(url, { redirect: "manual" });
  const text = (await res.text()).replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&");
  return { status: res.status, text };
}

beforeAll(async () => {
  site = await startAgentWebsite();
  ({ documents, origin: docOrigin } = site);
  api = await startApi({ env: { CLIENT_METADATA_ALLOW_PRIVATE: "1", NODE_EXTRA_CA_CERTS: site.certFile } });
  server = api.server;
  person = await api.createUser();
});

afterAll(async () => {
  await api?.stop();
  await site?.close();
});

describe("an MCP client signs a person in with its client ID metadata document", () => {
  it("discovers the sign-in service from the API's 401, and the metadata says agents need no registration", async () => {
    const res = await fetch(`${server.apiUrl}/me`);
    expect(res.status).toBe(401);
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(res);
    expect(resourceMetadataUrl?.href).toBe(`${new URL(server.url).origin}/.well-known/oauth-protected-resource/api/v1`);
    const metadata = (await (await fetch(`${new URL(server.url).origin}/.well-known/oauth-authorization-server/realms/platform`)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: server.issuer,
      client_id_metadata_document_supported: true,
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
      token_endpoint_auth_methods_supported: expect.arrayContaining(["none"]),
    });
    // Dynamic registration is off unless DYNAMIC_REGISTRATION=agents.
    expect(metadata.registration_endpoint).toBeUndefined();
  });

  it("from the 401 to a token for the API: consent once, aud the API, the agent listed as an agent client", async () => {
    const clientId = publishAgent("reader");
    const res = await fetch(`${server.apiUrl}/me`);
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(res);
    const { tokens, consentShown, authorizationUrl } = await connectAgent(clientId, { serverUrl: server.apiUrl, resourceMetadataUrl });
    expect(consentShown).toBe(true);
    expect(authorizationUrl.searchParams.get("client_id")).toBe(clientId);
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(decodeJwt(tokens.access_token)).toMatchObject({ aud: server.apiUrl, client_id: clientId, sub: String(person.id) });
    // An unreviewed agent asked for everything the resource lists and got the read scopes only.
    const granted = tokens.scope!.split(" ");
    expect(granted).toContain("svc:chat.read");
    expect(granted).not.toContain("svc:chat.write");
    const me = await fetch(`${server.apiUrl}/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(me.status).toBe(200);
    // Quotas as for any app: the agent's own, and the person's share of it (RateLimit headers).
    expect(me.headers.get("ratelimit-policy")).toMatch(/^"app";q=\d+;w=60, "user";q=\d+;w=60$/);
    const appRemaining = Number(/"app";r=(\d+)/.exec(me.headers.get("ratelimit") ?? "")?.[1]);
    const other = await connectAgent(publishAgent("reader-neighbour"), { serverUrl: server.apiUrl });
    const neighbour = await fetch(`${server.apiUrl}/me`, { headers: { authorization: `Bearer ${other.tokens.access_token}` } });
    // Another agent's quota is its own: its first call leaves more than this agent's second would.
    expect(Number(/"app";r=(\d+)/.exec(neighbour.headers.get("ratelimit") ?? "")?.[1])).toBe(appRemaining);

    const shown = await cliJson<{ type: string; status: string; owner: string }>(server.databaseUrl, ["apps", "show", clientId]);
    expect(shown).toMatchObject({ type: "agent", status: "approved" });
    const listed = await cliJson<{ client_id: string; domain: string; status: string; people: number; last_seen_at: number | null }[]>(server.databaseUrl, ["agents", "list"]);
    expect(listed).toContainEqual({ client_id: clientId, domain: "localhost", status: "approved", people: 1, last_seen_at: expect.any(Number) });
  });

  it("a token for the MCP server has aud {APP_URL}/mcp: the API refuses it, and the API's token is not one for /mcp", async () => {
    const clientId = publishAgent("mcp-user");
    const { tokens } = await connectAgent(clientId, { serverUrl: `${new URL(server.url).origin}/mcp` });
    const mcp = `${new URL(server.url).origin}/mcp`;
    expect(decodeJwt(tokens.access_token).aud).toBe(mcp);
    const refused = await fetch(`${server.apiUrl}/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(refused.status).toBe(401);
    // The refresh token keeps the resource it was issued for.
    const refreshed = await fetch(`${server.issuer}/protocol/openid-connect/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", client_id: clientId, refresh_token: tokens.refresh_token! }),
    });
    expect(refreshed.status).toBe(200);
    expect(decodeJwt(((await refreshed.json()) as { access_token: string }).access_token).aud).toBe(mcp);
  });

  it("a read-only agent's svc:chat.write is dropped; once its domain is trusted the same request gets it", async () => {
    const clientId = publishAgent("writer");
    const asked = "openid svc:chat.read svc:chat.write";
    const before = await connectAgent(clientId, { serverUrl: server.apiUrl, scope: asked });
    expect(before.tokens.scope!.split(" ").sort()).toEqual(["openid", "svc:chat.read"]);
    const post = await fetch(`${server.apiUrl}/global-chat/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${before.tokens.access_token}`, "content-type": "application/json" },
      body: JSON.stringify({ text: "hello from an agent" }),
    });
    expect(post.status).toBe(403);
    expect(post.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
    expect(post.headers.get("www-authenticate")).toContain('scope="svc:chat.write"');

    expect(await cliJson(server.databaseUrl, ["agents", "trust", "localhost"])).toEqual({ kind: "domain", value: "localhost", policy: "trusted" });
    try {
      const after = await connectAgent(clientId, { serverUrl: server.apiUrl, scope: asked });
      expect(after.tokens.scope!.split(" ")).toContain("svc:chat.write");
      const posted = await fetch(`${server.apiUrl}/global-chat/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${after.tokens.access_token}`, "content-type": "application/json" },
        body: JSON.stringify({ text: "hello from a trusted agent" }),
      });
      expect(posted.status).toBe(201);
    } finally {
      await cliJson(server.databaseUrl, ["agents", "untrust", "localhost"]);
    }
  });
});

/** Polls the API with `token` until it answers 401; returns how long that took after `since`. */
async function untilRefused(token: string, since: number): Promise<number> {
  for (;;) {
    const res = await fetch(`${server.apiUrl}/me`, { headers: { authorization: `Bearer ${token}` } });
    if (res.status === 401) return performance.now() - since;
    expect(res.status).toBe(200);
    if (performance.now() - since > 5_000) throw new Error("the token still works 5 s later");
  }
}

describe("the admins' control over agents", () => {
  it("suspending an agent ends its tokens within 250 ms and its sign-ins show why; resuming lets it sign in again", async () => {
    const clientId = publishAgent("suspended");
    const { tokens } = await connectAgent(clientId, { serverUrl: server.apiUrl });
    const run = await runCli(server.databaseUrl, ["agents", "suspend", clientId, "--reason", "Posting spam"]);
    expect(run.code, run.stderr).toBe(0);
    const done = performance.now();
    expect(await untilRefused(tokens.access_token, done)).toBeLessThan(250);
    const page = await authorizationError(server, clientId);
    expect(page.status).toBe(400);
    expect(page.text).toContain("This AI agent is suspended: Posting spam");
    expect((await runCli(server.databaseUrl, ["agents", "resume", clientId])).code).toBe(0);
    const again = await connectAgent(clientId, { serverUrl: server.apiUrl });
    expect((await fetch(`${server.apiUrl}/me`, { headers: { authorization: `Bearer ${again.tokens.access_token}` } })).status).toBe(200);
  });

  it("blocking the agent's domain ends its tokens within 250 ms; unblocking resumes it", async () => {
    const clientId = publishAgent("blocked");
    const { tokens } = await connectAgent(clientId, { serverUrl: server.apiUrl });
    const run = await runCli(server.databaseUrl, ["agents", "block", "localhost"]);
    expect(run.code, run.stderr).toBe(0);
    expect(await untilRefused(tokens.access_token, performance.now())).toBeLessThan(250);
    expect((await authorizationError(server, clientId)).text).toContain("blocked by the platform");
    // A new agent on the domain cannot start either.
    expect((await authorizationError(server, publishAgent("blocked-newcomer"))).text).toContain("blocked by the platform");
    expect((await runCli(server.databaseUrl, ["agents", "unblock", "localhost"])).code).toBe(0);
    const shown = await cliJson<{ status: string }>(server.databaseUrl, ["agents", "show", clientId]);
    expect(shown.status).toBe("approved");
    await connectAgent(clientId, { serverUrl: server.apiUrl });
  });

  it("blocking one agent's URL leaves the others on its domain alone", async () => {
    const bad = publishAgent("one-bad");
    const good = publishAgent("one-good");
    await connectAgent(good, { serverUrl: server.apiUrl });
    expect((await runCli(server.databaseUrl, ["agents", "block", bad])).code).toBe(0);
    expect((await authorizationError(server, bad)).text).toContain("blocked by the platform");
    await connectAgent(good, { serverUrl: server.apiUrl });
    expect((await runCli(server.databaseUrl, ["agents", "unblock", bad])).code).toBe(0);
  });
});

describe("metadata documents that are refused, each with a clear error page", () => {
  const refusals: [string, () => string, RegExp][] = [
    ["a document naming another client_id", () => publishAgent("impostor", { client_id: "https://claude.ai/oauth/client.json" }), /names another client_id/],
    ["a shared-secret auth method", () => publishAgent("secretive", { token_endpoint_auth_method: "client_secret_basic" }), /holds no shared secret/],
    ["a client_secret in the document", () => publishAgent("leaky", { client_secret: "s3cr3t" }), /carries a client_secret/],
    ["no redirect URIs", () => publishAgent("lost", { redirect_uris: [] }), /redirect_uris lists at least one redirect URI/],
    ["private_key_jwt without a jwks_uri", () => publishAgent("keyless", { token_endpoint_auth_method: "private_key_jwt" }), /private_key_jwt without a jwks_uri/],
    [
      "a jwks_uri that publishes a private key",
      () => {
        documents.set("/agents/careless/jwks.json", {
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ keys: [{ kty: "EC", crv: "P-256", x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0", d: "jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI" }] }),
        });
        return publishAgent("careless", { token_endpoint_auth_method: "private_key_jwt", jwks_uri: `${docOrigin}/agents/careless/jwks.json` });
      },
      /includes a private key/,
    ],
    [
      "a body over 5 KiB",
      () => publishAgent("verbose", { client_name: "Verbose", software_statement_notes: "x".repeat(6000) }),
      /larger than 5 KiB/,
    ],
    [
      "a redirect to the document elsewhere",
      () => {
        const clientId = agentUrl("moved");
        documents.set(new URL(clientId).pathname, { status: 302, headers: { location: agentUrl("reader") }, body: "" });
        return clientId;
      },
      /answered a redirect \(302\)/,
    ],
    ["a document that is not there", () => agentUrl("missing"), /answered 404 instead of 200/],
    ["a client ID without a path", () => docOrigin, /has a path/],
    ["a client ID with a fragment", () => `${agentUrl("frag")}#x`, /no fragment/],
  ];
  for (const [what, clientId, message] of refusals) {
    it(`${what}`, async () => {
      const page = await authorizationError(server, clientId());
      expect(page.status).toBe(400);
      expect(page.text).toMatch(message);
      expect(page.text).not.toMatch(/Internal Server Error|at .*\.ts:\d+/);
    });
  }

  it("without CLIENT_METADATA_ALLOW_PRIVATE, a document on a private or loopback address, or over http, is refused before any request", async () => {
    const strict = await startServer({ seed: true, env: { NODE_EXTRA_CA_CERTS: site.certFile } });
    try {
      const clientId = publishAgent("private");
      const before = (await runCli(strict.databaseUrl, ["agents", "list", "--json"])).stdout;
      const loopback = await authorizationError(strict, clientId);
      expect(loopback.status).toBe(400);
      expect(loopback.text).toMatch(/loopback name|loopback or private address/);
      const literal = await authorizationError(strict, clientId.replace("localhost", "127.0.0.1"));
      expect(literal.text).toMatch(/address 127\.0\.0\.1 is a loopback or private address/);
      expect((await authorizationError(strict, clientId.replace("https:", "http:"))).text).toMatch(/is an https URL/);
      expect((await authorizationError(strict, "https://169.254.169.254/latest/meta-data/client.json")).text).toMatch(/metadata address/);
      expect(JSON.parse(before)).toEqual([]);
    } finally {
      await strict.stop();
    }
  });
});

describe("the document is fetched once and kept", () => {
  it("a cached document serves many sign-ins without a fetch; two first sign-ins at once fetch it once", async () => {
    const clientId = publishAgent("popular");
    const fetches = site.countFetches(clientId);
    const pages = await Promise.all([authorizationError(server, clientId), authorizationError(server, clientId), authorizationError(server, clientId)]);
    for (const page of pages) expect(page.status).toBe(303);
    await connectAgent(clientId, { serverUrl: server.apiUrl, jar: new CookieJar() });
    expect(fetches()).toBe(1);
  });
});

describe("an agent's logo is a claim shown from the platform's origin", () => {
  /** Serves `body` at /agents/<name>/logo.png and returns its URL. */
  function publishLogo(name: string, body: Buffer, contentType = "image/png"): string {
    const url = `${docOrigin}/agents/${name}/logo.png`;
    documents.set(new URL(url).pathname, { headers: { "content-type": contentType }, body });
    return url;
  }
  const storedLogo = async (clientId: string) =>
    (await query<{ logo: string | null }>(server.databaseUrl, `SELECT logo FROM "Application" WHERE "clientId" = $1`, [clientId]))[0]?.logo;

  // The consent page showing it from /media/logos/<client ID>/… (a Next route): e2e/agents.spec.ts.
  it("copies the document's logo_uri once, checked like an upload, and keeps it under its content hash", async () => {
    const png = await makeLogo("png", { color: "#7c3aed" });
    const logoUri = publishLogo("pictured", png);
    const fetches = site.countFetches(logoUri);
    const clientId = publishAgent("pictured", { logo_uri: logoUri });
    await connectAgent(clientId, { serverUrl: server.apiUrl, jar: new CookieJar() });
    const file = await storedLogo(clientId);
    expect(file).toMatch(/^[0-9a-f]{16}\.png$/);
    const [stored] = await query<{ bytes: Buffer; contentType: string }>(
      server.databaseUrl,
      `SELECT l.bytes, l."contentType" FROM "AppLogo" l JOIN "Application" a ON a.id = l."applicationId" WHERE a."clientId" = $1`,
      [clientId],
    );
    expect(stored?.contentType).toBe("image/png");
    expect(stored?.bytes.equals(png)).toBe(true);
    // A second sign-in uses the copy: the agent's server is not asked again.
    await connectAgent(clientId, { serverUrl: server.apiUrl, jar: new CookieJar() });
    expect(fetches()).toBe(1);
  });

  it("a logo that is not an image, too large or missing is left out, and the agent still signs people in", async () => {
    const cases = {
      html: publishLogo("html-logo", Buffer.from("<!doctype html><script>alert(1)</script>")),
      large: publishLogo("large-logo", await makeLogo("png", { width: 512, height: 512, noise: true })),
      missing: `${docOrigin}/agents/nowhere/logo.png`,
    };
    for (const [name, logoUri] of Object.entries(cases)) {
      const clientId = publishAgent(`logo-${name}`, { logo_uri: logoUri });
      const { tokens } = await connectAgent(clientId, { serverUrl: server.apiUrl, jar: new CookieJar() });
      expect(tokens.access_token, name).toBeTruthy();
      expect(await storedLogo(clientId), name).toBeNull();
    }
  });
});

describe("dynamic registration (RFC 7591) for older MCP clients, with DYNAMIC_REGISTRATION=agents", () => {
  let dcr: TestServer;
  let registrationEndpoint: string;
  /** Registrations this file sent to `dcr` from this address (each counts towards the hourly limit). */
  let sent = 0;
  const register = async (body: unknown, contentType = "application/json") => {
    sent++;
    const res = await fetch(registrationEndpoint, { method: "POST", headers: { "content-type": contentType }, body: JSON.stringify(body) });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    // The same database as `server` (the CLI and the rules are shared); only registration differs.
    dcr = await startServer({ databaseUrl: server.databaseUrl, env: { DYNAMIC_REGISTRATION: "agents" } });
    registrationEndpoint = `${dcr.issuer}/clients-registrations/openid-connect`;
  });
  afterAll(async () => {
    await dcr?.stop();
  });

  it("off by default: no registration_endpoint and nothing answers there", async () => {
    const res = await fetch(`${server.issuer}/clients-registrations/openid-connect`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: [CALLBACK] }),
    });
    expect(res.status).toBe(404);
  });

  it("an MCP client without a metadata document registers, signs a person in and gets read scopes only", async () => {
    const origin = new URL(dcr.url).origin;
    const metadata = (await (await fetch(`${origin}/.well-known/oauth-authorization-server/realms/platform`)).json()) as Record<string, unknown>;
    expect(metadata.registration_endpoint).toBe(registrationEndpoint);
    const openid = (await (await fetch(`${dcr.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(openid.registration_endpoint).toBe(registrationEndpoint);

    sent++;
    const { tokens, agent, consentShown } = await connectAgent(undefined, {
      serverUrl: `${new URL(dcr.url).origin}/api/v1`,
      scope: "openid svc:chat.read svc:chat.write",
      target: dcr,
    });
    const clientId = agent.clientInformation()!.client_id;
    expect(clientId).toMatch(/^agt_[A-Za-z0-9_-]{22}$/);
    expect(consentShown).toBe(true);
    expect(tokens.scope!.split(" ").sort()).toEqual(["openid", "svc:chat.read"]);
    expect(decodeJwt(tokens.access_token)).toMatchObject({ client_id: clientId, aud: dcr.apiUrl });
    expect((await fetch(`${dcr.apiUrl}/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(200);

    // An agent like any other: listed without a domain, shown as type agent, blockable by its client ID.
    const listed = await cliJson<{ client_id: string; domain: string; status: string; people: number }[]>(server.databaseUrl, ["agents", "list"]);
    expect(listed).toContainEqual(expect.objectContaining({ client_id: clientId, domain: "", status: "approved", people: 1 }));
    expect(await cliJson(server.databaseUrl, ["apps", "show", clientId])).toMatchObject({ type: "agent" });
    expect((await runCli(server.databaseUrl, ["agents", "block", clientId])).code).toBe(0);
    const since = performance.now();
    for (;;) {
      const res = await fetch(`${dcr.apiUrl}/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      if (res.status === 401) break;
      expect(performance.now() - since).toBeLessThan(250);
    }
    expect((await authorizationError(dcr, clientId)).text).toContain("blocked by the platform");
    expect((await runCli(server.databaseUrl, ["agents", "unblock", clientId])).code).toBe(0);
  });

  it("answers RFC 7591's information: a public client with the scopes it may have and no secret", async () => {
    const answer = await register({ client_name: "Old agent", redirect_uris: [CALLBACK], scope: "openid svc:chat.read svc:chat.write", client_id: "https://ignored.example/doc" });
    expect(answer.status).toBe(201);
    expect(answer.headers.get("cache-control")).toBe("no-store");
    expect(answer.body).toMatchObject({
      client_id: expect.stringMatching(/^agt_/),
      client_id_issued_at: expect.any(Number),
      client_name: "Old agent",
      redirect_uris: [CALLBACK],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      scope: "openid svc:chat.read",
    });
    expect(answer.body).not.toHaveProperty("client_secret");
  });

  it("refuses a shared secret, a bad redirect URI and a body that is not JSON, each with RFC 7591's error", async () => {
    expect(await register({ redirect_uris: [CALLBACK], token_endpoint_auth_method: "client_secret_basic" })).toMatchObject({
      status: 400,
      body: { error: "invalid_client_metadata", error_description: expect.stringContaining("no shared secret") },
    });
    expect(await register({ redirect_uris: ["http://evil.example/callback"] })).toMatchObject({
      status: 400,
      body: { error: "invalid_redirect_uri", error_description: expect.stringContaining("redirect_uris") },
    });
    expect(await register({ client_name: "No redirect" })).toMatchObject({ status: 400, body: { error: "invalid_redirect_uri" } });
    expect(await register({ redirect_uris: [CALLBACK], token_endpoint_auth_method: "private_key_jwt" })).toMatchObject({
      status: 400,
      body: { error: "invalid_client_metadata", error_description: expect.stringContaining("without a jwks_uri") },
    });
    expect(await register({ redirect_uris: [CALLBACK] }, "text/plain")).toMatchObject({ status: 400, body: { error: "invalid_client_metadata" } });
  });

  it(`one address registers at most 10 clients an hour; the next is 429 with Retry-After`, async () => {
    while (sent < 10) expect((await register({ redirect_uris: [CALLBACK] })).status).toBe(201);
    const over = await register({ redirect_uris: [CALLBACK] });
    expect(over).toMatchObject({ status: 429, body: { error: "rate_limited" } });
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(3000);
  });
});

describe("an agent that signs its token requests (private_key_jwt with its document's jwks_uri)", () => {
  it("signs a person in with a signed assertion; a token request without one is refused, the refresh fast path included", async () => {
    const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
    documents.set("/agents/signer/jwks.json", {
      headers: { "content-type": "application/json", "cache-control": "max-age=3600" },
      body: JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: "signer-1", use: "sig", alg: "ES256" }] }),
    });
    const clientId = publishAgent("signer", { token_endpoint_auth_method: "private_key_jwt", jwks_uri: `${docOrigin}/agents/signer/jwks.json` });
    const signWith = createPrivateKeyJwtAuth({ issuer: clientId, subject: clientId, privateKey: await exportJWK(privateKey), alg: "ES256", audience: server.issuer });
    const { tokens } = await connectAgent(clientId, { serverUrl: server.apiUrl, signWith });
    expect(decodeJwt(tokens.access_token)).toMatchObject({ client_id: clientId, aud: server.apiUrl });

    const tokenEndpoint = `${server.issuer}/protocol/openid-connect/token`;
    const refresh = (extra: Record<string, string>) =>
      fetch(tokenEndpoint, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "refresh_token", client_id: clientId, refresh_token: tokens.refresh_token!, ...extra }),
      });
    // The plain form the refresh fast path answers for public clients: not for this one.
    const unsigned = await refresh({});
    expect(unsigned.status).toBe(401);
    expect(((await unsigned.json()) as { error: string }).error).toBe("invalid_client");
    const params = new URLSearchParams();
    await signWith(new Headers(), params, tokenEndpoint);
    const signed = await refresh(Object.fromEntries(params));
    expect(signed.status).toBe(200);
  });
});
