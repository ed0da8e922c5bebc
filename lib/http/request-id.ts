import { randomUUID } from "node:crypto";

/**
 * The X-Request-Id of a request (the API's and, issue 27, the token endpoint's): the caller's own
 * id is kept for tracing across proxies, but only in a log-safe form (8–64 letters, digits, `.`,
 * `_`, `-`: lib/schemas/usage.ts requestIdSchema); otherwise a fresh UUID.
 */
export function requestIdFrom(given: string | null | undefined): string {
  return given && /^[A-Za-z0-9._-]{8,64}$/.test(given) ? given : randomUUID();
}
