import type { RatePolicy } from "../schemas/rate-limits";
import { QUOTA_WINDOW_SECONDS } from "../schemas/rate-limits";
import type { QuotaState } from "../services/api-quota";

/**
 * The rate-limit headers of every API response an app makes (the docs' "Errors and
 * limits" page lists them):
 * - `RateLimit-Policy` and `RateLimit` of the IETF httpapi draft (draft-ietf-httpapi-ratelimit-headers):
 *   every policy that applies to the endpoint (`"app";q=6000;w=60`; for a user-delegated token also
 *   `"user";q=600;w=60`, the user's share of the app's quota; plus `"chat-post"` or
 *   `"poke"`), and the state of each one known for this request (`"app";r=5999;t=42`: remaining,
 *   seconds to reset);
 * - `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` (Unix seconds, as GitHub's),
 *   for the limit that binds first: the endpoint's after a chat post or poke (its one allowance is
 *   spent), otherwise the user's share or the app's quota, whichever has less left.
 */
export interface LimitState {
  remaining: number;
  resetSeconds: number;
}

/** Policy texts by quota, built once each: `"app";q=6000;w=60`, `"app";q=6000;w=60, "user";q=600;w=60`. */
const appPolicies = new Map<number, string>();
const appUserPolicies = new Map<number, string>();

function appPolicy(quota: number, userQuota: number): string {
  const cache = userQuota ? appUserPolicies : appPolicies;
  let text = cache.get(quota);
  if (text === undefined) {
    text = `"app";q=${quota};w=${QUOTA_WINDOW_SECONDS}`;
    if (userQuota) text += `, "user";q=${userQuota};w=${QUOTA_WINDOW_SECONDS}`;
    if (cache.size < 1_000) cache.set(quota, text);
  }
  return text;
}

export function rateLimitHeaders(
  app: QuotaState,
  endpoint?: { policy: RatePolicy; state: LimitState | null },
): Record<string, string> {
  let policy = appPolicy(app.limit, app.userLimit);
  let state = `"app";r=${app.remaining};t=${app.resetSeconds}`;
  let binding = { limit: app.limit, remaining: app.remaining, resetAt: app.resetAt };
  if (app.userLimit) {
    state += `, "user";r=${app.userRemaining};t=${app.resetSeconds}`;
    if (app.userRemaining <= app.remaining) binding = { limit: app.userLimit, remaining: app.userRemaining, resetAt: app.resetAt };
  }
  if (endpoint) {
    const { policy: p, state: s } = endpoint;
    policy += `, "${p.name}";q=${p.quota};w=${p.windowSeconds}`;
    if (s) {
      state += `, "${p.name}";r=${s.remaining};t=${s.resetSeconds}`;
      if (s.remaining <= binding.remaining) {
        binding = { limit: p.quota, remaining: s.remaining, resetAt: Math.ceil(Date.now() / 1000) + s.resetSeconds };
      }
    }
  }
  return {
    "ratelimit-policy": policy,
    ratelimit: state,
    "x-ratelimit-limit": String(binding.limit),
    "x-ratelimit-remaining": String(binding.remaining),
    "x-ratelimit-reset": String(binding.resetAt),
  };
}
