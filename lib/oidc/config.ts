import type { Configuration, KoaContextWithOIDC, ResourceServer } from "oidc-provider";
import { errors, interactionPolicy } from "oidc-provider";
import type { JWK } from "jose";
import { env } from "../env";
import { OIDC_SCOPES, SVC_SCOPE_NAMES, USER_ONLY_SCOPES, type SvcScope } from "../scopes";
import { findConsentScopes } from "../services/consents";
import { findAccount, isAccountOfAnotherWorld } from "./account";
import { getAccessStatus } from "../queries/access";
import { revokedThrough, waitPastRevocation } from "./access-tokens";
import { PgAdapter } from "./adapter";
import { DPOP_SIGNING_ALGS } from "./dpop";
import { apiResource, findSignInClient, mcpResource } from "./clients";
import { renderErrorPage } from "./html";
import { LOCALE_COOKIE, LOCALES, negotiateLocale } from "../i18n";
import { ACCESS_TOKEN_ALG, ID_TOKEN_TTL } from "./keys";
import { DEVICE_CODE_TTL, successSource, userCodeConfirmSource, userCodeInputSource } from "./device";
import { isSandboxClientId, SANDBOX_CLAIM } from "../schemas/sandboxes";
import { MFA_ACR, stepUpCheck } from "./second-factor";

/**
 * oidc-provider configuration (docs/README.md "Configuration options", v9). Everything here is
 * stateless: state lives in PostgreSQL (adapter, keys, cookie keys), so several processes can serve
 * one issuer.
 */

/** Keycloak-style paths of SPEC.md Authentication, under the issuer. */
export const ROUTES = {
  authorization: "/protocol/openid-connect/auth",
  token: "/protocol/openid-connect/token",
  end_session: "/protocol/openid-connect/logout",
  jwks: "/protocol/openid-connect/certs",
  userinfo: "/protocol/openid-connect/userinfo",
  introspection: "/protocol/openid-connect/token/introspect",
  revocation: "/protocol/openid-connect/revoke",
  // RFC 9126 at Keycloak's path.
  pushed_authorization_request: "/protocol/openid-connect/ext/par/request",
  // RFC 8628: Keycloak's device endpoint, and its verification page under the realm.
  device_authorization: "/protocol/openid-connect/auth/device",
  code_verification: "/device",
  // RFC 7591 at Keycloak's path, served by lib/oidc/registration.ts when DYNAMIC_REGISTRATION=agents.
  registration: "/clients-registrations/openid-connect",
} as const;

/** Authorization codes are for immediate exchange (RFC 6749 §4.1.2 recommends at most 10 minutes). */
const AUTHORIZATION_CODE_TTL = 60;
/** Time a person has to finish the login and consent pages. */
export const INTERACTION_TTL = 30 * 60;

/** Where the hosted pages live: on the issuer's origin, so the interaction cookie reaches them. */
export function interactionBase(): string {
  return `${new URL(env().ISSUER).origin}/interaction`;
}

export function isHttps(): boolean {
  return env().ISSUER.startsWith("https:") || env().APP_URL.startsWith("https:");
}

const OIDC_SCOPE_NAMES = Object.keys(OIDC_SCOPES);

/** The claims each OIDC scope releases (oidc-provider `claims`; the refresh fast path filters ID tokens by it too). */
export const SCOPE_CLAIMS: Record<string, string[]> = {
  // How the person signed in (lib/oidc/second-factor.ts), in every ID token that has it.
  openid: ["sub", "acr", "amr"],
  profile: ["name", "preferred_username", "picture"],
};
const SUPPORTED_SCOPES = [...OIDC_SCOPE_NAMES, ...SVC_SCOPE_NAMES];
const augmented = new WeakSet<object>();

