import type { RatePolicy } from "../schemas/rate-limits";
import { QUOTA_WINDOW_SECONDS } from "../schemas/rate-limits";
import type { QuotaState } from "../services/api-quota";

/**
 * The rate-limit headers of every API response an app makes (issue 16; the docs' "Errors and
 * limits" page lists them):
 * - `RateLimit-Policy` and `RateLimit` of the IETF httpapi draft (draft-ietf-httpapi-ratelimit-headers):
 *   every policy that applies to the endpoint (`"app";q=6000;w=60`, plus `"chat-post"` or `"poke"`),
 *   and the state of each one known for this request (`"app";r=5999;t=42`: remaining, seconds to reset);
 * - `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` (Unix seconds, as GitHub's),
 *   for the limit that binds first: the endpoint's after a chat post or poke (its one allowance is
 *   spent), the app's quota otherwise.
 */
export interface LimitState {
  remaining: number;
  resetSeconds: number;
}

const appPolicies = new Map<number, string>();

function appPolicy(quota: number): string {
  let text = appPolicies.get(quota);
  if (text === undefined) {
    text = `"app";q=${quota};w=${QUOTA_WINDOW_SECONDS}`;
    if (appPolicies.size < 1_000) appPolicies.set(quota, text);
  }
  return text;
}

export function rateLimitHeaders(
  app: QuotaState,
  endpoint?: { policy: RatePolicy; state: LimitState | null },
): Record<string, string> {
  let policy = appPolicy(app.limit);
  let state = `"app";r=${app.remaining};t=${app.resetSeconds}`;
  let binding = { limit: app.limit, remaining: app.remaining, resetAt: app.resetAt };
  if (endpoint) {
    const { policy: p, state: s } = endpoint;
    policy += `, "${p.name}";q=${p.quota};w=${p.windowSeconds}`;
    if (s) {
      state += `, "${p.name}";r=${s.remaining};t=${s.resetSeconds}`;
      if (s.remaining <= app.remaining) {
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
