import { AppError } from "../errors";
import { checkAccessToken, checkPresentedToken, isTokenAffectedBy, parseAuthorization } from "../oidc/access-tokens";
import { dpopChallengeParams, DpopError } from "../oidc/dpop";
import { resourceMetadataUrl, type ProtectedResource } from "../oidc/protected-resources";
import { effectiveQuota } from "../schemas/rate-limits";
import { LIVE_WORLD_ID } from "../schemas/sandboxes";
import { ensureSandboxWorld } from "../services/sandboxes";
import type { SvcScope } from "../scopes";
import type { ApiRequest } from "./request-reply";

/**
 * Bearer authentication for the API (SPEC.md "Calling the API"). The order of checks is fixed,
 * so every client sees the same answer for the same token:
 *
 *   1. no Authorization header      → anonymous where the token is optional, else 401 unauthorized
 *   2. header not `Bearer <token>`  → 401 invalid_token (a presented token is always validated)
 *      or `DPoP <token>`
 *   3. signature/iss/aud/typ/exp    → 401 invalid_token (lib/oidc/verify.ts, local, no DB); a
 *      DPoP-bound token without a good proof of this request, or sent as `Bearer`, too (RFC 9449 §7,
 *      its `WWW-Authenticate: DPoP error=…` saying which)
 *   4. the app is not approved any more (suspended, rejected, deleted), the token's user no longer
 *      exists, or the token was voided by a revocation → 401 invalid_token
 *   5. user endpoint, app-only token → 403 requires_user
 *   6. scope missing                 → 403 insufficient_scope
 *   7. the user is disabled          → 403 forbidden
 *
 * Steps 3 and 4 are lib/oidc/access-tokens.ts, shared with the sign-in service's userinfo; its
 * caches are dropped by the change channel, so a control action holds in every process at once.
 * `identify` does steps 1–4 and `authorize` 5–7: defineRoute counts the request against the app's
 * quota in between, so a refused scope is counted (and answered with the quota headers) too.
 */

export type AuthRequirement = "optional" | "user" | "any";

/**
 * `quota`: the app's API requests per minute (lib/services/api-quota.ts counts them).
 * `worldId`: the world the caller reads and writes: 0 live, or its sandbox's for a token
 * of an `sbx_` client. Every route passes it down (worldOf); nothing crosses worlds.
 */
export type ApiCaller =
  | { kind: "anonymous" }
  | { kind: "app"; clientId: string; scopes: readonly string[]; quota: number; worldId: number }
  | { kind: "user"; userId: number; clientId: string; scopes: readonly string[]; quota: number; worldId: number };

/** The caller's world: anonymous callers read the live world. */
export function worldOf(caller: ApiCaller): number {
  return caller.kind === "anonymous" ? LIVE_WORLD_ID : caller.worldId;
}

export type UserCaller = Extract<ApiCaller, { kind: "user" }>;

/**
 * `WWW-Authenticate` of the 401s and scope 403s of a protected resource (the API, the MCP server):
 * the error (RFC 6750 §3), the scope that was missing, and where the resource's metadata is
 * (RFC 9728 §5.1), from which a client finds the authorization server and asks for a token or for
 * more scope.
 */
function bearerChallenge(resource: ProtectedResource, params: { realm?: string; error?: string; scope?: string }): string {
  const parts = Object.entries(params).map(([name, value]) => `${name}="${value}"`);
  return `Bearer ${[...parts, `resource_metadata="${resourceMetadataUrl(resource)}"`].join(", ")}`;
}

function invalidToken(resource: ProtectedResource, message: string): AppError {
  return new AppError("invalid_token", message, { headers: { "www-authenticate": bearerChallenge(resource, { error: "invalid_token" }) } });
}

/**
 * A DPoP request's refusal (RFC 9449 §7.1): the SPEC's 401 invalid_token, whose `WWW-Authenticate:
 * DPoP` names the error (`invalid_dpop_proof`, `use_dpop_nonce` with the nonce in `DPoP-Nonce`,
 * `invalid_token`), the proof algorithms accepted and the resource's metadata.
 */
function dpopRefusal(resource: ProtectedResource, error: DpopError): AppError {
  const challenge = `DPoP ${dpopChallengeParams(error.error, error.message)}, resource_metadata="${resourceMetadataUrl(resource)}"`;
  return new AppError("invalid_token", error.message, {
    headers: { "www-authenticate": challenge, ...(error.nonce ? { "dpop-nonce": error.nonce } : {}) },
  });
}

/** A caller whose token checked out (steps 1–4), before the endpoint's requirements (5–7). */
export type IdentifiedCaller =
  | { kind: "anonymous" }
  | {
      kind: "token";
      caller: Exclude<ApiCaller, { kind: "anonymous" }>;
      userDisabled: boolean | undefined;
      /** The DPoP key the request proved (its token is bound to it): an MCP tool call of the request inherits it. */
      dpopKey?: string;
    };