/**
 * Scope rules that oidc-provider cannot express on its own, applied once per request from the
 * resource-indicator hooks (the first hooks that see both the client and the parsed parameters):
 * - authorization: a login client asking for `openid` gets its registered `svc:` scopes attached
 *   (SPEC Authentication, login client step 3);
 * - client credentials: the token carries exactly the app's registered app-level scopes, or the
 *   ones asked for (oidc-provider would silently drop unknown ones, and grant nothing when nothing
 *   is asked);
 * - issue 27 (RFC 6749 §5.2, §4.1.2.1): a requested scope the platform does not know, or an `svc:`
 *   scope the app is not registered for, is `invalid_scope` naming it — an error redirect from the
 *   authorization endpoint (oidc-provider redirects once the redirect_uri checks out), a 400 from
 *   the device authorization and token endpoints. The OIDC scopes (openid, profile, offline_access)
 *   stay as they were for a login client; an API client's are ignored (asking only for `openid`
 *   grants the registered scopes rather than a scopeless token).
 */
async function applyScopeRules(ctx: KoaContextWithOIDC): Promise<void> {
  if (augmented.has(ctx)) return;
  augmented.add(ctx);
  const { params, route, client } = ctx.oidc;
  if (!client || !params) return;
  const app = await findSignInClient(client.clientId);
  if (!app) return;
  const requested = typeof params.scope === "string" && params.scope ? params.scope.split(" ") : [];
  // The device flow's scope is decided at its device authorization request (RFC 8628 §3.1) and
  // kept with the device code for the person's part.
  const userFacing = route === "authorization" || route === "device_authorization";
  if (userFacing && app.agent) {
    // An AI agent gets what it asked for within what its domain's rule allows (issue 40): a scope
    // of the platform beyond that is dropped rather than refused (MCP clients ask for every scope
    // the resource lists; the consent page and the token name what is granted, and a later 403
    // insufficient_scope says what is missing). A scope the platform does not know is refused.
    refuseUnregistered(requested.filter((s) => !SUPPORTED_SCOPES.includes(s)), [], false);
    params.scope = requested.filter((s) => OIDC_SCOPE_NAMES.includes(s) || (app.svcScopes as string[]).includes(s)).join(" ") || undefined;
  } else if (userFacing && app.type === "login") {
    refuseUnregistered(requested.filter((s) => !OIDC_SCOPE_NAMES.includes(s)), app.svcScopes, false);
    if (requested.includes("openid")) params.scope = [...new Set([...requested, ...app.svcScopes])].join(" ");
  } else if (route === "token" && params.grant_type === "client_credentials" && app.type === "api") {
    const asked = requested.filter((s) => !OIDC_SCOPE_NAMES.includes(s));
    refuseUnregistered(asked, app.svcScopes, true);
    const allowed = asked.length ? app.svcScopes.filter((s) => asked.includes(s)) : app.svcScopes;
    params.scope = allowed.length ? allowed.join(" ") : undefined;
  }
}

/**
 * `invalid_scope` naming every asked-for scope that is not one of `registered` (the
 * description says why for each; the `scope` member lists them).
 */
function refuseUnregistered(asked: readonly string[], registered: readonly string[], appOnly: boolean): void {
  const refused = [...new Set(asked.filter((s) => !registered.includes(s)))];
  if (!refused.length) return;
  const why = (scope: string) =>
    !SUPPORTED_SCOPES.includes(scope)
      ? `${scope} (not a scope of this platform)`
      : appOnly && USER_ONLY_SCOPES.includes(scope as SvcScope)
        ? `${scope} (acts for a user: an app-only token cannot hold it)`
        : `${scope} (not registered for this app)`;
  throw new errors.InvalidScope(`requested scope is not allowed: ${refused.map(why).join(", ")}`, refused.join(" "));
}

/** Scopes the API (the one resource server) accepts from this client. */
export async function resourceScopesFor(clientId: string): Promise<string[]> {
  const app = await findSignInClient(clientId);
  if (!app) return [];
  // Login clients' tokens also list the OIDC scopes they were granted (as Keycloak's do), so the
  // token response `scope` names everything granted and userinfo can check `openid`.
  return app.type === "login" ? [...OIDC_SCOPE_NAMES, ...app.svcScopes] : [...app.svcScopes];
}

