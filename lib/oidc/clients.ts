import type { AdapterPayload } from "oidc-provider";
import { LRUCache } from "lru-cache";
import { onChange } from "../database/changes";
import { env } from "../env";
import { OIDC_SCOPES, SVC_SCOPE_NAMES, USER_ONLY_SCOPES, isSvcScope, type SvcScope } from "../scopes";
import { isAppLiveIn, isSandboxClientId, LIVE_WORLD_ID, sandboxClientId } from "../schemas/sandboxes";
import { refreshStaleKeys } from "../services/app-keys";
import { findClientForSignIn } from "../services/apps";
import { findSandboxForSignIn } from "../services/sandboxes";
import { touchAgent, type AgentPolicy } from "../services/agents";
import { storedAppKeys } from "../services/key-sets";
import { AgentClientRefused, isAgentClientId, resolveAgent, type AgentKey } from "./agents";

/**
 * The one place where the sign-in service learns about clients: the applications table. Only
 * approved apps exist for the provider (SPEC States: before approval a client is unknown). Rows are
 * cached for a few seconds so the token endpoint does not query per request; the change channel
 * (lib/database/changes.ts) drops an app's entry in every process as soon as the app changes, so
 * the TTL only bounds staleness while the channel is down. Secrets are not cached at all: every
 * grant reads the app's active secret hashes fresh (lib/queries/app-secrets.ts findActiveSecrets).
 */
export interface SignInClient {
  clientId: string;
  name: string;
  /** An AI agent's client signs people in like a login client ("login" here; `agent` says which). */
  type: "api" | "login";
  firstParty: boolean;
  ownerId: number;
  /** Registered `svc:` scopes the client may be granted (app-level only for API clients). */
  svcScopes: SvcScope[];
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  /** Login clients that enabled device sign-in (approved configuration only). */
  deviceFlow: boolean;
  /** Login clients whose authorization requests must be pushed first (PAR, RFC 9126). */
  requirePar: boolean;
  /** API and login clients whose tokens must be DPoP-bound (RFC 9449): the fast paths read it too. */
  requireDpop: boolean;
  /**
   * An app that authenticates with private_key_jwt (RFC 7523): its public keys (lib/services/app-keys.ts),
   * and no secret. Null: an API client's secret, or a public login client (PKCE). Agents' are in `agent`.
   */
  keys: AgentKey[] | null;
  /**
   * The world its sign-ins and tokens belong to, 0 live; a sandbox client's is its
   * sandbox's. The hosted login page looks credentials up in this world only.
   */
  worldId: number;
  /**
   * An AI agent's client (issue 40, lib/oidc/agents.ts): its verified domain and the admins' rule
   * for it (null: none, so read scopes only). Null for a registered app.
   */
  agent: { domain: string; policy: AgentPolicy | null; keys: AgentKey[] | null } | null;
}

const CACHE_TTL_MS = 5_000;
// On globalThis: server.ts (oidc-provider) and Next's bundled server code are two module graphs in
// one process; one cache, whichever graph hears of a change.
// Misses (null) are cached too, briefly: an unknown client_id must not cost a query per request.
// lru-cache stores no null, so a miss is kept as `false`.
const store = globalThis as unknown as { __signInClientCache?: LRUCache<string, SignInClient | false> };
const cache = (store.__signInClientCache ??= new LRUCache<string, SignInClient | false>({ max: 10_000, ttl: CACHE_TTL_MS }));

onChange((event) => {
  // A rule for agents (a domain trusted or blocked) changes what agents may ask for: rare, so all go.
  if (event.kind === "all" || event.kind === "agents") cache.clear();
  else if (event.kind === "app") {
    cache.delete(event.clientId);
    // The sandbox follows its app's configuration and status.
    cache.delete(sandboxClientId(event.clientId));
  }
});

/** Scopes an API client's token may carry: its registered scopes that make sense without a user. */
function appLevelScopes(scopes: SvcScope[]): SvcScope[] {
  return scopes.filter((s) => !USER_ONLY_SCOPES.includes(s));
}

/**
 * A sandbox client with its app's current configuration, pending change included: an
 * API client's client credentials, a login client's code + PKCE and device sign-in for the
 * sandbox's test users. Never first-party (the portal's own client has no sandbox to sign in to).
 */
