import { z } from "zod";
import { CHAT_POST_INTERVAL_SECONDS } from "./chat";
import { POKE_COOLDOWN_SECONDS } from "./pokes";

/**
 * The API's rate limits, announced on every response an app makes (lib/api/rate-limit-headers.ts)
 * and listed on the docs' errors-and-limits page:
 * - `app`: the per-app request quota, DEFAULT_REQUESTS_PER_MINUTE unless an admin set another;
 * - `user`: one user's share of it (user-delegated tokens), USER_QUOTA_PERCENT of the app's quota;
 * - `chat-post`: one chat message per user every CHAT_POST_INTERVAL_SECONDS (SPEC.md);
 * - `poke`: one poke per (caller, target) every POKE_COOLDOWN_SECONDS (SPEC.md).
 */
export const DEFAULT_REQUESTS_PER_MINUTE = 6_000;
/** `"user"`: one user's tokens may use this share of an app's quota, in percent (USER_QUOTA_PERCENT). */
export const DEFAULT_USER_QUOTA_PERCENT = 10;
export const QUOTA_WINDOW_SECONDS = 60;
/** The quota of an app whose stored `requestsPerMinute` is `stored` (null: no admin set one). */
export function effectiveQuota(stored: number | null): number {
  return stored ?? DEFAULT_REQUESTS_PER_MINUTE;
}

/** What admins may set: at least one request a minute, at most ten million. */
export const MAX_REQUESTS_PER_MINUTE = 10_000_000;

export interface RatePolicy {
  /** The policy's name in `RateLimit-Policy` and `RateLimit` (a structured-field string). */
  name: "app" | "chat-post" | "poke";
  quota: number;
  windowSeconds: number;
}

/** Endpoint limits of SPEC.md, named by the routes that have one (defineRoute's `limit`). */
export const ENDPOINT_POLICIES = {
  "chat-post": { name: "chat-post", quota: 1, windowSeconds: CHAT_POST_INTERVAL_SECONDS },
  poke: { name: "poke", quota: 1, windowSeconds: POKE_COOLDOWN_SECONDS },
} as const satisfies Record<string, RatePolicy>;

export type EndpointPolicyName = keyof typeof ENDPOINT_POLICIES;

/** `apps limit --per-minute N` and the admin's form. */
export const requestQuotaSchema = z.object({
  perMinute: z.coerce
    .number({ message: "must be a whole number" })
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(MAX_REQUESTS_PER_MINUTE, `must be at most ${MAX_REQUESTS_PER_MINUTE.toLocaleString("en-US")}`)
    .nullable(),
});
export type RequestQuotaInput = z.infer<typeof requestQuotaSchema>;
