import { NO_ROUTE } from "../schemas/usage";
import { usageMeter, type UsageMeter } from "../services/usage-meter";
import type { ApiReply, ApiRequest } from "./request-reply";

/**
 * The API's one hook into usage metering, called by lib/api/router.ts after every
 * dispatched request. Only requests whose token verified are attributed (auth.ts sets
 * `request.clientId`); a missing or invalid token belongs to no app and is not metered. The route
 * is the template the router matched, never the concrete path, and the query string is never
 * looked at.
 *
 * A request with a valid token that matched no route (an unknown path, 404, or a method
 * the path does not take, 405) is the app's too: the router has its token checked and counted
 * against the quota (lib/api/handler.ts `chargeUnmatched`) and it is metered under NO_ROUTE, its log
 * row keeping the path without the query. The log row also keeps the error message and the rate-limit state the answer carried.
 */
let meter: UsageMeter | undefined;

export function meterApiRequest(request: ApiRequest, method: string, reply: ApiReply, requestId: string, startedMs: number, path: string): void {
  const clientId = request.clientId;
  if (clientId === undefined) return;
  meter ??= usageMeter();
  if (!meter.enabled) return;
  const now = performance.now();
  const route = request.route;
  // The header strings the answer carries (lib/api/rate-limit-headers.ts); a number is no allocation.
  const limit = reply.headers["x-ratelimit-limit"];
  const remaining = reply.headers["x-ratelimit-remaining"];
  meter.recordApiRequest(
    clientId,
    {
      userId: request.userId ?? null,
      method,
      route: route ?? NO_ROUTE,
      path: route === undefined ? path : null,
      status: reply.status,
      errorCode: reply.errorCode ?? null,
      errorMessage: reply.errorMessage ?? null,
      latencyMs: now - startedMs,
      requestId,
      rateLimit: limit === undefined ? null : Number(limit),
      rateRemaining: remaining === undefined ? null : Number(remaining),
    },
    Date.now(),
  );
}
