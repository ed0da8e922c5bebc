import { z } from "zod";
import { onChange } from "../database/changes";
import { env } from "../env";
import { outboundGet } from "../events/deliver-http";
import { logger } from "../logger";
import { agentDomain } from "../schemas/agents";
import { isAppLiveIn } from "../schemas/sandboxes";
import { MAX_LOGO_BYTES } from "../schemas/apps";
import { SVC_SCOPE_NAMES, type SvcScope } from "../scopes";
import { checkLogo, type CheckedLogo } from "../services/app-logos";
import { fetchPublicKeySet, type PublicJwk } from "../services/key-sets";
import {
  agentPolicyOf,
  findAgentRow,
  listAgentRules,
  saveAgentDocument,
  type AgentLogo,
  type AgentPolicy,
  type AgentRow,
  type AgentRule,
} from "../services/agents";

/**
 * AI agents' clients (issue 40): an agent names itself by the https URL of its OAuth Client ID
 * Metadata Document (draft-ietf-oauth-client-id-metadata-document) and needs no registration. The
 * platform fetches the document under the webhooks' outbound rules (lib/events/deliver-http.ts: no
 * private or special-use address, no redirect, a size and time bound; CLIENT_METADATA_ALLOW_PRIVATE
 * lifts the address and scheme rules for development and tests), checks it, and keeps it on the
 * agent's Application row (type `agent`) for as long as its Cache-Control allows within bounds, so
 * every process reads it from there and one fetch at a time per URL refreshes it. The admins' rules
 * (lib/services/agents.ts) decide what an agent may ask for: an unreviewed agent only read scopes
 * (`svc:*.read`) and the OIDC ones; a trusted domain's agents every scope a person can grant; a
 * domain under review waits for an admin; a blocked domain or URL cannot sign anyone in.
 */

/** The draft's advice: documents are small; anything larger is refused unread. */
export const AGENT_DOCUMENT_MAX_BYTES = 5 * 1024;
const FETCH_TIMEOUT_MS = 5_000;
/** Bounds on how long a fetched document is used without fetching it again (its max-age, clamped). */
const MIN_CACHE_SECONDS = 5 * 60;
const MAX_CACHE_SECONDS = 24 * 60 * 60;
const MAX_CLIENT_ID_LENGTH = 2048;
/** What a refused client ID or document costs: it is not fetched again for this long (per process). */
const REFUSAL_MEMORY_MS = 30_000;

/**
 * Why an agent cannot sign in, in words for its error page and the agent's developer; `field`: the
 * metadata field at fault, if one is (registration answers invalid_redirect_uri for `redirect_uris`).
 */
