import type { ProtectedResource } from "../oidc/protected-resources";

/**
 * The API's transport-neutral request and reply (lib/api/router.ts adapts a Web `Request`,
 * lib/api/node.ts Node's request). The wrapper builds a plain `ApiReply` rather than a `Response`:
 * lib/api/router.ts turns it into a `Response` for Next and other Web callers, lib/api/node.ts
 * writes it straight to Node's response (undici's Response/Request objects cost more CPU than the
 * whole profile read; issue 6 measures it).
 */
export interface ApiRequest {
  readonly method: string;
  /** Absolute URL. */
  readonly url: string;
  readonly headers: { get(name: string): string | null };
  /**
   * The whole body, at most `limit` bytes (lib/http/body.ts readBody: BodyError over it). The Node
   * path reads Node's stream directly; a web stream costs ~10% of a chat post's CPU.
   */
  readBody(limit: number): Promise<Buffer>;
  /**
   * What dispatch learns about the request as it goes, in one place: the route template
   * (`GET /users/{username}`), set by lib/api/router.ts once the path matched, and the verified
   * caller's app and user, set by lib/api/auth.ts once the token checked out (before its scope and
   * user checks, so a 403 still counts for the app). Usage metering reads them after the reply;
   * anything per app (a quota) can read them too. Unset: no route matched, or no valid token.
   */
  route?: string;
  clientId?: string;
  userId?: number;
  /**
   * The protected resource the request came to (RFC 8707): the API (unset), or the MCP server for
   * a tool call (lib/api/mcp), whose token must name it as its audience (lib/api/auth.ts).
   */
  readonly resource?: ProtectedResource;
  /**
   * The DPoP key (its thumbprint) this request already proved possession of: an MCP tool call's, which
   * its /mcp request proved (lib/api/auth.ts then accepts its DPoP-bound token without a proof of its own).
   */
  readonly dpopKey?: string;
  /** The name the request is metered and logged under instead of its route's: `MCP tools/call get_me`. */
  readonly loggedAs?: string;
}

export interface ApiReply {
  status: number;
  headers: Record<string, string>;
  /** Serialized JSON, or null for 204 and HEAD. */
  body: string | null;
  /** The SPEC error code of an error reply (usage metering and the request log record it). */
  errorCode?: string;
  /** Its message, as sent (the request log shows it). */
  errorMessage?: string;
  /**
   * A streamed body (the event stream): the transport writes the status and headers, then
   * calls `start` with a sink; the function it returns is called when the client goes away.
   */
  stream?: ReplyStream;
}

/**
 * Where a streamed body goes. `write` answers like Node's `Writable.write`: false once the
 * connection holds more than it wants, and a writer that respects back-pressure then waits for
 * `onDrain` instead of piling up memory for a reader that is not reading.
 */
export interface ReplySink {
  write(chunk: string): boolean;
  /** Bytes written but not yet taken by the connection. */
  buffered(): number;
  /** Calls `listener` once, when what was buffered has been taken. */
  onDrain(listener: () => void): void;
  end(): void;
}

export interface ReplyStream {
  start(sink: ReplySink): () => void;
}

/**
 * Headers every API response carries. CORS is open to any origin (PRODUCT.md): the API takes
 * bearer tokens, never cookies, so `*` without credentials is safe.
 */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers":
    "Retry-After, WWW-Authenticate, DPoP-Nonce, X-Request-Id, Idempotent-Replayed, Allow, RateLimit, RateLimit-Policy, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset",
};

/** Preflight answers: what a browser may send, cached for two hours. */
export const PREFLIGHT_HEADERS: Readonly<Record<string, string>> = {
  ...CORS_HEADERS,
  "access-control-allow-headers": "Authorization, DPoP, Content-Type, X-Request-Id, Idempotency-Key",
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
