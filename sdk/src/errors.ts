/**
 * The one error the SDK throws: API errors (the SPEC error envelope
 * `{ error: { code, message, next_allowed_at? } }`) and sign-in service errors (OAuth `error`,
 * `error_description`) alike, so callers branch on `code` whatever answered.
 */
export class PlatformError extends Error {
  override readonly name = "PlatformError";
  /** HTTP status (0 when no response came back, e.g. a state mismatch detected locally). */
  readonly status: number;
  /** The API's `error.code` (`rate_limited`, `invalid_token`, …) or the OAuth `error` (`invalid_grant`, …). */
  readonly code: string;
  /** On `poke_cooldown`: the Unix second the pair is open again (`error.next_allowed_at`). */
  readonly nextAllowedAt?: number;
  /** The response's `X-Request-Id`: quote it when reporting a problem. */
  readonly requestId?: string;
  /** `Retry-After` in seconds, on 429 answers. */
  readonly retryAfter?: number;

  constructor(
    init: { status: number; code: string; message: string; nextAllowedAt?: number; requestId?: string; retryAfter?: number },
    options?: { cause?: unknown },
  ) {
    super(init.message, options);
    this.status = init.status;
    this.code = init.code;
    if (init.nextAllowedAt !== undefined) this.nextAllowedAt = init.nextAllowedAt;
    if (init.requestId !== undefined) this.requestId = init.requestId;
    if (init.retryAfter !== undefined) this.retryAfter = init.retryAfter;
  }

  /** Builds the error from an API response that is not 2xx (reads its body). */
  static async fromResponse(response: Response): Promise<PlatformError> {
    const requestId = response.headers.get("x-request-id") ?? undefined;
    const retryAfterHeader = response.headers.get("retry-after");
    const retryAfter = retryAfterHeader !== null && /^\d+$/.test(retryAfterHeader) ? Number(retryAfterHeader) : undefined;
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      body = undefined;
    }
    const error = (body as { error?: { code?: unknown; message?: unknown; next_allowed_at?: unknown } } | undefined)?.error;
    return new PlatformError({
      status: response.status,
      code: typeof error?.code === "string" ? error.code : response.status >= 500 ? "internal_error" : "http_error",
      message: typeof error?.message === "string" ? error.message : `HTTP ${response.status}`,
      ...(typeof error?.next_allowed_at === "number" ? { nextAllowedAt: error.next_allowed_at } : {}),
      ...(requestId ? { requestId } : {}),
      ...(retryAfter !== undefined ? { retryAfter } : {}),
    });
  }
}

/** Turns what openid-client throws (OAuth error responses, local checks) into a PlatformError. */
export function toPlatformError(error: unknown): PlatformError {
  if (error instanceof PlatformError) return error;
  const e = error as { error?: unknown; error_description?: unknown; status?: unknown; code?: unknown; message?: unknown };
  if (typeof e?.error === "string") {
    return new PlatformError(
      {
        status: typeof e.status === "number" ? e.status : 400,
        code: e.error,
        message: typeof e.error_description === "string" ? e.error_description : e.error,
      },
      { cause: error },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new PlatformError(
    { status: 0, code: typeof e?.code === "string" ? e.code.toLowerCase() : "client_error", message },
    { cause: error },
  );
}
