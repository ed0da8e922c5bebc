import { plural, translator, type Locale } from "../i18n";

/**
 * What the hosted login page says after a refused sign-in (lib/oidc/interactions.ts redirects back
 * to the page with `error` and, for the throttle, `retry_at`). Wrong user and wrong password read
 * the same (no account enumeration).
 */
export const LOGIN_ERRORS = ["invalid_credentials", "missing_fields", "too_many_attempts", "account_disabled", "invalid_code", "missing_code", "passkey_failed"] as const;
export type LoginError = (typeof LOGIN_ERRORS)[number];

export function isLoginError(value: unknown): value is LoginError {
  return typeof value === "string" && (LOGIN_ERRORS as readonly string[]).includes(value);
}

/** A `retry_at` further out than this is not the throttle's (its windows are 15 minutes): ignored. */
const MAX_RETRY_WAIT_SECONDS = 24 * 60 * 60;

/**
 * The throttle's real wait when the refusal carried one (`retryAt`, Unix seconds), instead of a
 * fixed "15 minutes": the pair's window may have minutes or seconds left.
 */
export function describeRetryWait(retryAt: number | null, now: number, locale: Locale = "en"): string {
  const t = translator(locale);
  const prefix = t("retry.tooMany");
  if (retryAt === null || !Number.isFinite(retryAt) || retryAt - now > MAX_RETRY_WAIT_SECONDS) return `${prefix} ${t("retry.later")}`;
  const seconds = Math.ceil(retryAt - now);
  if (seconds <= 0) return `${prefix} ${t("retry.now")}`;
  if (seconds < 60) return `${prefix} ${plural(locale, "retry.seconds", seconds)}`;
  return `${prefix} ${plural(locale, "retry.minutes", Math.ceil(seconds / 60))}`;
}

export function loginErrorMessage(error: LoginError, retryAt: number | null, now: number, locale: Locale = "en"): string {
  if (error === "too_many_attempts") return describeRetryWait(retryAt, now, locale);
  return translator(locale)(`login.error.${error}`);
}