async function loadSandboxClient(clientId: string): Promise<SignInClient | null> {
  const row = await findSandboxForSignIn(clientId);
  if (!row) return null;
  const registered = row.scopes.filter(isSvcScope);
  const login = row.type === "login";
  return {
    clientId: row.clientId,
    name: row.name,
    type: row.type,
    firstParty: false,
    ownerId: row.ownerId,
    svcScopes: login ? registered : appLevelScopes(registered),
    redirectUris: login ? row.redirectUris : [],
    postLogoutRedirectUris: login ? row.postLogoutRedirectUris : [],
    deviceFlow: login && row.deviceFlow,
    requirePar: login && row.requirePar,
    requireDpop: row.requireDpop,
    // A sandbox keeps its own secret (lib/services/sandboxes.ts), whatever the live app uses.
    keys: null,
    worldId: row.worldId,
    agent: null,
  };
}

/** The world of a client's sign-ins: 0 for a live client, its sandbox's for an `sbx_` one, null when unknown. */
export async function findClientWorld(clientId: string): Promise<number | null> {
  if (!isSandboxClientId(clientId)) return LIVE_WORLD_ID;
  return (await findSignInClient(clientId))?.worldId ?? null;
}

/**
 * Approved client by id, or null (unknown, pending, rejected, suspended or deleted). An
 * `sbx_` id is the app's sandbox, known whatever the app's review status except suspended.
 */
export async function findSignInClient(clientId: string): Promise<SignInClient | null> {
  // Client ids are printable ASCII (lib/schemas/apps.ts; an agent's, a URL); anything else, e.g. a
  // NUL byte that PostgreSQL refuses in a text parameter, is unknown rather than a server error.
  if (typeof clientId !== "string" || !/^[\x21-\x7e]{1,2048}$/.test(clientId)) return null;
  const hit = cache.get(clientId);
  if (hit !== undefined) return hit || null;
  if (isAgentClientId(clientId)) return (await findAgentClient(clientId)).client;
  if (isSandboxClientId(clientId)) {
    const sandbox = await loadSandboxClient(clientId);
    cache.set(clientId, sandbox ?? false);
    return sandbox;
  }
  if (clientId.length > 128) return null;
  const row = await findClientForSignIn(clientId);
  let value: SignInClient | null = null;
  if (row && row.type !== "agent" && isAppLiveIn(row.status, "live")) {
    const registered = row.scopes.filter(isSvcScope);
    value = {
      clientId: row.clientId,
      name: row.name,
      type: row.type,
      firstParty: row.firstParty,
      ownerId: row.ownerId,
      svcScopes: row.type === "api" ? appLevelScopes(registered) : registered,
      redirectUris: row.redirectUris,
      postLogoutRedirectUris: row.postLogoutRedirectUris,
      deviceFlow: row.type === "login" && row.deviceFlow,
      requirePar: row.type === "login" && row.requirePar,
      requireDpop: row.requireDpop,
      keys: storedAppKeys(row.jwks),
      worldId: LIVE_WORLD_ID,
      agent: null,
    };
    // Keys from a jwks_uri older than their refresh period: fetched again in the background.
    refreshStaleKeys(row);
  }
  cache.set(clientId, value ?? false);
  return value;
}

/**
 * An AI agent's client from its metadata document (lib/oidc/agents.ts), or why it cannot sign in.
 * Kept in the same cache as the apps (a refusal as a miss), dropped by the same change events.
 */
export async function findAgentClient(clientId: string): Promise<{ client: SignInClient | null; refusal: string | null }> {
  const hit = cache.get(clientId);
  if (hit) return { client: hit, refusal: null };
  try {
    const agent = await resolveAgent(clientId);
    const client: SignInClient = {
      clientId,
      name: agent.row.name,
      type: "login",
      firstParty: false,
      ownerId: 0,
      svcScopes: agent.svcScopes,
      redirectUris: agent.row.redirectUris,
      postLogoutRedirectUris: [],
      deviceFlow: false,
      requirePar: false,
      requireDpop: false,
      keys: null,
      worldId: LIVE_WORLD_ID,
      agent: { domain: agent.domain, policy: agent.policy, keys: agent.keys },
    };
    cache.set(clientId, client);
    // First and last seen, for the admins' Agents page (at most a write a minute per agent and process).
    touchAgent(clientId).catch(() => undefined);
    return { client, refusal: null };
  } catch (error) {
    if (!(error instanceof AgentClientRefused)) throw error;
    cache.set(clientId, false);
    return { client: null, refusal: error.message };
  }
}

/**
 * oidc-provider requires a `client_secret` in the metadata of a client that authenticates with one;
 * the real check is compareClientSecret (provider.ts), against every active secret's stored hash.
 * This value is not a SHA-256 hex digest, so nothing can ever match it.
 */
const SECRETS_CHECKED_ELSEWHERE = "hashed-secrets-checked-by-compareClientSecret";

