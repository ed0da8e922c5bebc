import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { maskAddress } from "../http/address-prefix";
import { BodyError, mediaType, readBody } from "../http/body";
import { clientIp } from "../http/client-ip";
import { sendJson } from "../http/reply";
import { env } from "../env";
import { logger } from "../logger";
import { OIDC_SCOPES } from "../scopes";
import { registerAgent } from "../services/agents";
import { reserveClientRegistration } from "../services/throttle";
import { agentScopes, AgentClientRefused, AGENT_DOCUMENT_MAX_BYTES, checkAgentMetadata, fetchAgentLogo, REGISTERED_AGENT_PREFIX, withAgentKeys } from "./agents";

/**
 * Dynamic client registration for older MCP clients (RFC 7591), on only with
 * DYNAMIC_REGISTRATION=agents: a POST of client metadata creates an agent client like one that
 * names itself by a metadata document (lib/oidc/agents.ts), under the same rules (no shared
 * secret: `none` with PKCE, or private_key_jwt with a jwks_uri; its redirect URIs checked alike),
 * with a client ID of its own (`agt_…`). It has no domain
 * anyone verified, so it may ask people only for the read scopes, and the consent page says the
 * platform has not verified it. Each address may register REGISTRATION_LIMIT_PER_IP clients an hour
 * (lib/services/throttle.ts). Answers are OAuth's JSON: 201 with the client's information, or 400
 * `invalid_redirect_uri` / `invalid_client_metadata` with a description (RFC 7591 §3.2).
 */

const ERROR_HEADERS = { pragma: "no-cache" };

function refuse(res: ServerResponse, status: number, error: string, description: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { error, error_description: description }, { ...ERROR_HEADERS, ...headers });
}

/** The scopes a registered agent is given: those it asked for that it may have, or all of them when it asked for none. */
function grantedScope(requested: string | undefined): string {
  const allowed = [...Object.keys(OIDC_SCOPES), ...agentScopes(null)];
  if (!requested?.trim()) return allowed.join(" ");
  return requested.split(/\s+/).filter((scope) => allowed.includes(scope)).join(" ");
}

export async function handleRegistration(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== "POST") return refuse(res, 405, "invalid_request", "Register a client with POST and a JSON body (RFC 7591).", { allow: "POST" });
  // Every POST counts, refused ones too: probing the rules costs the same as registering.
  const address = clientIp(req, env().TRUST_PROXY_RULE);
  const admission = await reserveClientRegistration(address);
  if (!admission.ok) {
    const seconds = Math.max(1, Math.ceil((admission.retryAt.getTime() - Date.now()) / 1000));
    return refuse(res, 429, "rate_limited", `Too many client registrations from this address; retry in ${seconds} s.`, { "retry-after": String(seconds) });
  }
  if (mediaType(req.headers) !== "application/json") {
    return refuse(res, 400, "invalid_client_metadata", "Send the client's metadata as a JSON object (Content-Type: application/json).");
  }
  let raw: unknown;
  try {
    raw = JSON.parse((await readBody(req, { limit: AGENT_DOCUMENT_MAX_BYTES, headers: req.headers })).toString("utf8"));
  } catch (error) {
    // Over the limit, the rest of the body is not read: the connection closes with the answer.
    if (error instanceof BodyError) return refuse(res, error.status, "invalid_client_metadata", error.message, error.status === 413 ? { connection: "close" } : {});
    return refuse(res, 400, "invalid_client_metadata", "The registration is not JSON.");
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return refuse(res, 400, "invalid_client_metadata", "The registration is not a JSON object.");
  let metadata;
  try {
    // The server assigns the client ID: one in the request is ignored, as RFC 7591 has none there.
    const { client_id: _ignored, ...rest } = raw as Record<string, unknown>;
    metadata = await withAgentKeys(checkAgentMetadata(rest, "The registration"));
  } catch (error) {
    if (!(error instanceof AgentClientRefused)) throw error;
    return refuse(res, 400, error.field === "redirect_uris" ? "invalid_redirect_uri" : "invalid_client_metadata", error.message);
  }
  const clientId = `${REGISTERED_AGENT_PREFIX}${randomBytes(16).toString("base64url")}`;
  const issuedAt = Math.floor(Date.now() / 1000);
  const information = {
    ...metadata,
    client_id: clientId,
    client_id_issued_at: issuedAt,
    token_endpoint_auth_method: metadata.token_endpoint_auth_method ?? "none",
    grant_types: metadata.grant_types ?? ["authorization_code", "refresh_token"],
    response_types: ["code"],
    scope: grantedScope(metadata.scope),
  };
  const name = metadata.client_name ?? "Unnamed agent";
  const logo = await fetchAgentLogo(metadata.logo_uri);
  await registerAgent({ clientId, name, redirectUris: metadata.redirect_uris, metadata: information, logo, address: maskAddress(address) });
  logger.info("agent client registered", { clientId, address: maskAddress(address) });
  sendJson(res, 201, information, ERROR_HEADERS);
}
