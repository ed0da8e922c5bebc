import { decodeJwt } from "jose";
import * as client from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type Api } from "../api/support";
import { authorize, createTestApp, createTestUser, refreshTokens, tokenRequest } from "../helpers/oidc";
import { answeredBy } from "../helpers/server";

/**
 * From a 401 to the sign-in service, the way an MCP client (or any OAuth client that knows only the
 * API's address) finds it: the API's `WWW-Authenticate` names its protected resource metadata
 * (RFC 9728), which names the issuer, whose metadata is at the RFC 8414 path-inserted address. And
 * tokens bound to the one resource they were asked for (RFC 8707): the API or the MCP server.
 */
let api: Api;

beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api?.stop();
});

/** The `name="value"` parameters of a `WWW-Authenticate: Bearer …` header. */
function challenge(header: string | null): Record<string, string> {
  expect(header).toMatch(/^Bearer /);
  return Object.fromEntries([...header!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
}

const origin = () => new URL(api.server.url).origin;
const metadataUrl = () => `${origin()}/.well-known/oauth-protected-resource/api/v1`;

describe("protected resource metadata (RFC 9728)", () => {
  it("describes the API: its identifier, the issuer, its scopes, bearer in the header, its docs; any origin may read it", async () => {
    const res = await fetch(metadataUrl(), { headers: { origin: "https://inspector.example" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({
      resource: api.server.apiUrl,
      authorization_servers: [api.server.issuer],
      scopes_supported: expect.arrayContaining(["svc:chat.read", "svc:chat.write", "svc:directory.read", "openid", "offline_access"]),
      bearer_methods_supported: ["header"],
      resource_name: expect.any(String),
      resource_documentation: `${origin()}/docs/api-reference`,
      // RFC 9449: tokens may be DPoP-bound; bearer tokens stay good.
      dpop_signing_alg_values_supported: ["ES256", "Ed25519", "EdDSA"],
      dpop_bound_access_tokens_required: false,
    });
    // RFC 9728 §3.3: the resource it names is the one whose address it was fetched from.
    expect(new URL(metadataUrl()).pathname.replace("/.well-known/oauth-protected-resource", "")).toBe(new URL(body.resource as string).pathname);

    const preflight = await fetch(metadataUrl(), { method: "OPTIONS", headers: { origin: "https://inspector.example", "access-control-request-method": "GET" } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect((await fetch(metadataUrl(), { method: "POST" })).status).toBe(405);
  });

  it("every 401 of the API names it, and a missing scope's 403 names the scope to ask for", async () => {
    const none = await api.call("/me");
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe("unauthorized");
    expect(challenge(none.headers.get("www-authenticate"))).toEqual({ realm: "api", resource_metadata: metadataUrl() });

    const bad = await api.call("/me", { token: "not-a-token" });
    expect(bad.status).toBe(401);
    expect(challenge(bad.headers.get("www-authenticate"))).toEqual({ error: "invalid_token", resource_metadata: metadataUrl() });

    // Readable by a browser client: the header is exposed across origins.
    expect(bad.headers.get("access-control-expose-headers")).toContain("WWW-Authenticate");

    const token = await api.token({ scopes: ["svc:chat.read"], user: "alice" });
    const narrow = await api.call("/global-chat/messages", { method: "POST", token, body: { text: "step up" } });
    expect(narrow.status).toBe(403);
    // The SPEC's envelope as before; the header adds what a client needs to step up.
    expect(narrow.body).toEqual({ error: { code: "insufficient_scope", message: expect.any(String) } });
    expect(challenge(narrow.headers.get("www-authenticate"))).toEqual({
      error: "insufficient_scope",
      scope: "svc:chat.write",
      resource_metadata: metadataUrl(),
    });
  });
});

describe("authorization server metadata (RFC 8414)", () => {
  it("is found from the 401 alone: resource metadata → issuer → its path-inserted metadata, as openid-client's OAuth discovery reads it", async () => {
    const unauthorized = await api.call("/me");
    const resourceMetadata = (await (await fetch(challenge(unauthorized.headers.get("www-authenticate")).resource_metadata!)).json()) as {
      authorization_servers: string[];
    };
    const issuer = new URL(resourceMetadata.authorization_servers[0]!);
    expect(issuer.href).toBe(api.server.issuer);

    const direct = await fetch(`${issuer.origin}/.well-known/oauth-authorization-server${issuer.pathname}`);
    expect(direct.status).toBe(200);
    const metadata = (await direct.json()) as Record<string, unknown>;
    expect(metadata.issuer).toBe(api.server.issuer);
    expect(metadata.code_challenge_methods_supported).toEqual(["S256"]);
    expect(metadata.authorization_response_iss_parameter_supported).toBe(true);
    expect(metadata.token_endpoint_auth_methods_supported).toContain("none");
    expect(metadata.response_types_supported).toEqual(["code"]);
    // The same document as OpenID discovery's.
    const openid = (await (await fetch(`${api.server.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(metadata).toEqual(openid);

    // openid-client's RFC 8414 discovery (algorithm "oauth2") builds the path-inserted address itself.
    const config = await client.discovery(issuer, "any-client", undefined, client.None(), {
      algorithm: "oauth2",
      execute: [client.allowInsecureRequests],
    });
    expect(config.serverMetadata().issuer).toBe(api.server.issuer);
    expect(config.serverMetadata().token_endpoint).toBe(openid.token_endpoint);
  });

  it("is not answered at an address with another issuer's path", async () => {
    const res = await fetch(`${origin()}/.well-known/oauth-authorization-server/realms/other`);
    expect(res.status).toBe(404);
  });
});

describe("tokens bound to one resource (RFC 8707)", () => {
  const mcp = () => `${origin()}/mcp`;

  it("the MCP server has its own metadata, naming itself", async () => {
    const res = await fetch(`${origin()}/.well-known/oauth-protected-resource/mcp`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ resource: mcp(), authorization_servers: [api.server.issuer], bearer_methods_supported: ["header"] });
  });

  it("client credentials: resource=/mcp gives a token for it alone, which the API refuses; without resource, the API's as before (the fast path)", async () => {
    const app = await createTestApp(api.server.databaseUrl, { type: "api", scopes: ["svc:chat.read"] });
    const form = { grant_type: "client_credentials", client_id: app.clientId, client_secret: app.clientSecret! };

    const forMcp = await answeredBy(api.server, () => tokenRequest(api.server, { ...form, resource: mcp() }));
    expect(forMcp.answer.status).toBe(200);
    // The fast path answers only the plain form: a resource goes to oidc-provider, which binds it.
    expect(forMcp.paths).toEqual({ oidc_provider: 1 });
    const mcpToken = String(forMcp.answer.body.access_token);
    expect(decodeJwt(mcpToken).aud).toBe(mcp());
    const refused = await api.call("/global-chat/messages", { token: mcpToken });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe("invalid_token");

    const plain = await answeredBy(api.server, () => tokenRequest(api.server, form));
    expect(plain.paths).toEqual({ client_credentials_fast: 1 });
    const apiToken = String(plain.answer.body.access_token);
    expect(decodeJwt(apiToken).aud).toBe(api.server.apiUrl);
    expect((await api.call("/global-chat/messages", { token: apiToken })).status).toBe(200);

    // Naming the API explicitly is the same as naming nothing; another resource is refused.
    const named = await tokenRequest(api.server, { ...form, resource: api.server.apiUrl });
    expect(decodeJwt(String(named.body.access_token)).aud).toBe(api.server.apiUrl);
    const other = await tokenRequest(api.server, { ...form, resource: "https://elsewhere.example/api" });
    expect(other.status).toBe(400);
    expect(other.body.error).toBe("invalid_target");
  });

  it("authorization code: the resource asked for at sign-in binds the access token and every refreshed one", async () => {
    const redirect = "http://localhost:9/callback";
    await createTestUser(api.server.databaseUrl, { handle: "resourceful", password: "resource-password", displayName: "Res Ourceful" });
    const app = await createTestApp(api.server.databaseUrl, { type: "login", scopes: ["svc:chat.read"], redirectUris: [redirect] });
    const signedIn = await authorize(api.server, {
      handle: "resourceful",
      password: "resource-password",
      clientId: app.clientId,
      redirectUri: redirect,
      scope: "openid",
      extraParams: { resource: mcp() },
    });
    const tokens = await tokenRequest(api.server, {
      grant_type: "authorization_code",
      client_id: app.clientId,
      code: signedIn.code!,
      redirect_uri: redirect,
      code_verifier: signedIn.verifier,
      resource: mcp(),
    });
    expect(tokens.status).toBe(200);
    expect(decodeJwt(String(tokens.body.access_token)).aud).toBe(mcp());
    expect((await api.call("/global-chat/messages", { token: String(tokens.body.access_token) })).status).toBe(401);

    const refreshed = await answeredBy(api.server, () => refreshTokens(api.server, app.clientId, String(tokens.body.refresh_token)));
    expect(refreshed.answer.status).toBe(200);
    // The refresh fast path answers API tokens only: this one went through oidc-provider, and kept its resource.
    expect(refreshed.paths).toEqual({ oidc_provider: 1 });
    expect(decodeJwt(String(refreshed.answer.body.access_token)).aud).toBe(mcp());
  });
});
