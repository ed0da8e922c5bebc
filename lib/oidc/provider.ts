import type { KoaContextWithOIDC } from "oidc-provider";
import Provider from "oidc-provider";
import { env } from "../env";
import { isAppError } from "../errors";
import { logger } from "../logger";
import { getCookieKeys } from "../services/settings";
import { verifyClientCredentials } from "../services/app-secrets";
import { isAppClientId } from "../services/apps";
import { markConnectedAppUsed } from "../services/connected-apps";
import { recordSignInSessionActivity } from "../services/sign-in-sessions";
import { clientIp } from "../http/client-ip";
import { usageMeter } from "../services/usage-meter";
import { checkPresentedToken, parseAuthorization } from "./access-tokens";
import { findAccount } from "./account";
import { dpopChallengeParams, DpopError, dpopNonceSecret } from "./dpop";
import { clientOrigins, findSignInClient } from "./clients";
import { buildConfiguration, interactionBase, ROUTES } from "./config";
import { LOGOUT_PAGE_PATH, LOGOUT_XSRF_COOKIE, SIGNED_OUT_PAGE_PATH } from "./constants";
import { DEVICE_POLL_INTERVAL, deviceFlowMiddleware } from "./device";
import { getProviderJwks, keySetFingerprint } from "./keys";
import { countTokenGrant } from "../metrics";

/**
 * Builds the oidc-provider instance (STYLE: lib/oidc/provider.ts). Pinned to oidc-provider 9.x: the
 * client-secret hook below is undocumented.
 */


async function logoutSource(ctx: KoaContextWithOIDC, form: string): Promise<void> {
  // oidc-provider hands us its form; the confirmation page itself is rendered by Next
  // (app/interaction/logout), so only the xsrf value travels, in a short-lived cookie, not the URL.
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(form)?.[1];
  if (!xsrf) throw new Error("logout form without xsrf");
  ctx.cookies.set(LOGOUT_XSRF_COOKIE, xsrf, {
    path: LOGOUT_PAGE_PATH,
    httpOnly: true,
    sameSite: "lax",
    secure: ctx.cookies.secure,
    signed: false,
    maxAge: 10 * 60 * 1000,
  });
  const target = new URL(LOGOUT_PAGE_PATH, interactionBase());
  if (ctx.oidc.client) target.searchParams.set("client_id", ctx.oidc.client.clientId);
  ctx.status = 303;
  ctx.redirect(target.href);
}

async function postLogoutSuccessSource(ctx: KoaContextWithOIDC): Promise<void> {
  ctx.status = 303;
  ctx.redirect(new URL(SIGNED_OUT_PAGE_PATH, interactionBase()).href);
}

/** Client secrets are stored as SHA-256 hashes, one or two active per client (lib/services/app-secrets.ts). */
function installClientSecretCheck(provider: Provider): void {
  // oidc-provider 9.13 lib/models/client.js `compareClientSecret(actual)` (awaited by
  // lib/shared/client_auth.js); panva's suggested hook for hashed secrets (issues #104, #631).
  const proto = provider.Client.prototype as unknown as { compareClientSecret(actual: string): Promise<boolean> };
  proto.compareClientSecret = async function compareClientSecret(
    this: { clientId: string; clientSecret?: string },
    actual: string,
  ) {
    if (typeof actual !== "string" || typeof this.clientSecret !== "string") return false;
    // The cached metadata may be a few seconds old; the stored hashes are read fresh, so a retired
    // or rolled secret (or a suspended client's) fails at once, in every process.
    return (await verifyClientCredentials(this.clientId, actual)) !== null;
  };
}


/**
 * userinfo for the platform's JWT access tokens. oidc-provider's own userinfo refuses every token
 * with an audience, and every token here is minted for the API (resource indicators), so the
 * endpoint answers from the verified token instead, with the same checks as the API
 * (lib/oidc/access-tokens.ts: signature, expiry, app approved, user present, not revoked), then the
 * account (a disabled user has none).
 */
