/**
 * Headers every API response carries. CORS is open to any origin (PRODUCT.md): the API takes
 * bearer tokens, never cookies, so `*` without credentials is safe.
 */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "Retry-After, WWW-Authenticate, X-Request-Id, Allow",
};

/** Preflight answers: what a browser may send, cached for two hours. */
export const PREFLIGHT_HEADERS: Readonly<Record<string, string>> = {
  ...CORS_HEADERS,
  "access-control-allow-headers": "Authorization, Content-Type, X-Request-Id",
  "access-control-max-age": "7200",
};

export function apiHeaders(extra: Record<string, string> = {}, requestId?: string): Record<string, string> {
  return {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    ...CORS_HEADERS,
    ...(requestId ? { "x-request-id": requestId } : {}),
    ...extra,
  };
}

export function jsonResponse(status: number, body: unknown, requestId?: string, extra?: Record<string, string>): Response {
  return new Response(JSON.stringify(body), { status, headers: apiHeaders(extra, requestId) });
}
