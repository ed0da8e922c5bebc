import { AppError } from "../errors";
import { verifyAccessToken, type AccessTokenClaims } from "../oidc/verify";
import type { SvcScope } from "../scopes";
import { getAccessStatus, type AccessStatus } from "../services/access";
import type { ApiRequest } from "./http";

/**
 * Bearer authentication for the API (SPEC.md "Calling the API"). The order of checks is fixed,
 * so every client sees the same answer for the same token:
 *
 *   1. no Authorization header      → anonymous where the token is optional, else 401 unauthorized
 *   2. header not `Bearer <token>`  → 401 invalid_token (a presented token is always validated)
 *   3. signature/iss/aud/typ/exp    → 401 invalid_token (lib/oidc/verify.ts, local, no DB)
 *   4. the app is not approved any more (suspended, rejected, deleted), or the token's user no
 *      longer exists               → 401 invalid_token
 *   5. user endpoint, app-only token → 403 requires_user
 *   6. scope missing                 → 403 insufficient_scope
 *   7. the user is disabled          → 403 forbidden
 *
 * Step 4 and 7 read the database (lib/services/access.ts, batched per event-loop turn); their
 * answer is cached per process for ACCESS_CACHE_TTL_MS, so a suspension or a disabled account takes
 * effect within that bound on every process.
 *
 * Step 3 is a local ES256 signature check, yet it is the most expensive part of a cheap request
 * (WebCrypto, ~a quarter of the CPU of a profile read). A token that verified is remembered for
 * VERIFIED_CACHE_TTL_MS (never past its `exp`, which is re-checked on every use), so a client
 * reusing its token, as SPEC.md tells clients to, pays for the signature once. Only successes are
 * cached; the map is bounded like the status cache.
 */
export type AuthRequirement = "optional" | "user" | "any";

export type Actor =
  | { kind: "anonymous" }
  | { kind: "app"; clientId: string; scopes: readonly string[] }
  | { kind: "user"; userId: number; clientId: string; scopes: readonly string[] };

export type UserActor = Extract<Actor, { kind: "user" }>;

/** How long a verified token's claims are reused (bounded by the token's own `exp`). */
export const VERIFIED_CACHE_TTL_MS = 60_000;
/** Verified tokens remembered at most (a token is at most 8 KiB: verify.ts refuses longer ones). */
export const VERIFIED_CACHE_MAX_ENTRIES = 5_000;

/** How long an app-status/user-status answer is reused. */
export const ACCESS_CACHE_TTL_MS = 2_000;
/** Entries kept at most; the oldest are dropped first (memory stays bounded under many tokens). */
export const ACCESS_CACHE_MAX_ENTRIES = 10_000;

const cache = new Map<string, { expiresAt: number; status: Promise<AccessStatus> }>();
const verified = new Map<string, { expiresAt: number; claims: AccessTokenClaims }>();

/** Map iterates in insertion order: drop the oldest tenth in one go when full. */
function makeRoom(map: Map<string, unknown>, max: number): void {
  if (map.size < max) return;
  let drop = Math.ceil(max / 10);
  for (const k of map.keys()) {
    map.delete(k);
    if (--drop === 0) break;
  }
}

async function verifyCached(token: string): Promise<AccessTokenClaims> {
  const now = Date.now();
  const hit = verified.get(token);
  if (hit) {
    if (hit.expiresAt > now) {
      if (hit.claims.exp * 1000 > now) return hit.claims;
      verified.delete(token);
      throw new AppError("invalid_token", "The access token has expired.");
    }
    verified.delete(token);
  }
  const claims = await verifyAccessToken(token);
  makeRoom(verified, VERIFIED_CACHE_MAX_ENTRIES);
  verified.set(token, { expiresAt: Math.min(now + VERIFIED_CACHE_TTL_MS, claims.exp * 1000), claims });
  return claims;
}

function cachedAccessStatus(clientId: string, userId: number | undefined): Promise<AccessStatus> {
  const key = `${userId ?? ""}:${clientId}`;
  const now = Date.now();
  const hit = cache.get(key);
  if (hit && hit.expiresAt > now) return hit.status;
  if (hit) cache.delete(key);
  makeRoom(cache, ACCESS_CACHE_MAX_ENTRIES);
  // The promise is cached, so concurrent requests with one token share a single query.
  const status = getAccessStatus(clientId, userId);
  cache.set(key, { expiresAt: now + ACCESS_CACHE_TTL_MS, status });
  status.catch(() => cache.delete(key));
  return status;
}

/** Tests and admin actions in the same process: forget cached statuses and verified tokens. */
export function clearAccessCache(): void {
  cache.clear();
  verified.clear();
}

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

function invalidToken(message: string): AppError {
  return new AppError("invalid_token", message, { headers: { "www-authenticate": 'Bearer error="invalid_token"' } });
}

export async function authenticate(
  request: ApiRequest,
  requirement: AuthRequirement,
  scope: SvcScope | undefined,
): Promise<Actor> {
  const header = request.headers.get("authorization");
  if (header === null) {
    if (requirement === "optional") return { kind: "anonymous" };
    throw new AppError("unauthorized", "This endpoint requires a bearer token.", {
      headers: { "www-authenticate": 'Bearer realm="api"' },
    });
  }
  const match = BEARER.exec(header);
  if (!match) throw invalidToken("The Authorization header must be `Bearer <access token>`.");

  let claims;
  try {
    claims = await verifyCached(match[1]!);
  } catch (error) {
    if (error instanceof AppError && error.code === "invalid_token") throw invalidToken(error.message);
    throw error;
  }
  const userId = claims.sub === undefined ? undefined : Number(claims.sub);
  if (userId !== undefined && !Number.isSafeInteger(userId)) throw invalidToken("The access token is invalid.");

  const status = await cachedAccessStatus(claims.clientId, userId);
  if (!status.appApproved) throw invalidToken("The application behind this token is not approved.");
  if (status.userDisabled === null) throw invalidToken("The access token is invalid.");

  if (requirement === "user" && userId === undefined) {
    throw new AppError("requires_user", "This endpoint acts for a user; an app-only token cannot call it.");
  }
  if (scope !== undefined && !claims.scopes.includes(scope)) {
    throw new AppError("insufficient_scope", `This endpoint needs the ${scope} scope.`, {
      headers: { "www-authenticate": `Bearer error="insufficient_scope", scope="${scope}"` },
    });
  }
  if (status.userDisabled === true) throw new AppError("forbidden", "This account is disabled.");

  return userId === undefined
    ? { kind: "app", clientId: claims.clientId, scopes: claims.scopes }
    : { kind: "user", userId, clientId: claims.clientId, scopes: claims.scopes };
}
