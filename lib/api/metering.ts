import { usageMeter, type UsageMeter } from "../services/usage-meter";
import type { ApiReply, ApiRequest } from "./request-reply";

/**
 * Issue 16: the API's one hook into usage metering, called by lib/api/router.ts after every
 * dispatched request. Only requests whose token verified are attributed (auth.ts sets
 * `request.clientId`); a missing or invalid token, an unknown path or a 405 belongs to no app and
 * is not metered. The route is the template the router matched, never the concrete path, and the
 * query string is never looked at.
 */
let meter: UsageMeter | undefined;

export function meterApiRequest(request: ApiRequest, method: string, reply: ApiReply, requestId: string, startedMs: number): void {
  const clientId = request.clientId;
  if (clientId === undefined || request.route === undefined) return;
  meter ??= usageMeter();
  if (!meter.enabled) return;
  const now = performance.now();
  meter.recordApiRequest(
    clientId,
    {
      userId: request.userId ?? null,
      method,
      route: request.route,
      status: reply.status,
      errorCode: reply.errorCode ?? null,
      latencyMs: now - startedMs,
      requestId,
    },
    Date.now(),
  );
}
