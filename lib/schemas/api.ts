import { z } from "zod";

/**
 * Building blocks shared by the API's resource schemas (lib/schemas/<resource>.ts). The handlers
 * validate with these schemas and lib/api/openapi.ts documents the API from the very same objects,
 * so the `.meta()` here is what developers read in /api/v1/openapi.json.
 */

/** SPEC.md Errors: the codes the API answers with (lib/errors.ts also holds portal-only codes). */
export const API_ERROR_CODES = [
  "invalid_request",
  "invalid_reply",
  "unauthorized",
  "invalid_token",
  "insufficient_scope",
  "requires_user",
  "forbidden",
  "not_found",
  "user_not_found",
  "method_not_allowed",
  "idempotency_key_in_use",
  "idempotency_key_reused",
  "rate_limited",
  "poke_cooldown",
  "internal_error",
] as const;
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/** SPEC.md: timestamps named `*_at` are integers in Unix seconds. */
export const unixSecondsSchema = z.int().nonnegative().meta({ description: "Unix seconds" });

export const MAX_INT64 = 9223372036854775807n;

/** A 64-bit id carried as a numeric string (chat message ids). */
export function isNumericId(value: string): boolean {
  return /^\d{1,19}$/.test(value) && BigInt(value) <= MAX_INT64;
}

/** The author / sender block of chat messages and notifications (SPEC.md: handle, display_name, avatar_url). */
export const userRefSchema = z
  .object({
    handle: z.string(),
    display_name: z.string(),
    avatar_url: z.string().meta({ description: "URL of the avatar image" }),
  })
  .meta({ id: "UserRef", description: "A user as shown next to what they wrote or did." });

/**
 * A page size that must be a positive integer and is capped (SPEC Limits: chat and GET /users).
 * Non-numeric, zero, negative or fractional ⇒ 400 invalid_request; above the cap ⇒ the cap.
 */
export function cappedLimitParam(options: { fallback: number; cap: number }) {
  const { fallback, cap } = options;
  return z
    .string()
    .regex(/^\d+$/, "must be a positive integer")
    // More than six digits is far above any cap; this also keeps huge values out of Number().
    .transform((s) => (s.length > 6 ? cap : Math.min(Number(s), cap)))
    .refine((n) => n >= 1, "must be a positive integer")
    .default(fallback)
    .meta({
      type: "integer",
      minimum: 1,
      default: fallback,
      description: `Page size: a positive integer, default ${fallback}; values above ${cap} are capped to ${cap}. Anything else is 400 invalid_request.`,
    } as Record<string, unknown>);
}

/**
 * An integer parameter that falls back to a default instead of failing (SPEC Limits: the
 * notifications `limit`). Absent, repeated, non-integer or out of range ⇒ the fallback.
 */
export function lenientIntParam(options: { fallback: number; min: number; max: number; description: string }) {
  const { fallback, min, max, description } = options;
  return z
    .unknown()
    .optional()
    .transform((v) => {
      if (typeof v !== "string" || !/^\d{1,9}$/.test(v)) return fallback;
      const n = Number(v);
      return n >= min && n <= max ? n : fallback;
    })
    .meta({ type: "integer", minimum: min, maximum: max, default: fallback, description } as Record<string, unknown>);
}

/** Rejects text PostgreSQL cannot store (NUL) and strings with lone surrogates (not valid UTF-8). */
export function isStorableText(value: string): boolean {
  return !value.includes("\u0000") && value.isWellFormed();
}
