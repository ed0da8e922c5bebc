/**
 * Names shared by the sign-in service (plain Node) and the hosted pages (Next), kept free of
 * imports so the pages do not pull oidc-provider into their bundle.
 */

/** oidc-provider's interaction cookie (cookies.names.interaction); its path is the page's. */
export const INTERACTION_COOKIE = "_interaction";

/** Hands the logout form's CSRF value to the Next-rendered confirmation page (path below). */
export const LOGOUT_XSRF_COOKIE = "_logout_xsrf";
export const LOGOUT_PAGE_PATH = "/interaction/logout";

/** Where end-session lands when the app gave no post_logout_redirect_uri. */
export const SIGNED_OUT_PAGE_PATH = "/interaction/signed-out";

/**
 * The username of a refused sign-in, handed back to the login page (path `/interaction/<uid>`, for
 * the interaction's lifetime) so that a wrong password does not wipe it; never in the URL.
 */
export const LOGIN_USERNAME_COOKIE = "_login_username";

/**
 * Device sign-in (RFC 8628): oidc-provider's user-code pages are rendered by Next at this path
 * (pages/interaction/device.tsx); the form's CSRF value travels in this cookie, never the URL.
 */
export const DEVICE_PAGE_PATH = "/interaction/device";
export const DEVICE_XSRF_COOKIE = "_device_xsrf";
/** What the device page shows, as lib/oidc/device.ts redirects to it (`?step=`). */
export const DEVICE_STEPS = ["input", "confirm", "success", "cancelled"] as const;
/** Why the device page shows the code input again (`?error=`). */
export const DEVICE_ERRORS = ["missing", "not_found", "expired", "used", "too_many_attempts", "app_unavailable", "failed"] as const;

/**
 * Trusted-device cookies (lib/oidc/trusted-device.ts): one per account this browser
 * signed in to (`_trusted_<handle>`), sent only to the hosted pages' form posts.
 */
export const TRUSTED_DEVICE_COOKIE_PREFIX = "_trusted_";
export const TRUSTED_DEVICE_COOKIE_PATH = "/interaction/";
