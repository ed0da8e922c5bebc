/**
 * The API's transport-neutral request and reply. Handlers stay Web-standard (a real `Request`
 * satisfies `ApiRequest`), but the wrapper builds a plain `ApiReply` rather than a `Response`:
 * lib/api/router.ts turns it into a `Response` for Next and other Web callers, lib/api/node.ts
 * writes it straight to Node's response (undici's Response/Request objects cost more CPU than the
 * whole profile read; issue 6 measures it).
 */
export interface ApiRequest {
  readonly method: string;
  /** Absolute URL. */
  readonly url: string;
  readonly headers: { get(name: string): string | null };
  readonly body: ReadableStream<Uint8Array> | null;
  /**
   * Optional (the Node fast path, lib/api/node.ts): the whole body read straight from Node's
   * stream, rejecting with `tooLarge()` once more than `max` bytes arrived. Without it, `body` is
   * read; a web stream costs ~10% of a chat post's CPU (issue 6).
   */
  readonly readBody?: (max: number, tooLarge: () => Error) => Promise<Uint8Array>;
}

export interface ApiReply {
  status: number;
  headers: Record<string, string>;
  /** Serialized JSON, or null for 204 and HEAD. */
  body: string | null;
}

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

export function jsonReply(status: number, body: unknown, requestId?: string, extra?: Record<string, string>): ApiReply {
  return { status, headers: apiHeaders(extra, requestId), body: JSON.stringify(body) };
}