async function userinfo(ctx: KoaContextWithOIDC): Promise<void> {
  ctx.set("cache-control", "no-store");
  const presented = parseAuthorization(ctx.get("authorization"));
  // A DPoP request is answered with DPoP's challenge (RFC 9449 §7.1), a bearer one with Bearer's.
  const fail = (status: number, error: string, description: string, nonce?: string) => {
    ctx.status = status;
    const realm = `realm="${new URL(env().ISSUER).host}"`;
    const dpop = presented?.scheme === "DPoP" || error === "invalid_dpop_proof" || error === "use_dpop_nonce";
    ctx.set("www-authenticate", dpop ? `DPoP ${realm}, ${dpopChallengeParams(error, description)}` : `Bearer ${realm}, error="${error}", error_description="${description}"`);
    if (nonce) ctx.set("dpop-nonce", nonce);
    ctx.body = { error, error_description: description };
  };
  if (!presented) return fail(401, "invalid_token", "no access token provided");
  let claims;
  try {
    const url = `${env().ISSUER}${ROUTES.userinfo}`;
    ({ claims } = await checkPresentedToken(presented, { method: ctx.method, url, dpop: ctx.get("dpop") || null }));
  } catch (error) {
    if (error instanceof DpopError) return fail(401, error.error, error.message, error.nonce);
    if (isAppError(error)) return fail(401, "invalid_token", "invalid or expired access token");
    throw error;
  }
  const origin = ctx.get("origin");
  if (origin) {
    const client = await findSignInClient(claims.clientId);
    if (client && clientOrigins(client).has(origin)) {
      ctx.set("access-control-allow-origin", origin);
      ctx.vary("origin");
    }
  }
  if (!claims.sub || !claims.scopes.includes("openid")) return fail(403, "insufficient_scope", "access token missing openid scope");
  const account = await findAccount(undefined, claims.sub);
  if (!account) return fail(401, "invalid_token", "invalid or expired access token");
  const all = (await account.claims("userinfo", claims.scopes.join(" "), {}, [])) as Record<string, unknown>;
  const body: Record<string, unknown> = { sub: all.sub };
  if (claims.scopes.includes("profile")) {
    for (const key of ["name", "preferred_username", "picture"]) if (all[key] !== undefined) body[key] = all[key];
  }
  ctx.body = body;
}

/**
 * Counts a token request oidc-provider answered, per app and grant type, once its status
 * is known. A login client authenticates with nothing (token_endpoint_auth_method
 * `none`), so its failed requests may come from anyone who knows its client ID: counted apart, as
 * unauthenticated callers, not in the app's own error rate. Its successes proved a code and
 * verifier or a refresh token: the app's. An `invalid_client` answer (a wrong secret; the
 * fast paths hand those here) names a client oidc-provider knows (it sets the client before
 * checking its credentials) but proves nothing: logged for the app the same way, as an
 * unauthenticated caller's, so the developer finds it by its request id. The answer's
 * `error_description` is logged with it.
 */
function meterGrant(ctx: KoaContextWithOIDC, startedMs: number): void {
  const client = ctx.oidc?.client;
  const grantType = ctx.oidc?.params?.grant_type;
  // Every grant oidc-provider answered, by type and result (lib/metrics.ts folds unknown values).
  const error = ctx.status >= 400 ? (ctx.body as { error?: unknown } | undefined)?.error : null;
  countTokenGrant(typeof grantType === "string" ? grantType : "other", ctx.status < 400 ? null : typeof error === "string" ? error : "other_error");
  if (!client || typeof grantType !== "string") return;
  // Only the grant types the platform offers become route names (a client picks the string).
  if (grantType !== "client_credentials" && grantType !== "authorization_code" && grantType !== "refresh_token") return;
  const body = ctx.body as { error?: unknown; error_description?: unknown } | undefined;
  const failed = ctx.status >= 400;
  const errorCode = failed && typeof body?.error === "string" ? body.error : null;
  const errorMessage = failed && typeof body?.error_description === "string" ? body.error_description : null;
  const authenticated = !failed || (client.clientAuthMethod !== "none" && errorCode !== "invalid_client");
  const requestId = ctx.res.getHeader("x-request-id");
  usageMeter().recordGrant(
    client.clientId,
    grantType,
    ctx.status,
    errorCode,
    performance.now() - startedMs,
    Date.now(),
    authenticated,
    typeof requestId === "string" ? requestId : null,
    errorMessage,
  );
}

