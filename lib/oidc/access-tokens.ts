import { LRUCache } from "lru-cache";
import { onChange, type ChangeEvent } from "../database/changes";
import { AppError } from "../errors";
import { getAccessStatus, type AccessStatus } from "../queries/access";
import { claimDpopProof, DpopError, verifyDpopProof, type DpopProof } from "./dpop";
import type { ProtectedResource } from "./protected-resources";
import { verifyAccessToken, type AccessTokenClaims } from "./verify";

/**
 * Whether an access token is still good, for every place that accepts one (the API's bearer check
 * and the sign-in service's userinfo): signature, issuer, audience and expiry (verify.ts, local),
 * then the database's word on it (lib/queries/access.ts): the app still approved, the user still
 * there, and the token not voided by a revocation watermark (suspension, secret roll,
 * consent revoked, refresh-token reuse, logout). A voided token is `invalid_token`, like an expired
 * one.
 *
 * Both answers are cached per process. A verified token's claims for VERIFIED_CACHE_TTL_MS (never
 * past its `exp`, re-checked on every use): the ES256 check is the most expensive part of a cheap
 * request. The database's answer for ACCESS_CACHE_TTL_MS, dropped at once when the change channel
 * (lib/database/changes.ts) says the app, the user or the grant changed; the TTL only bounds how
 * stale an answer can be while the channel is down.
 */

/** How long a verified token's claims are reused (bounded by the token's own `exp`). */
export const VERIFIED_CACHE_TTL_MS = 60_000;
/** Verified tokens remembered at most (a token is at most 8 KiB: verify.ts refuses longer ones). */
export const VERIFIED_CACHE_MAX_ENTRIES = 5_000;
/** How long an app-status/user-status answer is reused when no change is announced. */
export const ACCESS_CACHE_TTL_MS = 2_000;
/** Entries kept at most; the oldest are dropped first (memory stays bounded under many tokens). */
export const ACCESS_CACHE_MAX_ENTRIES = 10_000;

// Bounded LRU caches with per-entry lifetimes (lru-cache): the least recently used entries go first
// when full, so memory stays bounded under many tokens.
const statuses = new LRUCache<string, Promise<AccessStatus>>({ max: ACCESS_CACHE_MAX_ENTRIES, ttl: ACCESS_CACHE_TTL_MS });
const verified = new LRUCache<string, AccessTokenClaims>({ max: VERIFIED_CACHE_MAX_ENTRIES, ttl: VERIFIED_CACHE_TTL_MS });

const statusKey = (clientId: string, userId: number | undefined) => `${userId ?? ""}:${clientId}`;

/**
 * Whether a change can alter the database's word on tokens of this app (and user): the entries the
 * listener below drops, and the changes after which a connection that outlives its request (the
 * event stream) asks checkAccessToken again.
 */
export function isTokenAffectedBy(event: ChangeEvent, clientId: string, userId: number | undefined): boolean {
  switch (event.kind) {
    case "all":
      return true;
    case "app":
      // A change of an app holds for its sandbox (`sbx_` + its client id) too.
      return clientId === event.clientId || clientId === `sbx_${event.clientId}`;
    case "user":
      return userId === event.userId;
    case "grant":
      return userId === event.userId && clientId === event.clientId;
    default:
      return false;
  }
}

onChange((event) => {
  switch (event.kind) {
    case "all":
      statuses.clear();
      return;
    case "grant":
      statuses.delete(statusKey(event.clientId, event.userId));
      return;
    case "app":
    case "user":
      for (const key of [...statuses.keys()]) {
        const at = key.indexOf(":");
        const userId = at === 0 ? undefined : Number(key.slice(0, at));
        if (isTokenAffectedBy(event, key.slice(at + 1), userId)) statuses.delete(key);
      }
      return;
  }
});

async function verifyCached(token: string): Promise<AccessTokenClaims> {
  const hit = verified.get(token);
  if (hit) {
    if (hit.exp * 1000 > Date.now()) return hit;
    verified.delete(token);
    throw new AppError("invalid_token", "The access token has expired.");
  }
  const claims = await verifyAccessToken(token);
  // Never remembered past the token's own expiry.
  verified.set(token, claims, { ttl: Math.max(1, Math.min(VERIFIED_CACHE_TTL_MS, claims.exp * 1000 - Date.now())) });
  return claims;
}

/** The database's answer for (app, user), cached; concurrent requests share one query. */
function findAccessStatus(clientId: string, userId: number | undefined): Promise<AccessStatus> {
  const key = statusKey(clientId, userId);
  const hit = statuses.get(key);
  if (hit) return hit;
  // The promise is cached, so concurrent requests with one token share a single query.
  const status = getAccessStatus(clientId, userId);
  statuses.set(key, status);
  status.catch(() => {
    if (statuses.get(key) === status) statuses.delete(key);
  });
  return status;
}

/** The latest revocation watermark that applies to a token of this app (and user), or null. */
export function revokedThrough(status: Pick<AccessStatus, "appTokensRevokedAt" | "userTokensRevokedAt">): number | null {
  const { appTokensRevokedAt: app, userTokensRevokedAt: user } = status;
  if (app === null) return user;
  if (user === null) return app;
  return Math.max(app, user);
}

export interface CheckedAccessToken {
  claims: AccessTokenClaims;
  /** The token's user (user-delegated tokens); undefined for app-only tokens. */
  userId: number | undefined;
  /** The user's disabled flag (undefined for app-only tokens): callers decide how to answer it. */
  userDisabled: boolean | undefined;
  /** The app's API quota per minute as stored (null: the platform default); a sandbox token's: its sandbox's. */
  appRequestsPerMinute: number | null;
  /** The world the token reads and writes (0 live, else its sandbox's). */
  worldId: number;
}

