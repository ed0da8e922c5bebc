import type { IncomingMessage, ServerResponse } from "node:http";
import { env } from "../env";
import { sendJson, sendRaw } from "../http/reply";
import { OIDC_SCOPES, SVC_SCOPE_NAMES } from "../scopes";
import { apiResource, mcpResource } from "./clients";
import { DPOP_SIGNING_ALGS } from "./dpop";

/**
 * How a client that met a 401 finds where to get a token (the discovery an MCP client does, and any
 * OAuth client may): RFC 9728 protected resource metadata for the API and for the MCP server (each
 * names itself, the issuer and the scopes), named by every 401 and scope 403 of the API in
 * `WWW-Authenticate: Bearer resource_metadata="…"`, and RFC 8414 authorization server
 * metadata at the issuer's path-inserted well-known address, which is the sign-in service's own
 * discovery document (oidc-provider's: PKCE with S256, `iss` in authorization responses, `none`
 * among the token endpoint's authentication methods).
 */

const PROTECTED_RESOURCE_PREFIX = "/.well-known/oauth-protected-resource";
const AUTHORIZATION_SERVER_PREFIX = "/.well-known/oauth-authorization-server";

/** RFC 9728 §3.1: the well-known prefix, then the resource's path (served on the resource's own origin). */
function metadataPathOf(resource: string): string {
  return `${PROTECTED_RESOURCE_PREFIX}${new URL(resource).pathname.replace(/\/+$/, "")}`;
}

/** The protected resources, each a token audience of its own (lib/oidc/clients.ts). */
const RESOURCES = {
  api: { identifier: apiResource, name: "Social Platform Developer API", documentation: "/docs/api-reference" },
  mcp: { identifier: mcpResource, name: "Social Platform MCP server", documentation: "/docs" },
} as const;

export type ProtectedResource = keyof typeof RESOURCES;

/** A resource's metadata address, for `WWW-Authenticate` (lib/api/auth.ts). */
export function resourceMetadataUrl(resource: ProtectedResource): string {
  const identifier = RESOURCES[resource].identifier();
  return `${new URL(identifier).origin}${metadataPathOf(identifier)}`;
}

/** RFC 9728 §2: a resource's metadata. */
export function resourceMetadata(resource: ProtectedResource): Record<string, unknown> {
  const config = env();
  const { identifier, name, documentation } = RESOURCES[resource];
  return {
    resource: identifier(),
    authorization_servers: [config.ISSUER],
    scopes_supported: [...SVC_SCOPE_NAMES, ...Object.keys(OIDC_SCOPES)],
    bearer_methods_supported: ["header"],
    resource_name: name,
    resource_documentation: `${config.APP_URL}${documentation}`,
    // RFC 9449 §7 (named by RFC 9728 §2): tokens may be bound to a DPoP key; bearer tokens stay good.
    dpop_signing_alg_values_supported: DPOP_SIGNING_ALGS,
    dpop_bound_access_tokens_required: false,
  };
}

/**
 * What a well-known path is: a protected resource's metadata, the issuer's authorization server
 * metadata, or neither.
 */
export function wellKnownOf(
  path: string,
  issuerPath: string,
): { kind: "protected-resource"; resource: ProtectedResource } | { kind: "authorization-server" } | null {
  if (path === `${AUTHORIZATION_SERVER_PREFIX}${issuerPath}`) return { kind: "authorization-server" };
  if (!path.startsWith(`${PROTECTED_RESOURCE_PREFIX}/`)) return null;
  for (const resource of Object.keys(RESOURCES) as ProtectedResource[]) {
    if (path === metadataPathOf(RESOURCES[resource].identifier())) return { kind: "protected-resource", resource };
  }
  return null;
}

/**
 * A resource's metadata: public, cacheable, readable from any origin (a browser client such as the
 * MCP Inspector reads it across origins).
 */
export function serveResourceMetadata(req: IncomingMessage, res: ServerResponse, resource: ProtectedResource): void {
  const cors = { "access-control-allow-origin": "*" };
  if (req.method === "OPTIONS") {
    sendRaw(res, 204, { ...cors, "access-control-allow-methods": "GET, HEAD", "access-control-max-age": "86400" }, null);
    return;
  }
  if (req.method !== "GET" && req.method !== "HEAD") {
    sendJson(res, 405, { error: { code: "method_not_allowed", message: "GET only." } }, { allow: "GET, HEAD, OPTIONS", ...cors });
    return;
  }
  sendJson(res, 200, resourceMetadata(resource), { "cache-control": "public, max-age=300", ...cors });
}

/**
 * RFC 8414 §3.1: `/.well-known/oauth-authorization-server{issuer path}` is the issuer's
 * `/.well-known/openid-configuration` (RFC 8414 §5 allows OpenID's discovery fields beside its
 * own): the request is handed on with that path, so both answer from one document.
 */
export function asIssuerDiscovery(req: IncomingMessage, issuerPath: string): void {
  const url = req.url ?? "/";
  const query = url.indexOf("?");
  req.url = `${issuerPath}/.well-known/openid-configuration${query >= 0 ? url.slice(query) : ""}`;
}