/** The client ID a token request names: the form's `client_id`, else the Basic credentials' user part. */
function claimedClientId(ctx: KoaContextWithOIDC): string | null {
  const fromForm = ctx.oidc?.params?.client_id;
  if (typeof fromForm === "string") return fromForm;
  const header = ctx.get("authorization");
  if (!/^basic /i.test(header)) return null;
  const decoded = Buffer.from(header.slice(6).trim(), "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 1) return null;
  try {
    return decodeURIComponent(decoded.slice(0, colon));
  } catch {
    return null;
  }
}

/**
 * A token request naming the client ID of an app oidc-provider does not know (waiting
 * for review, rejected, suspended: SPEC States) is answered `invalid_client` with no client set, so
 * meterGrant cannot attribute it. It is logged for that app all the same, as an unauthenticated
 * caller's (it proved nothing), so the developer of a pending app finds it by its request id; an ID
 * no app has is logged nowhere. Only this failure path pays: one indexed read after the answer is
 * decided, not awaited, so neither a success nor the failure's answer waits for it.
 */
function meterUnknownClient(ctx: KoaContextWithOIDC, startedMs: number): void {
  if (ctx.oidc?.client || ctx.status !== 401) return;
  const body = ctx.body as { error?: unknown; error_description?: unknown } | undefined;
  if (body?.error !== "invalid_client") return;
  const grantType = ctx.oidc?.params?.grant_type;
  if (grantType !== "client_credentials" && grantType !== "authorization_code" && grantType !== "refresh_token") return;
  const clientId = claimedClientId(ctx);
  if (!clientId) return;
  const latencyMs = performance.now() - startedMs;
  const nowMs = Date.now();
  const requestId = ctx.res.getHeader("x-request-id");
  const message = typeof body.error_description === "string" ? body.error_description : null;
  isAppClientId(clientId)
    .then((known) => {
      if (known) {
        usageMeter().recordGrant(clientId, grantType, 401, "invalid_client", latencyMs, nowMs, false, typeof requestId === "string" ? requestId : null, message);
      }
    })
    .catch((error: unknown) => logger.error("request log: the app of a failed token request was not looked up", { error: String(error) }));
}

/**
 * Oidc-provider says only "client authentication failed". A developer whose app waits for
 * review gets the same answer as one with a wrong secret (an unapproved app is unknown to the
 * provider, SPEC States), so the text names every cause without revealing which one it was.
 */
const INVALID_CLIENT_DESCRIPTION =
  "client authentication failed: the client ID or secret is wrong, or the app is not approved (it may not be approved yet, or was suspended)";

function explainInvalidClient(body: unknown): void {
  const out = body as { error?: unknown; error_description?: unknown } | undefined;
  if (out?.error === "invalid_client") out.error_description = INVALID_CLIENT_DESCRIPTION;
}

/**
 * RFC 6749 §5.2: a grant type the authenticated client may not use (an API client's
 * refresh_token or authorization_code, a login client's client_credentials, a device code without
 * device sign-in) is `unauthorized_client`. oidc-provider 9.13.3 answers `invalid_request`
 * (https://github.com/panva/node-oidc-provider/blob/v9.13.3/lib/actions/token.js#L62); the fast
 * paths hand every such request to it.
 */
function answerUnauthorizedClient(body: unknown): void {
  const out = body as { error?: unknown; error_description?: unknown } | undefined;
  if (out?.error === "invalid_request" && out.error_description === "requested grant type is not allowed for this client") {
    out.error = "unauthorized_client";
  }
}

export interface BuiltProvider {
  provider: Provider;
  keysFingerprint: string;
}

export async function buildProvider(): Promise<BuiltProvider> {
  const config = env();
  const jwks = await getProviderJwks();
  const provider = new Provider(
    config.ISSUER,
    buildConfiguration({ jwks, cookieKeys: await getCookieKeys(), dpopNonceSecret: await dpopNonceSecret(), logoutSource, postLogoutSuccessSource }),
  );
  // Behind a TLS-terminating proxy, X-Forwarded-Proto/Host build the right URLs (docs: "Trusting
  // TLS offloading proxies").
  provider.proxy = config.TRUST_PROXY;
  installClientSecretCheck(provider);

  const https = config.ISSUER.startsWith("https:");
  provider.use(async (ctx, next) => {
    // APP_URL says https: TLS ends before us, so Secure cookies are right even on a plain hop.
    if (https) ctx.cookies.secure = true;
    if (ctx.path === ROUTES.userinfo && (ctx.method === "GET" || ctx.method === "POST")) {
      await userinfo(ctx as KoaContextWithOIDC);
      return;
    }
    const startedMs = performance.now();
    await next();
    if (ctx.path === ROUTES.token && ctx.method === "POST") {
      explainInvalidClient(ctx.body);
      answerUnauthorizedClient(ctx.body);
      meterGrant(ctx as KoaContextWithOIDC, startedMs);
      meterUnknownClient(ctx as KoaContextWithOIDC, startedMs);
    }
    // v9 leaves unknown paths under the issuer as a bare 404; answer in OAuth form.
    if (ctx.status === 404 && ctx.body === undefined) {
      ctx.status = 404;
      ctx.body = { error: "not_found", error_description: "no such endpoint under the issuer" };
    }
  });

  provider.use(deviceFlowMiddleware(ROUTES));
  // RFC 8628 §3.2: oidc-provider leaves out `interval` (default 5 s); say it, since slow_down enforces it.
  provider.on("device_authorization.success", (_ctx: unknown, body: Record<string, unknown>) => {
    body.interval = DEVICE_POLL_INTERVAL;
  });

  provider.on("server_error", (_ctx: unknown, error: Error) => {
    logger.error("sign-in service error", { error: error.message, name: error.name });
  });
  for (const event of ["grant.error", "introspection.error", "revocation.error", "end_session.error"]) {
    (provider as unknown as { on(e: string, fn: (...args: never[]) => void): void }).on(event, (_ctx: unknown, error: Error & { error_description?: string; expose?: boolean }) => {
      if (error.expose === false) logger.error("sign-in service error", { event, error: error.message });
      else logger.debug("sign-in request refused", { event, error: error.message, description: error.error_description });
    });
  }
  // "Last used" on the person's Connected apps page (authorization code and refresh grants).
  provider.on("grant.success", (ctx: KoaContextWithOIDC) => {
    const accountId = ctx.oidc.entities.Grant?.accountId;
    const clientId = ctx.oidc.client?.clientId;
    if (!accountId || !clientId || !/^[0-9]{1,10}$/.test(accountId)) return;
    markConnectedAppUsed(Number(accountId), clientId);
  });
  // Where the person is signed in (Account security): the session that answered, with
  // this browser and its network. Not awaited: the authorization's answer does not wait for it.
  provider.on("authorization.success", (ctx: KoaContextWithOIDC) => {
    const session = ctx.oidc.session;
    const accountId = session?.accountId;
    if (!session?.uid || !accountId || !/^[1-9][0-9]{0,9}$/.test(accountId)) return;
    recordSignInSessionActivity({
      uid: session.uid,
      userId: Number(accountId),
      userAgent: ctx.get("user-agent"),
      address: clientIp(ctx.req, config.TRUST_PROXY_RULE),
    }).catch((error: unknown) => logger.warn("sign-in session not recorded", { error: (error as Error).message }));
  });
  provider.on("authorization.error", (_ctx: unknown, error: Error & { error_description?: string }) => {
    logger.debug("authorization refused", { error: error.message, description: error.error_description });
  });

  return { provider, keysFingerprint: keySetFingerprint(jwks.keys) };
}