/** Why a token for the other resource is refused, in words for its client. */
const OTHER_RESOURCE: Record<ProtectedResource, string> = {
  api: "The access token is for the MCP server, not the API: ask for one without `resource` (or with the API's URL).",
  mcp: "The access token is not for the MCP server: ask for one with `resource` set to the MCP server's URL (RFC 8707).",
};

/**
 * Verifies the token and checks it against the database, for `resource` (its `aud` must name it:
 * the API by default, or the MCP server). Throws AppError("invalid_token") when the
 * token is malformed, forged, expired, for another resource, of an app that is no longer approved,
 * of a user who no longer exists, or voided by a revocation (its `iat` at or before a watermark).
 */
export async function checkAccessToken(token: string, resource: ProtectedResource = "api"): Promise<CheckedAccessToken> {
  const claims = await verifyCached(token);
  if (claims.resource !== resource) throw new AppError("invalid_token", OTHER_RESOURCE[resource]);
  const userId = claims.sub === undefined ? undefined : Number(claims.sub);
  if (userId !== undefined && !Number.isSafeInteger(userId)) throw new AppError("invalid_token", "The access token is invalid.");
  const status = await findAccessStatus(claims.clientId, userId);
  if (!status.appApproved) throw new AppError("invalid_token", "The application behind this token is not approved.");
  if (status.userDisabled === null) throw new AppError("invalid_token", "The access token is invalid.");
  // A token acts only for a person of its own world (a sandbox token never for a live person, nor the reverse).
  if (userId !== undefined && status.userWorldId !== status.worldId) throw new AppError("invalid_token", "The access token is invalid.");
  const revoked = revokedThrough(status);
  if (revoked !== null && claims.iat <= revoked) throw new AppError("invalid_token", "The access token has been revoked.");
  return {
    claims,
    userId,
    userDisabled: status.userDisabled ?? undefined,
    appRequestsPerMinute: status.appRequestsPerMinute,
    worldId: status.worldId,
  };
}

/** An access token as a request presents it: `Authorization: Bearer …` or, bound to a key, `DPoP …` (RFC 9449 §7.1). */
export interface PresentedToken {
  scheme: "Bearer" | "DPoP";
  token: string;
}

const AUTHORIZATION = /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The token of an Authorization header, or null when it is neither scheme's form. */
export function parseAuthorization(header: string | null | undefined): PresentedToken | null {
  const match = AUTHORIZATION.exec(header ?? "");
  if (!match) return null;
  return { scheme: match[1]!.toLowerCase() === "dpop" ? "DPoP" : "Bearer", token: match[2]! };
}

/** What a request offers to prove it holds a DPoP-bound token's key. */
export interface SenderProof {
  method: string;
  /** The request's absolute URL (the proof's `htu`, without query). */
  url: string;
  /** The `DPoP` header. */
  dpop: string | null;
  /** A key this request already proved (an MCP tool call inherits its /mcp request's proof). */
  provenKey?: string;
}

/**
 * checkAccessToken, then the sender constraint (RFC 9449 §7): a bearer token must come as `Bearer`;
 * a DPoP-bound one as `DPoP` with a proof of this request (method, URL, `ath`, the `iat` window or
 * the server's nonce) signed with its key, whose `jti` is then spent for every process. The API, the
 * MCP server and userinfo all ask this. Throws AppError("invalid_token") for the token and
 * DpopError for the proof (`invalid_token` for a token sent under the wrong scheme); each surface
 * answers them with its own challenge.
 */
export async function checkPresentedToken(
  presented: PresentedToken,
  proof: SenderProof,
  resource: ProtectedResource = "api",
): Promise<CheckedAccessToken & { proof?: DpopProof }> {
  const checked = await checkAccessToken(presented.token, resource);
  const { jkt, clientId } = checked.claims;
  if (presented.scheme === "Bearer") {
    if (jkt !== undefined) throw new DpopError("invalid_token", "This access token is bound to a DPoP key: send it as `Authorization: DPoP <token>` with a DPoP proof.");
    return checked;
  }
  if (jkt === undefined) throw new AppError("invalid_token", "This access token is not DPoP-bound: send it as `Authorization: Bearer <token>`.");
  if (proof.provenKey === jkt) return checked;
  const verified = await verifyDpopProof(proof.dpop, { method: proof.method, url: proof.url, accessToken: presented.token });
  if (verified.jkt !== jkt) throw new DpopError("invalid_dpop_proof", "The DPoP proof is signed with another key than the one this access token is bound to.");
  if (!(await claimDpopProof(clientId, verified))) throw new DpopError("invalid_dpop_proof", "This DPoP proof was already used: make a new one for every request.");
  return { ...checked, proof: verified };
}

/**
 * Watermarks have one-second precision (they are compared with `iat`, which is in seconds): a token
 * minted in the same second as a revocation would be void at birth. Issuers call this first, so a
 * token issued after a revocation always carries a later `iat` (at most one second's wait, only
 * right after a revocation of this app or grant).
 */
export async function waitPastRevocation(revokedAtSeconds: number | null): Promise<void> {
  if (revokedAtSeconds === null) return;
  const next = (revokedAtSeconds + 1) * 1000;
  // A loop, not one timer: timers run on the monotonic clock, and the wall clock can lag it (whole
  // milliseconds truncated, a slewed clock), so a timer can fire while Date.now() still reads the
  // revoked second, and the token would be void at birth (a CI flake in token-revocation.test.ts).
  for (let wait = next - Date.now(); wait > 0; wait = next - Date.now()) {
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
