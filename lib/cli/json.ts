import { logoPath, type AppView, type RevealedSecret, type SecretView } from "../schemas/apps";
import type { ConnectedApp } from "../schemas/connected-apps";
import { grantTypeOf, type UsageRange } from "../schemas/usage";
import type { SandboxSecret, SandboxTestUser, SandboxTestUserCredentials, SandboxView } from "../schemas/sandboxes";
import type { SignInSessionView } from "../schemas/sign-in-sessions";
import type { UserView } from "../schemas/users";
import { dateToUnixSeconds, publicUrl } from "../schemas/wire";
import type { RequestLogRow } from "../schemas/usage";
import type { UsageSummary } from "../services/usage";

/**
 * The CLI's `--json` views: snake_case, built only here, as the API's are built only in
 * lib/api/serialize. The API has no app, secret, team or usage resources (SPEC), so no shape is
 * shared; the rules of the wire are: Unix seconds and absolute URLs come from lib/schemas/wire.ts.
 */

/** Unix seconds, as on the API's wire, or null. */
export const unix = (date: Date | null) => (date ? dateToUnixSeconds(date) : null);

/** A logo's absolute URL on the platform's origin, as the JSON names it (logo_url). */
function logoUrl(clientId: string, file: string | null | undefined): string | null {
  return file ? publicUrl(logoPath(clientId, file)) : null;
}

/** An app as `apps show|list|update|limit|transfer` and `apps changes` print it (PRODUCT.md). */
export function appJson(app: AppView) {
  return {
    client_id: app.clientId,
    name: app.name,
    type: app.type,
    status: app.status,
    status_reason: app.statusReason,
    revision: app.revision,
    owner: app.owner.handle,
    scopes: app.scopes,
    redirect_uris: app.redirectUris,
    post_logout_redirect_uris: app.postLogoutRedirectUris,
    homepage_url: app.homepageUrl,
    privacy_policy_url: app.privacyPolicyUrl,
    terms_url: app.termsUrl,
    logo_url: logoUrl(app.clientId, app.logo),
    device: app.deviceFlow,
    require_par: app.requirePar,
    require_dpop: app.requireDpop,
    // Whether it authenticates at the token endpoint with its keys (lib/services/app-keys.ts: `apps keys show`).
    private_key_jwt: app.clientKeys !== null,
    created_at: unix(app.createdAt),
    requests_per_minute: app.requestsPerMinute,
    pending_change: app.pendingChange
      ? {
          ...(app.pendingChange.name !== undefined ? { name: app.pendingChange.name } : {}),
          ...(app.pendingChange.description !== undefined ? { description: app.pendingChange.description } : {}),
          ...(app.pendingChange.scopes ? { scopes: app.pendingChange.scopes } : {}),
          ...(app.pendingChange.redirectUris ? { redirect_uris: app.pendingChange.redirectUris } : {}),
          ...(app.pendingChange.postLogoutRedirectUris
            ? { post_logout_redirect_uris: app.pendingChange.postLogoutRedirectUris }
            : {}),
          ...(app.pendingChange.homepageUrl !== undefined ? { homepage_url: app.pendingChange.homepageUrl } : {}),
          ...(app.pendingChange.privacyPolicyUrl !== undefined ? { privacy_policy_url: app.pendingChange.privacyPolicyUrl } : {}),
          ...(app.pendingChange.termsUrl !== undefined ? { terms_url: app.pendingChange.termsUrl } : {}),
          ...(app.pendingChange.logo !== undefined ? { logo_url: logoUrl(app.clientId, app.pendingChange.logo) } : {}),
          ...(app.pendingChange.deviceFlow !== undefined ? { device: app.pendingChange.deviceFlow } : {}),
          requested_at: unix(app.pendingChange.requestedAt),
          requested_by: app.pendingChange.requestedBy,
        }
      : null,
  };
}

/** An API client's secret as `apps secrets list|retire` print it: never the value. */
export function secretJson(secret: SecretView) {
  return { id: secret.id, hint: secret.hint, created_at: unix(secret.createdAt), last_used_at: unix(secret.lastUsedAt) };
}

