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