export class AgentClientRefused extends Error {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** The client IDs dynamic registration gives agents (lib/oidc/registration.ts): no document, no domain. */
export const REGISTERED_AGENT_PREFIX = "agt_";

/** Whether a client ID is a registered agent's (RFC 7591), not a metadata document's URL. */
export function isRegisteredAgentId(clientId: string): boolean {
  return clientId.startsWith(REGISTERED_AGENT_PREFIX);
}

/** Whether a client ID is an agent's (its document's URL, or one dynamic registration gave it); any other is a developer's app's. */
export function isAgentClientId(clientId: string): boolean {
  return clientId.startsWith("https://") || clientId.startsWith("http://") || isRegisteredAgentId(clientId);
}

/**
 * The draft's rules for a client ID URL (§3): https (http too with CLIENT_METADATA_ALLOW_PRIVATE), a
 * path other than "/", no fragment, no user name or password, no "." or ".." segment. Returns why not.
 */
export function clientIdProblem(clientId: string): string | null {
  if (clientId.length > MAX_CLIENT_ID_LENGTH) return `An agent's client ID is at most ${MAX_CLIENT_ID_LENGTH} characters.`;
  const url = URL.parse(clientId);
  if (!url) return "The agent's client ID is not a valid URL.";
  const allowHttp = env().CLIENT_METADATA_ALLOW_PRIVATE;
  if (url.protocol !== "https:" && !(allowHttp && url.protocol === "http:")) return "An agent's client ID is an https URL.";
  if (url.username || url.password || /^https?:\/\/[^/?#]*@/i.test(clientId)) return "An agent's client ID carries no user name or password.";
  if (clientId.includes("#")) return "An agent's client ID has no fragment (#…).";
  const rawPath = clientId.replace(/^https?:\/\/[^/?#]*/i, "").split("?")[0]!;
  if (rawPath === "" || rawPath === "/") return "An agent's client ID has a path: the URL of its metadata document, not of the site.";
  if (rawPath.split("/").some((segment) => /^(\.|%2e){1,2}$/i.test(segment))) return "An agent's client ID has no \".\" or \"..\" path segment.";
  return null;
}

const webUrl = z
  .string()
  .max(2048)
  .refine((value) => {
    const url = URL.parse(value);
    return url !== null && (url.protocol === "https:" || (env().CLIENT_METADATA_ALLOW_PRIVATE && url.protocol === "http:"));
  }, "must be an https URL");

/**
 * A redirect URI of an agent: https, or a loopback http one (a native or CLI agent, RFC 8252 §7.3),
 * or a private-use scheme (`com.example.agent:/callback`, RFC 8252 §7.1). No fragment.
 */
const redirectUri = z
  .string()
  .max(2048)
  .refine((value) => {
    const url = URL.parse(value);
    if (!url || url.hash) return false;
    if (url.protocol === "https:") return true;
    if (url.protocol === "http:") return ["127.0.0.1", "[::1]", "localhost"].includes(url.hostname) || env().CLIENT_METADATA_ALLOW_PRIVATE;
    return /^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/i.test(url.protocol);
  }, "must be an https URL, a loopback http URL or an app's private-use scheme, without a fragment");

const SHARED_SECRET_METHODS = ["client_secret_basic", "client_secret_post", "client_secret_jwt"];

const documentSchema = z.looseObject({
  client_id: z.string().optional(),
  client_name: z.string().trim().min(1).max(200).optional(),
  client_uri: webUrl.optional(),
  logo_uri: webUrl.optional(),
  policy_uri: webUrl.optional(),
  tos_uri: webUrl.optional(),
  redirect_uris: z.array(redirectUri).min(1, "lists at least one redirect URI").max(20),
  grant_types: z.array(z.enum(["authorization_code", "refresh_token"])).optional(),
  response_types: z.array(z.literal("code")).optional(),
  token_endpoint_auth_method: z.string().optional(),
  scope: z.string().max(2000).optional(),
  software_id: z.string().max(200).optional(),
  software_version: z.string().max(200).optional(),
  jwks_uri: webUrl.optional(),
});

export type AgentDocument = z.infer<typeof documentSchema>;

/**
 * The metadata rules an agent's client shares however it came (a document or a registration): a
 * public client (no secret, `none`), its redirect URIs and the fields' shapes. `what` names the
 * source in the messages ("The agent's client metadata document", "The registration").
 */
export function checkAgentMetadata(raw: Record<string, unknown>, what: string): AgentDocument {
  if ("client_secret" in raw || "client_secret_expires_at" in raw) throw new AgentClientRefused(`${what} carries a client_secret: an agent holds no shared secret.`, "client_secret");
  const method = raw.token_endpoint_auth_method;
  if (typeof method === "string" && SHARED_SECRET_METHODS.includes(method)) {
    throw new AgentClientRefused(`${what} uses ${method}: an agent holds no shared secret; use "none" (with PKCE).`, "token_endpoint_auth_method");
  }
  if (method === "private_key_jwt" && typeof raw.jwks_uri !== "string") {
    throw new AgentClientRefused(`${what} uses private_key_jwt without a jwks_uri: publish the public keys at an https URL and name it there.`, "jwks_uri");
  }
  if (method !== undefined && method !== "none" && method !== "private_key_jwt") {
    throw new AgentClientRefused(`${what} has an unknown token_endpoint_auth_method ${JSON.stringify(method)}; use "none" (with PKCE) or "private_key_jwt" with a jwks_uri.`, "token_endpoint_auth_method");
  }
  const parsed = documentSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AgentClientRefused(`${what} is invalid: ${issue.path.join(".") || "the document"} ${issue.message}.`, String(issue.path[0] ?? ""));
  }
  return parsed.data;
}

/** Checks a parsed document against its URL; returns it, or throws why it is refused. */
export function checkAgentDocument(clientId: string, value: unknown): AgentDocument {
  const what = "The agent's client metadata document";
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new AgentClientRefused(`${what} is not a JSON object.`);
  const raw = value as Record<string, unknown>;
  if (raw.client_id !== clientId) {
    throw new AgentClientRefused(`${what} names another client_id (${JSON.stringify(raw.client_id)}): it must be its own URL, ${clientId}.`);
  }
  return checkAgentMetadata(raw, what);
}

/** Seconds the answer may be used: Cache-Control max-age (none for no-store/no-cache), else Expires, clamped. */
function cacheSeconds(headers: Record<string, string | string[] | undefined>): number {
  const control = String(headers["cache-control"] ?? "");
  let seconds: number | undefined;
  if (/(^|,)\s*(no-store|no-cache)\b/i.test(control)) seconds = 0;
  const maxAge = /(?:^|,)\s*max-age\s*=\s*(\d+)/i.exec(control);
  if (seconds === undefined && maxAge) seconds = Number(maxAge[1]);
  if (seconds === undefined && typeof headers.expires === "string") {
    const at = Date.parse(headers.expires);
    if (!Number.isNaN(at)) seconds = Math.floor((at - Date.now()) / 1000);
  }
  return Math.min(MAX_CACHE_SECONDS, Math.max(MIN_CACHE_SECONDS, seconds ?? MIN_CACHE_SECONDS));
}

/** A GET of something an agent's metadata names (its document, keys, logo), under the webhooks' outbound rules. */
function getFromAgent(url: string, options: { maxBytes: number; accept: string; noun: string }) {
  return outboundGet(url, {
    allowPrivate: env().CLIENT_METADATA_ALLOW_PRIVATE,
    maxBytes: options.maxBytes,
    timeoutMs: FETCH_TIMEOUT_MS,
    headers: { accept: options.accept },
    noun: options.noun,
  });
}

/**
 * GETs an agent's JSON (its document, its keys) under the webhooks' outbound rules; throws why not,
 * in words naming `what` (and `field`, the metadata field at fault).
 */
async function fetchAgentJson(
  url: string,
  options: { maxBytes: number; noun: string; what: string; field?: string },
): Promise<{ value: unknown; headers: Record<string, string | string[] | undefined> }> {
  const { what, field } = options;
  const answer = await getFromAgent(url, { maxBytes: options.maxBytes, accept: "application/json", noun: options.noun });
  if (answer.error === "too_large") throw new AgentClientRefused(`${what} is larger than ${options.maxBytes / 1024} KiB.`, field);
  if (answer.error) throw new AgentClientRefused(answer.message ?? `${what} could not be fetched (${answer.error}).`, field);
  if (answer.statusCode !== null && answer.statusCode >= 300 && answer.statusCode < 400) {
    throw new AgentClientRefused(`${what} answered a redirect (${answer.statusCode}); the platform follows none: serve it at that very URL.`, field);
  }
  if (answer.statusCode !== 200) throw new AgentClientRefused(`${what} answered ${answer.statusCode} instead of 200.`, field);
  try {
    return { value: JSON.parse(answer.body.toString("utf8")), headers: answer.headers };
  } catch {
    throw new AgentClientRefused(`${what} is not JSON.`, field);
  }
}

export type AgentKey = PublicJwk;

/**
 * The public keys of an agent that authenticates with private_key_jwt, fetched from its jwks_uri
 * under the same outbound rules as its document (oidc-provider never fetches them itself: it gets
 * them as the client's `jwks`); refreshed with the document. Throws why they are refused.
 */
export function fetchAgentKeys(jwksUri: string): Promise<AgentKey[]> {
  return fetchPublicKeySet(jwksUri, "The agent's", (message) => new AgentClientRefused(message, "jwks_uri"));
}

/**
 * A checked document or registration as stored on the agent's row: with private_key_jwt, the keys
 * fetched from its jwks_uri replace any `jwks` it carried (only fetched keys are trusted).
 */
export async function withAgentKeys<T extends AgentDocument>(metadata: T): Promise<T & { jwks?: { keys: AgentKey[] } }> {
  const { jwks: _claimed, ...rest } = metadata as T & { jwks?: unknown };
  if (metadata.token_endpoint_auth_method !== "private_key_jwt") return rest as T;
  return { ...(rest as T), jwks: { keys: await fetchAgentKeys(metadata.jwks_uri!) } };
}

/** The keys stored with an agent's metadata, or null for a public client (token_endpoint_auth_method none). */
export function storedAgentKeys(metadata: unknown): AgentKey[] | null {
  const stored = metadata as { token_endpoint_auth_method?: unknown; jwks?: { keys?: unknown } } | null;
  if (stored?.token_endpoint_auth_method !== "private_key_jwt" || !Array.isArray(stored.jwks?.keys)) return null;
  return stored.jwks.keys as AgentKey[];
}

/**
 * The logo an agent's metadata points to (`logo_uri`), fetched under the same outbound rules as its
 * document and checked like a developer's upload (lib/services/app-logos.ts: PNG, JPEG or WebP,
 * decoded, 256 KiB, roughly square), so the consent page shows it from the platform's own origin,
 * never from the agent's server. A logo that cannot be used is no reason to refuse the agent: it
 * is left out (null) and the reason logged for the agent's developer.
 */
export async function fetchAgentLogo(logoUri: string | undefined): Promise<CheckedLogo | null> {
  if (!logoUri) return null;
  const answer = await getFromAgent(logoUri, { maxBytes: MAX_LOGO_BYTES, accept: "image/png, image/jpeg, image/webp", noun: "An agent's logo_uri" });
  const unused = (reason: string) => {
    logger.info("agent logo not used", { logoUri, reason });
    return null;
  };
  if (answer.error === "too_large") return unused(`larger than ${MAX_LOGO_BYTES / 1024} KiB`);
  if (answer.error) return unused(answer.message ?? answer.error);
  if (answer.statusCode !== 200) return unused(`answered ${answer.statusCode} instead of 200`);
  try {
    return await checkLogo(answer.body);
  } catch (error) {
    return unused(error instanceof Error ? error.message : String(error));
  }
}

/** Fetches and checks the document at `clientId` (under the outbound rules); throws why it is refused. */
async function fetchAgentDocument(clientId: string): Promise<{ document: AgentDocument; maxAgeSeconds: number }> {
  const at = `The agent's client metadata document at ${clientId}`;
  const { value, headers } = await fetchAgentJson(clientId, { maxBytes: AGENT_DOCUMENT_MAX_BYTES, noun: "An agent's client ID", what: at });
  return { document: await withAgentKeys(checkAgentDocument(clientId, value)), maxAgeSeconds: cacheSeconds(headers) };
}

// Rules are few and change rarely: read once per process, again when an admin changes one.
let rulesCache: Promise<AgentRule[]> | null = null;
function currentRules(): Promise<AgentRule[]> {
  if (!rulesCache) {
    const loading = listAgentRules();
    rulesCache = loading;
    loading.catch(() => {
      if (rulesCache === loading) rulesCache = null;
    });
  }
  return rulesCache;
}
onChange((event) => {
  if (event.kind === "agents" || event.kind === "all") rulesCache = null;
});

/** What the sign-in service knows of an agent: the row and what the rules let it ask for. */
export interface ResolvedAgent {
  row: AgentRow;
  domain: string;
  policy: AgentPolicy | null;
  /** The `svc:` scopes it may ask a person for. */
  svcScopes: SvcScope[];
  /** Its public keys when it authenticates with private_key_jwt; null for a public client. */
  keys: AgentKey[] | null;
}

const READ_SCOPES = SVC_SCOPE_NAMES.filter((scope) => scope.endsWith(".read"));

/** The `svc:` scopes an agent may ask for under `policy`: every one when its domain is trusted, else the read ones. */
export function agentScopes(policy: AgentPolicy | null): SvcScope[] {
  return policy === "trusted" ? [...SVC_SCOPE_NAMES] : READ_SCOPES;
}

/** Why an agent that is not live cannot sign in, by its status. */
const NOT_LIVE: Record<AgentRow["status"], (reason: string | null) => string> = {
  suspended: (reason) => (reason ? `This AI agent is suspended: ${reason}` : "This AI agent is suspended by the platform's administrators."),
  pending: () => "This AI agent is waiting for the platform's review before it can sign anyone in.",
  rejected: () => "This AI agent was refused by the platform's administrators.",
  approved: () => "This AI agent cannot sign anyone in.",
};

const inFlight = new Map<string, Promise<AgentRow>>();
const refusals = new Map<string, { message: string; until: number }>();

/**
 * Fetches the document (one fetch at a time per URL in this process) and stores it, with its logo:
 * fetched again only when its logo_uri changed since `previous`.
 */
function refresh(clientId: string, domain: string, policy: AgentPolicy | null, previous: AgentRow | null): Promise<AgentRow> {
  let pending = inFlight.get(clientId);
  if (!pending) {
    pending = (async () => {
      const { document, maxAgeSeconds } = await fetchAgentDocument(clientId);
      const storedLogoUri = (previous?.agentMetadata as { logo_uri?: unknown } | null | undefined)?.logo_uri;
      const logo: AgentLogo = previous && document.logo_uri === storedLogoUri ? "unchanged" : await fetchAgentLogo(document.logo_uri);
      return saveAgentDocument({
        clientId,
        name: document.client_name ?? domain,
        domain,
        redirectUris: document.redirect_uris,
        document,
        expiresAt: new Date(Date.now() + maxAgeSeconds * 1000),
        policy,
        logo,
      });
    })().finally(() => inFlight.delete(clientId));
    inFlight.set(clientId, pending);
  }
  return pending;
}

/**
 * The agent behind `clientId`, its document fetched or refreshed when due; throws
 * AgentClientRefused with the reason when it cannot sign anyone in (a bad URL or document, blocked,
 * suspended, waiting for review).
 */
export async function resolveAgent(clientId: string): Promise<ResolvedAgent> {
  if (isRegisteredAgentId(clientId)) return resolveRegisteredAgent(clientId);
  const problem = clientIdProblem(clientId);
  if (problem) throw new AgentClientRefused(problem);
  const refused = refusals.get(clientId);
  if (refused && refused.until > Date.now()) throw new AgentClientRefused(refused.message);
  const domain = agentDomain(clientId);
  const policy = agentPolicyOf(await currentRules(), clientId, domain);
  if (policy === "blocked") throw new AgentClientRefused("This AI agent is blocked by the platform's administrators.");
  let row = await findAgentRow(clientId);
  if (!row || !row.agentMetadataExpiresAt || row.agentMetadataExpiresAt.getTime() <= Date.now()) {
    try {
      row = await refresh(clientId, domain, policy, row);
    } catch (error) {
      if (!(error instanceof AgentClientRefused)) throw error;
      if (refusals.size > 10_000) refusals.clear();
      refusals.set(clientId, { message: error.message, until: Date.now() + REFUSAL_MEMORY_MS });
      logger.info("agent client refused", { clientId, reason: error.message });
      throw error;
    }
  }
  // The one liveness rule (lib/schemas/sandboxes.ts), then why not, in words.
  if (!isAppLiveIn(row.status, "live")) throw new AgentClientRefused(NOT_LIVE[row.status](row.statusReason));
  return { row, domain, policy, svcScopes: agentScopes(policy), keys: storedAgentKeys(row.agentMetadata) };
}

/**
 * An agent dynamic registration created (lib/oidc/registration.ts): its metadata is the one it
 * registered, never fetched again; it has no verified domain, so no domain rule covers it (its own
 * client ID may be blocked) and it may ask only for read scopes.
 */
async function resolveRegisteredAgent(clientId: string): Promise<ResolvedAgent> {
  const policy = agentPolicyOf(await currentRules(), clientId, "");
  if (policy === "blocked") throw new AgentClientRefused("This AI agent is blocked by the platform's administrators.");
  const row = await findAgentRow(clientId);
  if (!row) throw new AgentClientRefused("No AI agent is registered with this client ID.");
  if (!isAppLiveIn(row.status, "live")) throw new AgentClientRefused(NOT_LIVE[row.status](row.statusReason));
  return { row, domain: "", policy, svcScopes: agentScopes(policy), keys: storedAgentKeys(row.agentMetadata) };
}