/**
 * Skips the consent page for first-party clients and for a remembered consent covering every
 * requested scope (docs: "loadExistingGrant"): the grant is extended with what was asked.
 */
async function loadExistingGrant(ctx: KoaContextWithOIDC) {
  const { client, session, provider } = ctx.oidc;
  if (!client || !session) return undefined;
  const grantId = ctx.oidc.result?.consent?.grantId || session.grantIdFor(client.clientId);
  let grant = grantId ? await provider.Grant.find(grantId) : undefined;
  const accountId = session.accountId;
  if (!accountId) return grant;
  const app = await findSignInClient(client.clientId);
  if (!app || app.type !== "login") return grant;
  const requested = [...ctx.oidc.requestParamScopes].filter(Boolean);
  let covered = app.firstParty;
  if (!covered) {
    const remembered = await findConsentScopes(Number(accountId), client.clientId);
    covered = remembered !== null && requested.every((s) => remembered.includes(s));
  }
  if (!covered) return grant;
  if (!grant || grant.accountId !== accountId || grant.clientId !== client.clientId) {
    grant = new provider.Grant({ accountId, clientId: client.clientId });
  }
  // Every supported scope (svc: ones included) is an "OIDC scope" to oidc-provider's consent check,
  // because they are all listed in `scopes`; the API's share is granted as resource scopes below.
  const known = requested.filter((s) => SUPPORTED_SCOPES.includes(s));
  if (known.length) grant.addOIDCScope(known.join(" "));
  for (const [indicator, server] of Object.entries(ctx.oidc.resourceServers ?? {}) as [string, ResourceServer][]) {
    const allowed = new Set((server.scope ?? "").split(" "));
    const scopes = requested.filter((s) => allowed.has(s));
    if (scopes.length) grant.addResourceScope(indicator, scopes.join(" "));
  }
  await grant.save();
  return grant;
}

/**
 * A token minted in the same second as a revocation of its app or grant would be void at birth
 * (watermarks compare whole seconds with `iat`): wait for the next second and stamp the token then.
 * Read fresh (batched per turn), not from the API's status cache: issuing a token must not fill
 * that cache with an answer the token's first API call would then trust.
 */
async function stampAfterRevocation(
  token: { clientId?: string; accountId?: string },
  payload: Record<string, unknown>,
): Promise<void> {
  if (!token.clientId || typeof payload.iat !== "number" || typeof payload.exp !== "number") return;
  const userId = token.accountId ? Number(token.accountId) : undefined;
  const through = revokedThrough(await getAccessStatus(token.clientId, userId));
  if (through === null || payload.iat > through) return;
  await waitPastRevocation(through);
  const iat = Math.floor(Date.now() / 1000);
  payload.exp = iat + (payload.exp - payload.iat);
  payload.iat = iat;
}

/**
 * oidc-provider's default prompts, and one more reason to ask who is there: the browser
 * is signed in as a person of another world than the client's, a sandbox's test user at a live
 * client or a live person at a sandbox client. findAccount refuses them there, so without this
 * check the request would go on to consent with nobody; instead the login page asks, in the
 * client's world. Only looked at when the session's account was refused (rare): no cost otherwise.
 */
function interactionPrompts(): interactionPolicy.Prompt[] {
  const policy = interactionPolicy.base();
  policy.get("login")!.checks.add(
    new interactionPolicy.Check("other_world_session", "End-User must sign in to this client's world", "login_required", async (ctx) => {
      const { session, account, client } = ctx.oidc;
      if (!session?.accountId || account || !client) return interactionPolicy.Check.NO_NEED_TO_PROMPT;
      return (await isAccountOfAnotherWorld(session.accountId, client.clientId))
        ? interactionPolicy.Check.REQUEST_PROMPT
        : interactionPolicy.Check.NO_NEED_TO_PROMPT;
    }),
  );
  // Acr_values asking for a second factor (step-up).
  policy.get("login")!.checks.add(stepUpCheck());
  return policy;
}

