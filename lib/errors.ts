/**
 * One error class for the whole platform (STYLE: Errors). Services throw AppError; the API wrapper
 * turns it into SPEC.md's envelope `{ error: { code, message, ...extra } }`.
 */
export const ERROR_STATUS = {
  invalid_request: 400,
  invalid_reply: 400,
  unauthorized: 401,
  invalid_token: 401,
  insufficient_scope: 403,
  requires_user: 403,
  forbidden: 403,
  not_found: 404,
  user_not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  idempotency_key_in_use: 409,
  idempotency_key_reused: 422,
  rate_limited: 429,
  poke_cooldown: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface AppErrorOptions {
  /** Overrides the table, only where SPEC.md does (413 keeps `invalid_request`). */
  status?: number;
  cause?: unknown;
  /** Extra members of the error object, e.g. `next_allowed_at` on `poke_cooldown`. */
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** Field-level messages for forms (portal server actions). */
  fields?: Record<string, string>;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly extra?: Record<string, unknown>;
  readonly headers?: Record<string, string>;
  readonly fields?: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.status = options.status ?? ERROR_STATUS[code];
    this.extra = options.extra;
    this.headers = options.headers;
    this.fields = options.fields;
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError || (error instanceof Error && error.name === "AppError" && "code" in error);
}