/**
 * Steps 1–4: who is calling, with a token for the resource the request came to (`request.resource`:
 * the API unless an MCP tool call says so). The per-app quota is counted between this and `authorize`.
 */
export async function identify(request: ApiRequest, requirement: AuthRequirement): Promise<IdentifiedCaller> {
  const resource = request.resource ?? "api";
  const header = request.headers.get("authorization");
  if (header === null) {
    if (requirement === "optional") return { kind: "anonymous" };
    throw new AppError("unauthorized", "This endpoint requires a bearer token.", {
      headers: { "www-authenticate": bearerChallenge(resource, { realm: resource }) },
    });
  }
  const presented = parseAuthorization(header);
  if (!presented) throw invalidToken(resource, "The Authorization header must be `Bearer <access token>` (or `DPoP <access token>` with a DPoP proof).");

  let checked;
  try {
    const proof = { method: request.method, url: request.url, dpop: request.headers.get("dpop"), provenKey: request.dpopKey };
    checked = await checkPresentedToken(presented, proof, resource);
  } catch (error) {
    if (error instanceof DpopError) throw dpopRefusal(resource, error);
    if (error instanceof AppError && error.code === "invalid_token") {
      throw presented.scheme === "DPoP" ? dpopRefusal(resource, new DpopError("invalid_token", error.message)) : invalidToken(resource, error.message);
    }
    throw error;
  }
  const { claims, userId, userDisabled, worldId } = checked;
  // A sandbox's world is built on its first use (once; free once this process saw it built).
  if (worldId !== LIVE_WORLD_ID) await ensureSandboxWorld(worldId);
  // From here on the request belongs to this app (lib/api/request-reply.ts ApiRequest): usage
  // metering reads it after the reply, so a 403 or a 429 of the quota still counts for the app.
  request.clientId = claims.clientId;
  request.userId = userId;
  const quota = effectiveQuota(checked.appRequestsPerMinute);
  const caller: Exclude<ApiCaller, { kind: "anonymous" }> =
    userId === undefined
      ? { kind: "app", clientId: claims.clientId, scopes: claims.scopes, quota, worldId }
      : { kind: "user", userId, clientId: claims.clientId, scopes: claims.scopes, quota, worldId };
  return { kind: "token", caller, userDisabled, ...(claims.jkt !== undefined ? { dpopKey: claims.jkt } : {}) };
}

/** Steps 5–7: whether this caller may call an endpoint with `requirement` and `scope` of `resource`. */
export function authorize(identified: IdentifiedCaller, requirement: AuthRequirement, scope: SvcScope | undefined, resource: ProtectedResource = "api"): ApiCaller {
  if (identified.kind === "anonymous") return { kind: "anonymous" };
  const { caller, userDisabled } = identified;
  if (requirement === "user" && caller.kind === "app") {
    throw new AppError("requires_user", "This endpoint acts for a user; an app-only token cannot call it.");
  }
  if (scope !== undefined && !caller.scopes.includes(scope)) {
    throw new AppError("insufficient_scope", `This endpoint needs the ${scope} scope.`, {
      headers: { "www-authenticate": bearerChallenge(resource, { error: "insufficient_scope", scope }) },
    });
  }
  if (userDisabled === true) throw new AppError("forbidden", "This account is disabled.");
  return caller;
}

/**
 * What a connection that outlives its request (the event stream) needs to end with its token
 * (STYLE: "Changes that must reach every process"): when the token expires, which announced
 * changes may void it, and the same steps 3, 4 and 7 as the request that opened it, asked again.
 */
/** A change announced on the change channel (lib/api reaches the database only through oidc and services). */
type ChangeEvent = Parameters<typeof isTokenAffectedBy>[0];

export interface TokenLifetime {
  /** The token's `exp`, in ms. */
  expiresAtMs: number;
  isAffectedBy(change: ChangeEvent): boolean;
  /** False once the token would be refused (expired, revoked, app or user gone, user disabled). */
  isStillValid(): Promise<boolean>;
}

/** The lifetime of the request's bearer token, which `identify` accepted. */
export async function tokenLifetimeOf(request: ApiRequest): Promise<TokenLifetime> {
  const token = parseAuthorization(request.headers.get("authorization"))?.token;
  if (token === undefined) throw new AppError("unauthorized", "This endpoint requires a bearer token.");
  const resource = request.resource ?? "api";
  const { claims, userId } = await checkAccessToken(token, resource);
  return {
    expiresAtMs: claims.exp * 1000,
    isAffectedBy: (change) => isTokenAffectedBy(change, claims.clientId, userId),
    async isStillValid() {
      try {
        return (await checkAccessToken(token, resource)).userDisabled !== true;
      } catch (error) {
        if (error instanceof AppError && error.code === "invalid_token") return false;
        throw error;
      }
    },
  };
}
