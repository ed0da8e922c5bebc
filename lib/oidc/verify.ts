import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JWK, type JWTPayload } from "jose";
import { onChange } from "../database/changes";
import { env } from "../env";
import { AppError } from "../errors";
import { apiResource, mcpResource } from "./clients";
import { ACCESS_TOKEN_ALG, getPublicJwks } from "./keys";
import type { ProtectedResource } from "./protected-resources";

/**
 * Local verification of RFC 9068 access tokens for the API (PRODUCT.md: no database hit to validate
 * a signature). The public key set is cached in-process; an unknown `kid` (a rotation by another
 * process) triggers a reload at most once a second, so forged `kid`s cannot hammer the DB.
 */
export interface AccessTokenClaims {
  /** User id as a decimal string (User.id); only on user-delegated tokens. */
  sub?: string;
  clientId: string;
  scopes: string[];
  exp: number;
  iat: number;
  jti?: string;
  /** The protected resource the token is for, by its `aud` (RFC 8707): the API or the MCP server. */
  resource: ProtectedResource;
  /** The thumbprint of the DPoP key the token is bound to (`cnf.jkt`, RFC 9449 §6); unset for a bearer token. */
  jkt?: string;
}

const MIN_RELOAD_INTERVAL_MS = 1_000;
/** Even without an unknown kid, drop retired keys from the cache eventually. */
const MAX_CACHE_AGE_MS = 10 * 60_000;

type KeySet = ReturnType<typeof createLocalJWKSet>;

let cached: { keySet: KeySet; kids: Set<string>; loadedAt: number } | undefined;
let loading: Promise<NonNullable<typeof cached>> | undefined;

async function loadKeys(): Promise<NonNullable<typeof cached>> {
  loading ??= getPublicJwks()
    .then(({ keys }) => {
      // Only access-token keys: an ID token (RS256) must never pass as an access token.
      const usable = keys.filter((k: JWK) => k.alg === ACCESS_TOKEN_ALG);
      cached = {
        keySet: createLocalJWKSet({ keys: usable }),
        kids: new Set(usable.map((k) => k.kid).filter((k): k is string => typeof k === "string")),
        loadedAt: Date.now(),
      };
      return cached;
    })
    .finally(() => {
      loading = undefined;
    });
  return loading;
}

let scheduled: Promise<NonNullable<typeof cached>> | undefined;

// A rotation (announced on the change channel): reload the key set on the next verification.
onChange((event) => {
  if (event.kind === "keys" || event.kind === "all") cached = undefined;
});

async function keysFor(kid: string | undefined): Promise<NonNullable<typeof cached>> {
  const now = Date.now();
  if (!cached || now - cached.loadedAt > MAX_CACHE_AGE_MS) return loadKeys();
  if (kid === undefined || cached.kids.has(kid)) return cached;
  // An unknown kid: a key rotated in after our last load (perhaps by another process), or a forgery.
  // A request arriving within the back-off waits for the next allowed reload instead of being
  // refused: a token signed with a brand-new key must never be turned away.
  const wait = cached.loadedAt + MIN_RELOAD_INTERVAL_MS - now;
  if (wait <= 0) return loadKeys();
  scheduled ??= new Promise((resolve) => setTimeout(resolve, wait))
    .then(loadKeys)
    .finally(() => {
      scheduled = undefined;
    });
  return scheduled;
}

function invalid(message: string, cause?: unknown): AppError {
  return new AppError("invalid_token", message, { cause });
}

function readKid(token: string): string | undefined {
  const header = token.split(".")[0];
  if (!header) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(header, "base64url").toString("utf8")) as { kid?: unknown };
    return typeof parsed.kid === "string" ? parsed.kid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Validates signature (ES256 only, key from the published set), `typ: at+jwt`, `iss` = ISSUER,
 * `aud` = one protected resource (the API's URL or the MCP server's) and `exp`. Throws
 * AppError("invalid_token") for anything wrong. Which resource may accept it is the caller's
 * question (lib/oidc/access-tokens.ts checkAccessToken).
 */
export async function verifyAccessToken(token: string): Promise<AccessTokenClaims> {
  if (typeof token !== "string" || token.length === 0 || token.length > 8192 || token.split(".").length !== 3) {
    throw invalid("The access token is malformed.");
  }
  const { ISSUER } = env();
  const audiences: Record<string, ProtectedResource> = { [apiResource()]: "api", [mcpResource()]: "mcp" };
  const { keySet } = await keysFor(readKid(token));
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keySet, {
      algorithms: [ACCESS_TOKEN_ALG],
      typ: "at+jwt",
      issuer: ISSUER,
      audience: Object.keys(audiences),
      requiredClaims: ["exp", "iat", "client_id"],
      clockTolerance: 0,
    }));
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) throw invalid("The access token has expired.", error);
    throw invalid("The access token is invalid.", error);
  }
  const { sub, client_id: clientId, scope, exp, iat, jti, aud, cnf } = payload as JWTPayload & { client_id?: unknown; scope?: unknown; cnf?: unknown };
  // One audience: a token is for one resource (the sign-in service issues no other kind).
  const resource = audiences[typeof aud === "string" ? aud : Array.isArray(aud) && aud.length === 1 ? aud[0]! : ""];
  if (resource === undefined) throw invalid("The access token is invalid.");
  if (typeof clientId !== "string" || typeof exp !== "number" || typeof iat !== "number") {
    throw invalid("The access token is invalid.");
  }
  // User-delegated tokens carry the numeric user id; app-only tokens carry no `sub` (config.ts drops it).
  if (sub !== undefined && (typeof sub !== "string" || !/^[1-9][0-9]{0,15}$/.test(sub))) {
    throw invalid("The access token is invalid.");
  }
  if (scope !== undefined && typeof scope !== "string") throw invalid("The access token is invalid.");
  // A confirmation the platform does not issue (an mTLS certificate's) is not one it can check.
  const jkt = cnf === undefined ? undefined : (cnf as { jkt?: unknown } | null)?.jkt;
  if (cnf !== undefined && (typeof jkt !== "string" || Object.keys(cnf as object).length !== 1)) throw invalid("The access token is invalid.");
  return {
    ...(sub !== undefined ? { sub } : {}),
    clientId,
    scopes: typeof scope === "string" && scope.length > 0 ? scope.split(" ") : [],
    exp,
    iat,
    ...(typeof jti === "string" ? { jti } : {}),
    resource,
    ...(typeof jkt === "string" ? { jkt } : {}),
  };
}

/** Tests: forget the cached key set (e.g. after rotating keys in-process). */
export function clearVerifierCache(): void {
  cached = undefined;
}