/** A secret as `apps secrets add|roll` print it, the only time its value is shown. */
export function revealedSecretJson(revealed: RevealedSecret) {
  return { id: revealed.secretId, client_secret: revealed.clientSecret, hint: revealed.secretHint };
}

/** A new account (`users create`); the API's user views are public profiles, not an operator's record. */
export function createdUserJson(user: UserView) {
  return { id: user.id, handle: user.handle, display_name: user.displayName, role: user.role };
}

/** An account's switches (`users disable|enable|mute|unmute`). */
export function userStatusJson(user: UserView) {
  return { handle: user.handle, disabled: user.disabled, muted: user.muted };
}

/** One of a person's Connected apps (`users apps`). */
export function connectedAppJson(app: ConnectedApp) {
  return {
    client_id: app.clientId,
    name: app.name,
    scopes: app.scopes,
    authorized_at: unix(app.authorizedAt),
    last_used_at: unix(app.lastUsedAt),
  };
}

/** An app's usage over a range (`apps usage`). */
export function usageJson(clientId: string, range: UsageRange, summary: UsageSummary) {
  return {
    client_id: clientId,
    since: unix(summary.since),
    range,
    total: summary.total,
    by_status_class: summary.byClass,
    p50_ms: summary.p50Ms,
    p95_ms: summary.p95Ms,
    routes: summary.routes.map((r) => ({
      route: r.route,
      total: r.total,
      p50_ms: r.p50Ms,
      p95_ms: r.p95Ms,
      by_status: r.byStatus.map((b) => ({ status: b.status, error_code: b.errorCode, count: b.count })),
    })),
    errors: summary.errors.map((e) => ({ code: e.code, status: e.status, count: e.count })),
    unauthenticated_callers: {
      total: summary.unauthenticated.total,
      by_code: summary.unauthenticated.byCode.map((c) => ({ grant_type: c.grantType, code: c.code, status: c.status, count: c.count })),
    },
  };
}

/**
 * One request-log line (`apps requests`); `at` is ISO 8601 with milliseconds, as this
 * command has always printed it; `mode` says whether the app or its sandbox made it.
 */
export function requestLogJson(e: RequestLogRow) {
  return {
    at: new Date(e.atMs).toISOString(),
    method: e.method,
    route: e.route,
    status: e.status,
    error_code: e.errorCode,
    latency_ms: e.latencyMs,
    request_id: e.requestId,
    user: e.userHandle,
    mode: e.mode,
    // What the detail view shows besides.
    path: e.path,
    error_message: e.errorMessage,
    rate_limit: e.rateLimit,
    rate_remaining: e.rateRemaining,
    grant_type: grantTypeOf(e.route),
  };
}

/** `apps sandbox show` (issue 26's CLI list: client_id, users, quota_per_minute, created_at; plus generated_at). */
export function sandboxJson(sandbox: SandboxView) {
  return {
    client_id: sandbox.clientId,
    users: sandbox.users.map((u) => ({ handle: u.handle })),
    quota_per_minute: sandbox.quotaPerMinute,
    created_at: unix(sandbox.createdAt),
    generated_at: unix(sandbox.generatedAt),
  };
}

/** `apps sandbox secret roll`: `{ client_id, client_secret }`, the secret shown once. */
export function sandboxSecretJson(secret: SandboxSecret) {
  return { client_id: secret.clientId, client_secret: secret.clientSecret };
}

/** `apps sandbox users add`: `{ handle, password }`, the password shown once. */
export function sandboxTestUserJson(user: SandboxTestUserCredentials) {
  return { handle: user.handle, password: user.password };
}

/** `apps sandbox users list`: the sandbox's test users (never a password). */
export function sandboxTestUsersJson(appClientId: string, users: SandboxTestUser[]) {
  return { client_id: appClientId, users: users.map((u) => ({ handle: u.handle, created_at: unix(u.createdAt) })) };
}

/** A sign-in session as `users sessions` prints it: never its address, even masked. */
export function signInSessionJson(session: SignInSessionView) {
  return { id: session.id, created_at: unix(session.createdAt), last_active_at: unix(session.lastActiveAt), user_agent: session.userAgent };
}
