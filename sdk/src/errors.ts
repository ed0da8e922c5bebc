import { API_ERROR_CODES, type ApiErrorCode } from "./generated/error-codes.js";

export type { ApiErrorCode };

/** The sign-in service's OAuth errors (RFC 6749 §4.1.2.1 and §5.2, RFC 8628 §3.5, OpenID Connect Core §3.1.2.6). */
export const OAUTH_ERROR_CODES = [
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "unauthorized_client",
  "unsupported_grant_type",
  "unsupported_response_type",
  "invalid_scope",
  "access_denied",
  "server_error",
  "temporarily_unavailable",
  "authorization_pending",
  "slow_down",
  "expired_token",
  "login_required",
  "consent_required",
  "interaction_required",
] as const;
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

/**
 * What the SDK itself reports:
 * - `network_error`: no answer (connection refused or reset, DNS, a body cut off);
 * - `timeout`: no answer within `timeoutMs`;
 * - `aborted`: the caller's `signal` aborted the call;
 * - `client_error`: a local check failed (a state mismatch, a malformed answer, a missing option);
 * - `http_error`: a non-2xx answer without a code this SDK version knows (`serverCode` holds what it said, if anything).
 */
export type SdkErrorCode = "network_error" | "timeout" | "aborted" | "client_error" | "http_error";

/** Every `PlatformError.code`: the API's documented codes (generated from its OpenAPI document), OAuth's and the SDK's. */
export type PlatformErrorCode = ApiErrorCode | OAuthErrorCode | SdkErrorCode;

const KNOWN_API_CODES: ReadonlySet<string> = new Set(API_ERROR_CODES);
const KNOWN_OAUTH_CODES: ReadonlySet<string> = new Set(OAUTH_ERROR_CODES);

/**
 * The rate limit that binds first for the app (and user) that made a request, from the response's
 * `X-RateLimit-*` and `RateLimit` headers; null when the response carried none (e.g. a call without a token).
 */
export interface RateLimit {
  limit: number;
  remaining: number;
  /** Unix seconds when the window resets. */
  reset: number;
  /** The binding policy's name (`app`, `user`, `chat-post`, `poke`), when the `RateLimit` header says which. */
  policy?: string;
}

/** What every result and every PlatformError from an API call tells about its response. */
export interface ResponseInfo {
  /** The response's `X-Request-Id`: quote it when reporting a problem. */
  requestId?: string;
  rateLimit: RateLimit | null;
}

/** Reads the rate-limit headers (lib/api/rate-limit-headers.ts on the server). */
export function readRateLimit(headers: Headers): RateLimit | null {
  const limit = Number(headers.get("x-ratelimit-limit") ?? Number.NaN);
  const remaining = Number(headers.get("x-ratelimit-remaining") ?? Number.NaN);
  const reset = Number(headers.get("x-ratelimit-reset") ?? Number.NaN);
  if (![limit, remaining, reset].every(Number.isFinite)) return null;
  // `RateLimit: "app";r=5999;t=42, "chat-post";r=0;t=2`: the policy whose remaining is the binding one.
  let policy: string | undefined;
  for (const entry of (headers.get("ratelimit") ?? "").split(",")) {
    const match = /^\s*"([^"]+)";r=(\d+)/.exec(entry);
    if (match && Number(match[2]) === remaining) policy = match[1];
  }
  return { limit, remaining, reset, ...(policy ? { policy } : {}) };
}

