import { noAnswerError, PlatformError } from "./errors.js";
import { sleep } from "./wait.js";

/** How a call is sent: set per client (`createClient`) and overridden per call. */
// Type aliases, not interfaces: a call's init (an object type with an index signature) must accept them.
export type RequestOptions = {
  /**
   * Retries after a 429 or 503 (waiting `Retry-After`), a 502 or 504, a 409 `idempotency_key_in_use`,
   * a network failure or a timeout; only GETs and POSTs that carry an `Idempotency-Key`. Default 2.
   */
  maxRetries?: number;
  /** Each attempt's time limit in milliseconds (the answer's body included); default 30 000. */
  timeoutMs?: number;
  /**
   * The longest `Retry-After` the SDK waits, in milliseconds (default 60 000). A longer one (e.g. a
   * poke's 24-hour cooldown) is not waited for: the PlatformError comes back at once with `retryAfter`.
   */
  maxRetryAfterMs?: number;
  /** Aborts the call, including a wait between attempts (PlatformError `aborted`). */
  signal?: AbortSignal;
};

export type CallOptions = RequestOptions & {
  /**
   * The `Idempotency-Key` of this POST: by default the SDK makes one per call (kept across its
   * retries); pass your own to retry across restarts, or `false` to send none (then the POST is
   * never retried).
   */
  idempotencyKey?: string | false;
};

export type TransportOptions = RequestOptions & {
  /** `false`: POSTs carry no `Idempotency-Key` unless a call passes one (and are then not retried). Default true. */
  idempotencyKeys?: boolean;
  /** Called before each retry (for logs): what failed and how long the SDK waits. */
  onRetry?: (retry: RetryInfo) => void;
};

export interface RetryInfo {
  method: string;
  url: string;
  /** The attempt about to be made: 1 for the first retry. */
  retry: number;
  delayMs: number;
  /** The answer's status, when there was one (429, 503, …). */
  status?: number;
  /** The failure, when there was no answer (`network_error`, `timeout`). */
  error?: PlatformError;
}

const DEFAULTS = { maxRetries: 2, timeoutMs: 30_000, maxRetryAfterMs: 60_000 };
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 8_000;
const NO_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** Exponential backoff with "equal jitter": half of 500 ms · 2^attempt (at most 8 s) plus a random share of the other half. */
function backoffMs(attempt: number): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** attempt);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** `Retry-After` (seconds or an HTTP date) in milliseconds, or undefined. */
function retryAfterMs(headers: Headers): number | undefined {
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * How long to wait before retrying this answer, or null when it is final. 429 and 503 wait
 * `Retry-After` plus up to 20 % (at most 1 s) of jitter, so clients told the same second do not all
 * come back in it; without the header, or on 502/504, exponential backoff.
 */
function retryDelay(response: Response, body: ArrayBuffer, attempt: number, maxRetryAfterMs: number): number | null {
  const { status } = response;
  if (status === 429 || status === 503 || (status === 409 && isKeyInUse(body))) {
    const wait = retryAfterMs(response.headers);
    if (wait === undefined) return backoffMs(attempt);
    if (wait > maxRetryAfterMs) return null;
    return wait + Math.random() * Math.min(1000, wait * 0.2 + 100);
  }
  if (status === 502 || status === 504) return backoffMs(attempt);
  return null;
}

function isKeyInUse(body: ArrayBuffer): boolean {
  try {
    return (JSON.parse(new TextDecoder().decode(body)) as { error?: { code?: unknown } }).error?.code === "idempotency_key_in_use";
  } catch {
    return false;
  }
}

function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

/**
 * A fetch that sends one call with the SDK's policy: the POST's `Idempotency-Key`, a time limit per
 * attempt, retries of what may be retried, and PlatformError (`network_error`, `timeout`, `aborted`)
 * when no answer came. The answer's body is read within the attempt, so a connection cut off in the
 * middle of it is a network failure like any other (and retried).
 */
export function createTransport(fetchImpl: typeof fetch, defaults: TransportOptions = {}) {
  return async function send(request: Request, call: CallOptions = {}): Promise<Response> {
    const maxRetries = call.maxRetries ?? defaults.maxRetries ?? DEFAULTS.maxRetries;
    const timeoutMs = call.timeoutMs ?? defaults.timeoutMs ?? DEFAULTS.timeoutMs;
    const maxRetryAfterMs = call.maxRetryAfterMs ?? defaults.maxRetryAfterMs ?? DEFAULTS.maxRetryAfterMs;
    const signal = call.signal ?? defaults.signal;
    const method = request.method.toUpperCase();
    const headers = new Headers(request.headers);
    if (method === "POST" && !headers.has("idempotency-key")) {
      const key = call.idempotencyKey ?? (defaults.idempotencyKeys === false ? false : newIdempotencyKey());
      if (key !== false) headers.set("idempotency-key", key);
    }
    const retriable = method === "GET" || method === "HEAD" || headers.has("idempotency-key");
    const body = method === "GET" || method === "HEAD" ? undefined : await request.arrayBuffer();

    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) throw noAnswerError(signal.reason, "aborted");
      const timer = new AbortController();
      const timeout = setTimeout(() => timer.abort(), timeoutMs);
      let failure: PlatformError | undefined;
      let response: Response | undefined;
      let buffered: ArrayBuffer | undefined;
      try {
        const answer = await fetchImpl(request.url, {
          method,
          headers,
          ...(body !== undefined ? { body } : {}),
          redirect: request.redirect,
          signal: signal ? AbortSignal.any([signal, timer.signal]) : timer.signal,
        });
        buffered = await answer.arrayBuffer();
        response = new Response(NO_BODY_STATUSES.has(answer.status) || method === "HEAD" ? null : buffered, {
          status: answer.status,
          statusText: answer.statusText,
          headers: answer.headers,
        });
      } catch (error) {
        if (signal?.aborted) throw noAnswerError(error, "aborted");
        failure = noAnswerError(error, timer.signal.aborted ? "timeout" : "network_error", timeoutMs);
      } finally {
        clearTimeout(timeout);
      }
      let delay: number | null;
      if (response) {
        delay = retriable && attempt < maxRetries ? retryDelay(response, buffered!, attempt, maxRetryAfterMs) : null;
        if (delay === null) return response;
      } else {
        if (!retriable || attempt >= maxRetries) throw failure!;
        delay = backoffMs(attempt);
      }
      defaults.onRetry?.({
        method,
        url: request.url,
        retry: attempt + 1,
        delayMs: delay,
        ...(response ? { status: response.status } : { error: failure! }),
      });
      await sleep(delay, signal);
    }
  };
}
