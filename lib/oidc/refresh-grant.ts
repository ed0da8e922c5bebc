import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { env } from "../env";
import { logger } from "../logger";
import { findRefreshGrantState, rotateRefreshToken, type RefreshGrantState } from "../queries/refresh-grants";
import { markConnectedAppUsed } from "../services/connected-apps";
import { usageMeter } from "../services/usage-meter";
import { revokedThrough, waitPastRevocation } from "./access-tokens";
import { accountClaims } from "./account";
import { bearerRowKey, isLookupValue } from "./adapter";
import { apiResource, findSignInClient } from "./clients";
import { resourceScopesFor, SCOPE_CLAIMS } from "./config";
import { ID_TOKEN_TTL } from "./keys";
import { claimDpopProof } from "./dpop";
import { accessTokenClaims, hasExactly, sendTokenResponse, signJwt, tokenEndpointProof, tokenRequestId, type TokenSigners } from "./token-form";

/**
 * A fast path for a login client's refresh grant (SPEC Authentication, login client step
 * 6), the request every signed-in app sends once per access-token lifetime. Through oidc-provider a
 * grant is six sequential round trips (the token, its session, its grant, the account, the consume,
 * the successor) plus its koa, parameter and client-auth pipelines; here it is one read
 * (lib/queries/refresh-grants.ts) and one conditional write, batched per event-loop turn.
 *
 * It answers ONLY the plain happy path, with what oidc-provider 9.13 (lib/actions/grants/
 * refresh_token.js, pinned by tests/oidc/fast-path-pin.test.ts) would answer and store: the token
 * consumed, its successor with the same grant, session binding and absolute expiry (config.ts ttl),
 * an RFC 9068 access token (ES256, ACCESS_TOKEN_TTL) with the granted API scopes the app still
 * has, and an RS256 ID token when `openid` was granted; with a good DPoP proof, the access token
 * bound to its key (`token_type: DPoP`), and a refresh token bound to a key (a public client's,
 * RFC 9449 §5) answered only with a proof of that key. Anything else — a `scope` parameter, an
 * Origin, HTTP auth, a DPoP proof that fails or is missing where the app or the token requires one,
 * an unknown, consumed, expired or other client's token, a token with
 * claims, sid or bindings this path does not write, a missing session or grant, a
 * disabled user, a suspended app — goes to oidc-provider untouched, so every error keeps its exact
 * answer: a consumed token's replay, in particular, is oidc-provider's reuse detection (the grant
 * is revoked). A rotation that loses a race (another request consumed the token first, or a
 * logout removed the grant) writes nothing and is handed over the same way.
 */

const FIELDS = new Set(["grant_type", "client_id", "refresh_token"]);

/** Payload fields of a refresh token this path reads and writes; a token with any other goes to oidc-provider. */
const TOKEN_FIELDS = new Set([
  "iat",
  "acr",
  "amr",
  "exp",
  "kind",
  "accountId",
  "authTime",
  "clientId",
  "expiresWithSession",
  "grantId",
  "gty",
  "iiat",
  "jkt",
  "nonce",
  "resource",
  "rotations",
  "scope",
  "sessionUid",
]);
/** Payload fields of a grant this path understands (no rejected claims, no authorization details). */
const GRANT_FIELDS = new Set(["iat", "exp", "jti", "kind", "accountId", "clientId", "openid", "resources"]);

const isString = (value: unknown): value is string => typeof value === "string";
const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
const onlyFields = (payload: Record<string, unknown>, known: Set<string>) => Object.keys(payload).every((key) => known.has(key));

interface Checked {
  token: Record<string, unknown> & { accountId: string; grantId: string; scope: string; exp: number };
  grant: Record<string, unknown>;
  user: NonNullable<RefreshGrantState["user"]>;
}

/**
 * oidc-provider's checks, in its order (client match, expiry, grant, account, session binding), on
 * the state read in one query; null when any fails or anything is outside this path.
 */
function checkState(state: RefreshGrantState | null, clientId: string, nowSeconds: number): Checked | null {
  if (!state || state.consumed || !state.appApproved) return null;
  const { token, grant, session, user } = state;
  if (!onlyFields(token, TOKEN_FIELDS) || token.kind !== "RefreshToken" || token.clientId !== clientId) return null;
  if (!isNumber(token.exp) || token.exp <= nowSeconds) return null;
  if (!isString(token.accountId) || !isString(token.grantId) || !isString(token.scope) || token.resource !== apiResource()) return null;
  if (!grant || !onlyFields(grant, GRANT_FIELDS) || grant.clientId !== clientId || grant.accountId !== token.accountId) return null;
  if (isNumber(grant.exp) && grant.exp <= nowSeconds) return null;
  if (!user || user.disabled || String(user.id) !== token.accountId) return null;
  if (token.expiresWithSession === true) {
    // oidc-provider's checkSessionBinding: the session still holds this grant for this client.
    const authorizations = session?.authorizations as Record<string, { grantId?: unknown }> | undefined;
    if (!session || session.accountId !== token.accountId || authorizations?.[clientId]?.grantId !== token.grantId) return null;
  } else if (token.expiresWithSession !== undefined && token.expiresWithSession !== false) {
    return null;
  }
  return { token: token as Checked["token"], grant, user };
}

/** Space-separated `granted` filtered by `allowed`, in granted order (oidc-provider Grant#get…ScopeFiltered). */
function filterScope(granted: unknown, allowed: (scope: string) => boolean): string {
  return isString(granted) ? granted.split(" ").filter((scope) => scope && allowed(scope)).join(" ") : "";
}