/** Scopes a login client may request: the OIDC ones plus its registered `svc:` scopes. */
export function loginClientScopes(client: SignInClient): string[] {
  return [...Object.keys(OIDC_SCOPES), ...client.svcScopes];
}

/** RFC 8628 §3.4: the device authorization grant's grant_type. */
export const DEVICE_CODE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

/** oidc-provider client metadata for an application (see docs/README.md "clients"). */
export function toClientMetadata(client: SignInClient): AdapterPayload {
  if (client.type === "api") {
    return {
      client_id: client.clientId,
      client_name: client.name,
      // private_key_jwt with the app's public keys (RFC 7523), or its secrets (checked by provider.ts).
      ...(client.keys
        ? { token_endpoint_auth_method: "private_key_jwt", jwks: { keys: client.keys } }
        : { client_secret: SECRETS_CHECKED_ELSEWHERE, token_endpoint_auth_method: "client_secret_basic" }),
      grant_types: ["client_credentials"],
      response_types: [],
      redirect_uris: [],
      // RFC 9449 §5.2: an app that requires DPoP gets a token request without a proof refused.
      dpop_bound_access_tokens: client.requireDpop,
      scope: client.svcScopes.join(" ") || undefined,
    };
  }
  return {
    client_id: client.clientId,
    client_name: client.name,
    application_type: "web",
    // An agent that signs its token requests (private_key_jwt) with the keys of its jwks_uri, fetched
    // by lib/oidc/agents.ts, or an app with keys (lib/services/app-keys.ts); every other login client
    // is public (PKCE).
    ...((client.agent?.keys ?? client.keys)
      ? { token_endpoint_auth_method: "private_key_jwt", jwks: { keys: (client.agent?.keys ?? client.keys)! } }
      : { token_endpoint_auth_method: "none" }),
    // RFC 8628: only apps whose approved configuration allows device sign-in; any other client
    // asking the device endpoint gets unauthorized_client.
    grant_types: ["authorization_code", "refresh_token", ...(client.deviceFlow ? [DEVICE_CODE_GRANT] : [])],
    response_types: ["code"],
    // RFC 9126 §6: an app that requires PAR gets a plain authorization request refused (invalid_request).
    require_pushed_authorization_requests: client.requirePar,
    // RFC 9449 §5.2: an app that requires DPoP gets a token request without a proof refused.
    dpop_bound_access_tokens: client.requireDpop,
    redirect_uris: client.redirectUris,
    // SPEC Authentication step 7: `post_logout_redirect_uri` "must match a registered redirect URI
    // verbatim", so every redirect URI is accepted after logout, as well as the optional extra
    // post-logout URIs registered for it.
    post_logout_redirect_uris: [...new Set([...client.postLogoutRedirectUris, ...client.redirectUris])],
    // An agent may ask for any scope of the platform: what its domain's rule does not allow is
    // dropped from the request (applyScopeRules, lib/oidc/config.ts), not refused.
    scope: (client.agent ? [...Object.keys(OIDC_SCOPES), ...SVC_SCOPE_NAMES] : loginClientScopes(client)).join(" "),
  };
}

/**
 * The Adapter's `Client` kind: metadata for approved apps only, and for agents whose document
 * passed. For an agent that cannot sign in, `refused` is called with the reason (the adapter turns it
 * into the provider's invalid_client error page, which shows it).
 */
export async function findClientMetadata(clientId: string, refused?: (reason: string) => never): Promise<AdapterPayload | undefined> {
  if (typeof clientId === "string" && isAgentClientId(clientId) && clientId.length <= 2048) {
    const { client, refusal } = await findAgentClient(clientId);
    if (refusal !== null && refused) refused(refusal);
    return client ? toClientMetadata(client) : undefined;
  }
  const client = await findSignInClient(clientId);
  return client ? toClientMetadata(client) : undefined;
}

/** Origins of a login client's registered redirect URIs (CORS on token, userinfo and revoke). */
export function clientOrigins(client: SignInClient): Set<string> {
  const origins = new Set<string>();
  if (client.type !== "login") return origins;
  for (const uri of client.redirectUris) {
    try {
      const { origin } = new URL(uri);
      if (origin && origin !== "null") origins.add(origin);
    } catch {
      // an unparseable registered URI contributes no origin
    }
  }
  return origins;
}

/** The API's resource indicator (RFC 8707): a token requested without `resource` is for it. */
export function apiResource(): string {
  return env().API_URL;
}

/**
 * The MCP server's resource indicator: a token for it (`resource={APP_URL}/mcp` in the request)
 * carries it as its `aud`, and the API, which accepts only its own audience, refuses it.
 */
export function mcpResource(): string {
  return `${env().APP_URL}/mcp`;
}
