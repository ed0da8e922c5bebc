/**
 * Every "where to go after this" URL the app accepts from a request (the sign-in page's
 * `callbackUrl`, next-auth's redirect callback) goes through resolveReturnPath (an open
 * redirect through `/signin?callbackUrl=/%09/evil.example`).
 *
 * Prefix checks on the raw string cannot be right: browsers strip tabs and newlines anywhere in a
 * URL and read `\` as `/`, so `/<TAB>/evil.example` and `/\evil.example` pass "starts with one
 * slash" and still lead to evil.example. Instead the value is resolved against APP_URL by the same
 * WHATWG parser browsers use, only the same origin is accepted, and what is returned is rebuilt from
 * the parsed URL (path, query, fragment), never the raw input.
 */
export const DEFAULT_RETURN_PATH = "/apps";

/** Longer than any path of ours; a few kilobytes of callback URL is not a real destination. */
const MAX_RETURN_URL_LENGTH = 2048;

/**
 * A same-origin path (`/…`, with its query and fragment) for `value` resolved against `appUrl`, or
 * `fallback` when `value` is missing, unreadable or leads to another origin.
 */
export function resolveReturnPath(value: unknown, appUrl: string, fallback: string = DEFAULT_RETURN_PATH): string {
  const raw = Array.isArray(value) ? (value as unknown[])[0] : value;
  if (typeof raw !== "string" || raw.length === 0 || raw.length > MAX_RETURN_URL_LENGTH) return fallback;
  let base: URL;
  let url: URL;
  try {
    base = new URL(appUrl);
    url = new URL(raw, base);
  } catch {
    return fallback;
  }
  if (url.origin !== base.origin || url.origin === "null") return fallback;
  // A path that resolved to `//host…` (e.g. from `/.//host`) would be protocol-relative once
  // written into a Location header: one leading slash only.
  const path = url.pathname.replace(/^\/+/, "/");
  return `${path}${url.search}${url.hash}`;
}

/** resolveReturnPath as an absolute URL on `appUrl`'s origin (next-auth's redirect callback wants one). */
export function resolveReturnUrl(value: unknown, appUrl: string, fallback: string = DEFAULT_RETURN_PATH): string {
  return `${new URL(appUrl).origin}${resolveReturnPath(value, appUrl, fallback)}`;
}