/**
 * Answers the request and returns true, or returns false having written nothing (the caller then
 * hands the request, with its body, to oidc-provider).
 */
export async function tryRefreshTokenGrant(res: ServerResponse, form: ReadonlyMap<string, string>, signers: TokenSigners, dpop: string | undefined): Promise<boolean> {
  const startedMs = performance.now();
  const { accessToken: atSigner, idToken: idSigner } = signers;
  if (!atSigner || !idSigner) return false;
  if (!hasExactly(form, FIELDS) || form.get("grant_type") !== "refresh_token") return false;
  const clientId = form.get("client_id")!;
  const presented = form.get("refresh_token")!;
  if (!isLookupValue(presented)) return false;
  const [client, proof] = await Promise.all([findSignInClient(clientId), tokenEndpointProof(dpop)]);
  // A public client only: an agent or app that authenticates with private_key_jwt sends an
  // assertion, which oidc-provider checks (a request without one must not be answered here).
  if (!client || client.type !== "login" || client.agent?.keys || client.keys) return false;
  if (proof === null || (client.requireDpop && !proof)) return false;
  const presentedKey = bearerRowKey(presented);
  const state = await findRefreshGrantState(presentedKey);
  const checked = checkState(state, clientId, Math.floor(Date.now() / 1000));
  if (!checked) return false;
  const { token, grant, user } = checked;
  // A bound refresh token (oidc-provider's "failed jkt verification" otherwise).
  if (token.jkt !== undefined && (!isString(token.jkt) || token.jkt !== proof?.jkt)) return false;

  const api = apiResource();
  const scopes = new Set(token.scope.split(" "));
  const serverScopes = new Set(await resourceScopesFor(clientId));
  const atScope = filterScope((grant.resources as Record<string, unknown> | undefined)?.[api], (s) => scopes.has(s) && serverScopes.has(s));
  if (!atScope) return false;
  const idScope = scopes.has("openid") ? filterScope((grant.openid as { scope?: unknown } | undefined)?.scope, (s) => scopes.has(s)) : "";

  // Spent before the rotation, as oidc-provider's checkDpopReplay; a replay is its to answer.
  if (proof && !(await claimDpopProof(clientId, proof))) return false;
  // As config.ts stampAfterRevocation: never mint a token that a watermark of this second voids.
  await waitPastRevocation(revokedThrough(state!));
  const { ISSUER, ACCESS_TOKEN_TTL } = env();
  const nowMs = Date.now();
  const iat = Math.floor(nowMs / 1000);

  const accessPayload = accessTokenClaims({ sub: token.accountId, iat, scope: atScope, clientId, jkt: proof?.jkt });
  let idPayload: Record<string, unknown> | undefined;
  if (scopes.has("openid")) {
    // The account's claims that the granted OIDC scopes release (SCOPE_CLAIMS), then the nonce of
    // the original request, then the registered claims, as oidc-provider's IdToken and JWT helper do.
    // The sign-in's acr and amr, kept with the token, as oidc-provider's IdToken has them.
    const available: Record<string, unknown> = {
      ...accountClaims(user),
      ...(isString(token.acr) ? { acr: token.acr } : {}),
      ...(Array.isArray(token.amr) ? { amr: token.amr } : {}),
    };
    const released: Record<string, unknown> = {};
    for (const scope of idScope.split(" ")) for (const claim of SCOPE_CLAIMS[scope] ?? []) if (available[claim] !== undefined) released[claim] = available[claim];
    idPayload = { sub: token.accountId, ...released, ...(isString(token.nonce) ? { nonce: token.nonce } : {}), aud: clientId, exp: iat + ID_TOKEN_TTL, iat, iss: ISSUER };
  }
  const [accessToken, idToken] = await Promise.all([signJwt(atSigner, accessPayload), idPayload ? signJwt(idSigner, idPayload) : undefined]);

  // The successor, as oidc-provider builds it: same grant, session and absolute expiry (config.ts ttl).
  const ttl = Math.max(1, token.exp - iat);
  const successor = randomBytes(32).toString("base64url");
  const gty = isString(token.gty) && !token.gty.endsWith("refresh_token") ? `${token.gty} refresh_token` : token.gty;
  const stored = {
    ...token,
    iat,
    exp: iat + ttl,
    gty,
    // oidc-provider's RefreshToken constructor: a token without `iiat` starts the count now.
    iiat: isNumber(token.iiat) ? token.iiat : iat,
    rotations: isNumber(token.rotations) ? token.rotations + 1 : 1,
  };
  const rotated = await rotateRefreshToken({
    oldKey: presentedKey,
    newKey: bearerRowKey(successor),
    payload: JSON.stringify(stored),
    grantId: token.grantId,
    clientId,
    expiresAt: new Date(nowMs + ttl * 1000).toISOString(),
  });
  if (!rotated) return false;

  // From here the token is rotated: whatever happens, this request is answered here, never handed
  // to oidc-provider (which would see the consumed token as a replay and revoke the grant).
  try {
    sendTokenResponse(
      res,
      JSON.stringify({
        access_token: accessToken,
        expires_in: ACCESS_TOKEN_TTL,
        id_token: idToken,
        refresh_token: successor,
        scope: atScope,
        token_type: proof ? "DPoP" : "Bearer",
      }),
      proof,
    );
    // As provider.ts does for the grants oidc-provider answers: usage and "last used".
    usageMeter().recordGrant(clientId, "refresh_token", 200, null, performance.now() - startedMs, Date.now(), true, tokenRequestId(res));
    markConnectedAppUsed(user.id, clientId);
  } catch (error) {
    logger.error("refresh grant reply failed", { error: (error as Error).message });
  }
  return true;
}