export interface ConfigurationInput {
  jwks: { keys: JWK[] };
  cookieKeys: string[];
  /** The DPoP nonce secret (lib/oidc/dpop.ts dpopNonceSecret): the fast paths and the API issue the same nonces. */
  dpopNonceSecret: Buffer;
  logoutSource: NonNullable<NonNullable<Configuration["features"]>["rpInitiatedLogout"]>["logoutSource"];
  postLogoutSuccessSource: NonNullable<NonNullable<Configuration["features"]>["rpInitiatedLogout"]>["postLogoutSuccessSource"];
}

export function buildConfiguration(input: ConfigurationInput): Configuration {
  const config = env();
  const api = apiResource();
  const cookieOptions = { httpOnly: true, sameSite: "lax" as const, secure: isHttps() };

  return {
    adapter: PgAdapter,
    findAccount,
    jwks: input.jwks as Configuration["jwks"],
    cookies: { keys: input.cookieKeys, long: cookieOptions, short: cookieOptions },
    routes: ROUTES,
    scopes: SUPPORTED_SCOPES,
    claims: SCOPE_CLAIMS,
    acrValues: [MFA_ACR],
    responseTypes: ["code"],
    // SPEC Authentication: API clients use a secret (basic or post), login clients none; an AI
    // agent none or private_key_jwt with its document's jwks_uri (lib/oidc/agents.ts).
    clientAuthMethods: ["client_secret_basic", "client_secret_post", "private_key_jwt", "none"],
    // SPEC Authentication step 3 and 5: redirect_uri is always sent, and must match verbatim.
    allowOmittingSingleRegisteredRedirectUri: false,
    pkce: { required: () => true },
    enabledJWA: { dPoPSigningAlgValues: DPOP_SIGNING_ALGS as NonNullable<Configuration["enabledJWA"]>["dPoPSigningAlgValues"] },
    clientDefaults: {
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      id_token_signed_response_alg: "RS256",
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      userinfo: { enabled: true },
      // RFC 9449: any client may bind its tokens to a key (token_type DPoP, cnf.jkt; a public client's
      // refresh token too), and an app may require it (clients.ts dpop_bound_access_tokens). The fast
      // paths, the API and userinfo check proofs the same way (lib/oidc/dpop.ts), with the same
      // nonces (DPOP_NONCE) and the same replay table (adapter.ts ReplayDetection, claimed atomically).
      dPoP: {
        enabled: true,
        allowReplay: false,
        nonceSecret: config.DPOP_NONCE ? input.dpopNonceSecret : undefined,
        requireNonce: () => config.DPOP_NONCE,
      },
      // RFC 9126: any client may push its authorization request (login clients without a secret
      // too, as `none`), and an app may require it (clients.ts require_pushed_authorization_requests).
      // A pushed request's redirect_uri must be registered like any other.
      pushedAuthorizationRequests: { enabled: true, requirePushedAuthorizationRequests: false, allowUnregisteredRedirectUris: false },
      // RFC 8628 device sign-in, for login clients whose approved configuration allows it
      // (clients.ts grant_types). User codes: 8 of 20 consonants (no vowels: no words), XXXX-XXXX.
      deviceFlow: {
        enabled: true,
        charset: "base-20",
        mask: "****-****",
        userCodeInputSource,
        userCodeConfirmSource,
        successSource,
      },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: input.logoutSource,
        postLogoutSuccessSource: input.postLogoutSuccessSource,
      },
      // The only way oidc-provider issues JWT access tokens (RFC 9068). A token is for one resource:
      // the API (the default, as every token before resource indicators were asked for) or the MCP
      // server; its `aud` names it, and each accepts only its own (RFC 8707).
      resourceIndicators: {
        enabled: true,
        defaultResource: async (ctx: KoaContextWithOIDC) => {
          await applyScopeRules(ctx);
          return api;
        },
        useGrantedResource: async () => true,
        getResourceServerInfo: async (ctx: KoaContextWithOIDC, resourceIndicator: string, client: { clientId: string }) => {
          if (resourceIndicator !== api && resourceIndicator !== mcpResource()) throw new errors.InvalidTarget();
          await applyScopeRules(ctx);
          return {
            scope: (await resourceScopesFor(client.clientId)).join(" "),
            audience: resourceIndicator,
            accessTokenTTL: config.ACCESS_TOKEN_TTL,
            accessTokenFormat: "jwt",
            jwt: { sign: { alg: ACCESS_TOKEN_ALG } },
          };
        },
      },
    },
    formats: {
      customizers: {
        async jwt(_ctx, token, jwt) {
          // SPEC: `sub` only on user-delegated tokens (oidc-provider puts the client id there otherwise).
          if (token.kind === "ClientCredentials") delete jwt.payload.sub;
          // A sandbox token is marked (the client-credentials fast path writes the same claim last).
          if (token.clientId && isSandboxClientId(token.clientId)) jwt.payload[SANDBOX_CLAIM] = true;
          await stampAfterRevocation(token, jwt.payload);
        },
      },
    },
    ttl: {
      AccessToken: config.ACCESS_TOKEN_TTL,
      ClientCredentials: config.ACCESS_TOKEN_TTL,
      AuthorizationCode: AUTHORIZATION_CODE_TTL,
      DeviceCode: DEVICE_CODE_TTL,
      IdToken: ID_TOKEN_TTL,
      Interaction: INTERACTION_TTL,
      // A sign-in lasts REFRESH_TOKEN_TTL: rotated refresh tokens keep the first one's expiry.
      RefreshToken: (ctx) => {
        const rotated = ctx?.oidc?.entities.RotatedRefreshToken;
        return rotated ? Math.max(1, rotated.remainingTTL) : config.REFRESH_TOKEN_TTL;
      },
      Session: config.REFRESH_TOKEN_TTL,
      Grant: config.REFRESH_TOKEN_TTL,
    },
    // SPEC Authentication step 6: rotation on every use, no grace window.
    rotateRefreshToken: () => true,
    // SPEC step 5: login clients get a refresh token without asking for offline_access.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    loadExistingGrant,
    interactions: {
      policy: interactionPrompts(),
      url: async (_ctx, interaction) => `${interactionBase()}/${interaction.uid}`,
    },
    clientBasedCORS(_ctx, origin, client) {
      // Only public (login) clients run in browsers; their registered redirect URIs' origins.
      if (client.clientAuthMethod !== "none") return false;
      return client.redirectUris?.some((uri) => URL.parse(uri)?.origin === origin) ?? false;
    },
    async renderError(ctx, out) {
      ctx.type = "html";
      ctx.set("cache-control", "no-store");
      ctx.body = renderErrorPage({
        error: out.error,
        errorDescription: out.error_description,
        homeUrl: `${config.APP_URL}/`,
        // The person's language (lib/i18n), from the request as far as it was read.
        locale: negotiateLocale({
          cookie: ctx.cookies.get(LOCALE_COOKIE),
          uiLocales: ctx.oidc?.params?.ui_locales ?? ctx.query?.ui_locales,
          acceptLanguage: ctx.get("accept-language"),
        }),
      });
    },
    extraClientMetadata: { properties: [] },
    // The hosted pages' languages (lib/i18n), chosen by ui_locales among others.
    discovery: {
      service_documentation: `${config.APP_URL}/docs`,
      ui_locales_supported: [...LOCALES],
      // AI agents name themselves by their metadata document's URL (issue 40, lib/oidc/agents.ts).
      client_id_metadata_document_supported: true,
      // Older MCP clients register themselves instead (RFC 7591), when the operator allows it.
      ...(config.DYNAMIC_REGISTRATION === "agents" ? { registration_endpoint: `${config.ISSUER}${ROUTES.registration}` } : {}),
    },
  };
}
