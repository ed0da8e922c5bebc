import { header, type HeaderSource } from "./headers";

/**
 * CSRF check for form posts that change something (the hosted pages' login and consent, the
 * portal's sign-out): the request must come from one of our own origins. Browsers send Origin on
 * every POST; Referer is the fallback for the rare client that strips it (or sends "null").
 */
export function isSameOriginRequest(headers: HeaderSource, allowed: ReadonlySet<string>): boolean {
  const origin = header(headers, "origin");
  if (origin !== undefined && origin !== "null") return allowed.has(origin);
  const referer = header(headers, "referer");
  if (referer === undefined) return false;
  try {
    return allowed.has(new URL(referer).origin);
  } catch {
    return false;
  }
}