function retryAfterSeconds(headers: Headers): number | undefined {
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/**
 * The one error the SDK throws: API errors (the SPEC error envelope
 * `{ error: { code, message, next_allowed_at? } }`), sign-in service errors (OAuth `error`,
 * `error_description`) and failures with no answer at all (`network_error`, `timeout`), so callers
 * branch on `code` whatever happened. `code` is a union: a misspelled code is a type error.
 */
/**
 * Marks a PlatformError across copies of this module: the package's ESM and CommonJS builds are two
 * modules, each with its own class, and an app (or its dependencies) may load both. Symbol.for is
 * shared by every module of the process, so `instanceof PlatformError` holds whichever build threw.
 */
const PLATFORM_ERROR = Symbol.for("@social-dev-platform/sdk:PlatformError");

export class PlatformError extends Error {
  /** True for a PlatformError of any copy of the SDK (see PLATFORM_ERROR); subclasses keep the usual check. */
  static [Symbol.hasInstance](value: unknown): boolean {
    if (this !== PlatformError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[PLATFORM_ERROR] === true;
  }

  override readonly name = "PlatformError";
  /** HTTP status (0 when no response came back: network failures, timeouts, local checks). */
  readonly status: number;
  /** The API's `error.code` (`rate_limited`, `invalid_token`, …), the OAuth `error` (`invalid_grant`, …) or the SDK's own. */
  readonly code: PlatformErrorCode;
  /** On `http_error`: the code the server sent that this SDK version does not know. */
  readonly serverCode?: string;
  /** On `poke_cooldown`: the Unix second the pair is open again (`error.next_allowed_at`). */
  readonly nextAllowedAt?: number;
  /** The response's `X-Request-Id`: quote it when reporting a problem. */
  readonly requestId?: string;
  /** `Retry-After` in seconds, on 429 (and 503, 409 `idempotency_key_in_use`) answers. */
  readonly retryAfter?: number;
  /** The rate-limit headers of the answer, when it had them. */
  readonly rateLimit: RateLimit | null;

  constructor(
    init: {
      status: number;
      code: PlatformErrorCode;
      message: string;
      serverCode?: string;
      nextAllowedAt?: number;
      requestId?: string;
      retryAfter?: number;
      rateLimit?: RateLimit | null;
    },
    options?: { cause?: unknown },
  ) {
    super(init.message, options);
    Object.defineProperty(this, PLATFORM_ERROR, { value: true });
    this.status = init.status;
    this.code = init.code;
    this.rateLimit = init.rateLimit ?? null;
    if (init.serverCode !== undefined) this.serverCode = init.serverCode;
    if (init.nextAllowedAt !== undefined) this.nextAllowedAt = init.nextAllowedAt;
    if (init.requestId !== undefined) this.requestId = init.requestId;
    if (init.retryAfter !== undefined) this.retryAfter = init.retryAfter;
  }

  /** Builds the error from an API response that is not 2xx (reads its body). */
  static async fromResponse(response: Response): Promise<PlatformError> {
    const requestId = response.headers.get("x-request-id") ?? undefined;
    const retryAfter = retryAfterSeconds(response.headers);
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      body = undefined;
    }
    const error = (body as { error?: { code?: unknown; message?: unknown; next_allowed_at?: unknown } } | undefined)?.error;
    const serverCode = typeof error?.code === "string" ? error.code : undefined;
    return new PlatformError({
      status: response.status,
      ...(serverCode !== undefined && KNOWN_API_CODES.has(serverCode)
        ? { code: serverCode as ApiErrorCode }
        : { code: "http_error", ...(serverCode !== undefined ? { serverCode } : {}) }),
      message: typeof error?.message === "string" ? error.message : `HTTP ${response.status}`,
      ...(typeof error?.next_allowed_at === "number" ? { nextAllowedAt: error.next_allowed_at } : {}),
      ...(requestId ? { requestId } : {}),
      ...(retryAfter !== undefined ? { retryAfter } : {}),
      rateLimit: readRateLimit(response.headers),
    });
  }
}

/** A failure without an answer: the caller's abort, a timeout, or the network. */
export function noAnswerError(error: unknown, reason: "aborted" | "timeout" | "network_error", timeoutMs?: number): PlatformError {
  const message =
    reason === "aborted"
      ? "The request was aborted."
      : reason === "timeout"
        ? `No answer within ${timeoutMs} ms.`
        : `The request failed before an answer came back: ${describeNetworkError(error)}`;
  return new PlatformError({ status: 0, code: reason, message }, { cause: error });
}

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === "string") return cause.code;
  if (typeof cause?.message === "string") return cause.message;
  return error instanceof Error ? error.message : String(error);
}

function isAbortLike(error: unknown): error is Error {
  return error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
}

/** Turns what openid-client throws (OAuth error responses, local checks, fetch failures) into a PlatformError. */
export function toPlatformError(error: unknown): PlatformError {
  if (error instanceof PlatformError) return error;
  const e = error as { error?: unknown; error_description?: unknown; status?: unknown; code?: unknown; message?: unknown; cause?: unknown };
  if (typeof e?.error === "string") {
    const known = KNOWN_OAUTH_CODES.has(e.error) || KNOWN_API_CODES.has(e.error);
    // openid-client keeps the token endpoint's answer on its error (not enumerable): its X-Request-Id
    // is what the app's request log is searched by.
    const headers = (error as { response?: { headers?: { get?: unknown } } }).response?.headers;
    const requestId = typeof headers?.get === "function" ? ((headers as Headers).get("x-request-id") ?? undefined) : undefined;
    return new PlatformError(
      {
        status: typeof e.status === "number" ? e.status : 400,
        ...(known ? { code: e.error as PlatformErrorCode } : { code: "http_error", serverCode: e.error }),
        message: typeof e.error_description === "string" ? e.error_description : e.error,
        ...(requestId ? { requestId } : {}),
      },
      { cause: error },
    );
  }
  if (isAbortLike(error)) return noAnswerError(error, error.name === "TimeoutError" ? "timeout" : "aborted");
  // fetch rejects with a TypeError ("fetch failed", its cause the socket's error) when no answer came.
  if (error instanceof TypeError && (e.cause !== undefined || /fetch failed|network/i.test(error.message))) {
    return noAnswerError(error, "network_error");
  }
  const message = error instanceof Error ? error.message : String(error);
  return new PlatformError({ status: 0, code: "client_error", message }, { cause: error });
}
