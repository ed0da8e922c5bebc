import { z } from "zod";

/**
 * Usage metering: the shapes shared by the meter (lib/services/usage-meter.ts), the usage
 * service, the portal's Usage tab and the CLI (`apps usage`, `apps requests`).
 */

/**
 * Fixed log-scale latency buckets: bucket i holds requests that took at most
 * LATENCY_BUCKET_BOUNDS_MS[i] (0.25 ms × √2^i), the last one everything slower. Fixed bounds make
 * histograms of different minutes, routes and processes mergeable by plain addition.
 * Changing them would make old rows mean something else: add buckets at the end only.
 */
export const LATENCY_BUCKET_COUNT = 32;
const BASE_MS = 0.25;
export const LATENCY_BUCKET_BOUNDS_MS: readonly number[] = Array.from({ length: LATENCY_BUCKET_COUNT }, (_, i) =>
  i === LATENCY_BUCKET_COUNT - 1 ? Number.POSITIVE_INFINITY : BASE_MS * Math.SQRT2 ** i,
);

/** The bucket of one latency: two float operations, no allocation (it runs per request). */
export function latencyBucket(ms: number): number {
  if (!(ms > BASE_MS)) return 0;
  const i = Math.ceil(2 * Math.log2(ms / BASE_MS));
  return i >= LATENCY_BUCKET_COUNT - 1 ? LATENCY_BUCKET_COUNT - 1 : i;
}

/**
 * The q-quantile (0..1) of a histogram, interpolated linearly inside its bucket; null when empty.
 * The overflow bucket answers with its lower bound.
 */
export function latencyQuantile(buckets: ArrayLike<number>, q: number): number | null {
  let total = 0;
  for (let i = 0; i < buckets.length; i++) total += buckets[i]!;
  if (total === 0) return null;
  const rank = q * total;
  let seen = 0;
  for (let i = 0; i < buckets.length; i++) {
    const n = buckets[i]!;
    if (n === 0) continue;
    if (seen + n >= rank) {
      const lower = i === 0 ? 0 : LATENCY_BUCKET_BOUNDS_MS[i - 1]!;
      const upper = LATENCY_BUCKET_BOUNDS_MS[i]!;
      if (!Number.isFinite(upper)) return round(lower);
      return round(lower + ((rank - seen) / n) * (upper - lower));
    }
    seen += n;
  }
  return round(LATENCY_BUCKET_BOUNDS_MS[LATENCY_BUCKET_COUNT - 2]!);
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/** Route names of token grants in the usage tables (API requests use `METHOD /template`). */
export const GRANT_ROUTE_PREFIX = "token:";
/**
 * Route names of failed token requests that carried no client authentication
 * (`unauthenticated:<grant_type>`): a login client has no secret, so anyone can send its
 * client ID with a made-up code or refresh token. Those failures are the callers', not the app's:
 * shown as "unauthenticated callers", never in the app's own totals or error rate.
 */
export const UNAUTHENTICATED_ROUTE_PREFIX = "unauthenticated:";
/**
 * The route name of an API request that carried the app's valid token but matched no
 * route (an unknown path: 404, or a method the path does not take: 405). One name for all of them,
 * so made-up paths cannot multiply the usage rows; the log row keeps the path itself.
 */
export const NO_ROUTE = "(no route)";

/** The grant type of a token request's route name (`token:refresh_token` → refresh_token); null for an API request. */
export function grantTypeOf(route: string): string | null {
  if (route.startsWith(GRANT_ROUTE_PREFIX)) return route.slice(GRANT_ROUTE_PREFIX.length);
  if (route.startsWith(UNAUTHENTICATED_ROUTE_PREFIX)) return route.slice(UNAUTHENTICATED_ROUTE_PREFIX.length);
  return null;
}

export const usageRangeSchema = z.enum(["24h", "7d", "30d"]);
export type UsageRange = z.infer<typeof usageRangeSchema>;
export const USAGE_RANGE_MS: Record<UsageRange, number> = {
  "24h": 24 * 3600_000,
  "7d": 7 * 24 * 3600_000,
  "30d": 30 * 24 * 3600_000,
};

/**
 * Seen apart: an app's figures are of its live client or of its sandbox (`sbx_` + its
 * client id), which are metered as two clients (lib/services/usage-meter.ts counts by the token's
 * client id). The Usage tab's switch (`?mode=sandbox`), `apps usage --mode`.
 */
export const usageModeSchema = z.enum(["live", "sandbox"]);
export type UsageMode = z.infer<typeof usageModeSchema>;
/** The request log may also show both, newest first, each row marked with its mode. */
export const requestLogModeSchema = z.enum(["live", "sandbox", "all"]);
export type RequestLogMode = z.infer<typeof requestLogModeSchema>;

export const statusClassSchema = z.enum(["2xx", "4xx", "5xx"]);

/** `--status` and the request log's status filter: a class or one exact code. */
export const statusFilterSchema = z.union([
  statusClassSchema,
  z
    .string()
    .regex(/^[1-5][0-9]{2}$/, "must be 2xx, 4xx, 5xx or a status code such as 429")
    .transform((v) => Number(v)),
]);
export type StatusFilter = z.infer<typeof statusFilterSchema>;

/** A request id as lib/api/router.ts accepts or makes it (log-safe characters only). */
export const requestIdSchema = z.string().regex(/^[A-Za-z0-9._-]{8,64}$/, "is not a request id");

/**
 * One entry of an app's request log, declared once: what the meter keeps per
 * request (lib/services/usage-meter.ts), the `RequestLog` table holds (lib/queries/usage.ts), the
 * usage service returns, and the portal's table and `apps requests` show. Never a token, body or
 * query value. The app is the log's key, not a field.
 */
export const requestLogEntrySchema = z.object({
  /** When the answer was sent, Unix milliseconds. */
  atMs: z.number(),
  method: z.string(),
  /** `GET /users/{username}`: the route template, never the concrete path. */
  route: z.string(),
  status: z.number().int(),
  errorCode: z.string().nullable(),
  /** Measured in the server, from the request's arrival to its answer. */
  latencyMs: z.number().nonnegative(),
  requestId: requestIdSchema,
  /** The person a user-delegated token acted for; null for an app-only token. */
  userId: z.number().int().nullable(),
  /** That person's handle, read with the log (never on the request path); null when app-only or the account is gone. */
  userHandle: z.string().nullable(),
  /**
   * The path without its query string, only when no route matched (route NO_ROUTE); null
   * otherwise. At most MAX_LOGGED_PATH characters.
   */
  path: z.string().nullable(),
  /** The error message exactly as the answer carried it (API `message`, token endpoint `error_description`). */
  errorMessage: z.string().nullable(),
  /** X-RateLimit-Limit / X-RateLimit-Remaining as the answer sent them; null when it sent none. */
  rateLimit: z.number().int().nullable(),
  rateRemaining: z.number().int().nullable(),
});
export type RequestLogEntry = z.infer<typeof requestLogEntrySchema>;

/** The longest path (unmatched requests) and error message a log row keeps. */
export const MAX_LOGGED_PATH = 300;
export const MAX_LOGGED_MESSAGE = 500;

/**
 * A request-log entry as the usage service returns it: which of the app's two clients made it,
 * and the row's id (the keyset cursor's tie-breaker, the detail view's key
 * among rows that share a request id).
 */
export type RequestLogRow = RequestLogEntry & { mode: UsageMode; id: string };

/**
 * Keyset paging of the request log: an opaque cursor naming the last row shown (its time
 * and id); the next page starts strictly after it in (at DESC, id DESC) order.
 */
export const requestLogCursorSchema = z
  .string()
  .max(64)
  .transform((value, ctx) => {
    const decoded = /^([0-9]{1,15})\.([0-9]{1,19})$/.exec(fromBase64Url(value));
    if (!decoded) {
      ctx.addIssue({ code: "custom", message: "is not a cursor of this log" });
      return z.NEVER;
    }
    return { atMs: Number(decoded[1]), id: decoded[2]! };
  });

export function encodeRequestLogCursor(row: { atMs: number; id: string }): string {
  return btoa(`${Math.round(row.atMs)}.${row.id}`).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(value: string): string {
  if (!/^[A-Za-z0-9_-]*$/.test(value)) return "";
  try {
    return atob(value.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    return "";
  }
}

/** A time bound of the log filter: an ISO 8601 time (`2026-11-26T14:00`, UTC unless it says otherwise), as a Date. */
export const logTimeSchema = z
  .string()
  .max(40)
  .regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,3})?)?(Z|[+-][0-9]{2}:[0-9]{2})?$/, "must be a time such as 2026-11-26T14:00 (UTC)")
  .transform((value, ctx) => {
    const date = new Date(/(Z|[+-][0-9]{2}:[0-9]{2})$/.test(value) ? value : `${value}Z`);
    if (Number.isNaN(date.getTime())) {
      ctx.addIssue({ code: "custom", message: "is not a valid time" });
      return z.NEVER;
    }
    return date;
  });

export const requestLogFilterSchema = z.object({
  status: statusFilterSchema.optional(),
  route: z.string().min(1).max(200).optional(),
  requestId: requestIdSchema.optional(),
  /** Live (the default), the sandbox's requests, or both. */
  mode: requestLogModeSchema.optional(),
  /** Only requests answered at or after `since`, and before `until`. */
  since: logTimeSchema.optional(),
  until: logTimeSchema.optional(),
  /** The page after this cursor (the previous page's `nextCursor`). */
  cursor: requestLogCursorSchema.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
});
/** Parsed at the edge (CLI flags, the page's search params); the service trusts it. */
export type RequestLogFilter = z.output<typeof requestLogFilterSchema>;

/**
 * Issue 26, for the reviewer (lib/services/usage.ts getSandboxExercise, the app page's Sandbox use
 * panel): how much an app's sandbox was exercised.
 */
export interface SandboxExercise {
  sandboxClientId: string;
  days: number;
  /** API calls of the last `days` (token requests not included). */
  calls: number;
  /** Of those, answered 4xx or 5xx. */
  errors: number;
  /** Token requests of the last `days`. */
  tokenRequests: number;
  /** Distinct API routes called in the last `days`, most called first. */
  endpoints: { route: string; calls: number; errors: number }[];
  /** The sandbox's newest request (to the minute), of any age; null if it never made one. */
  lastActivity: Date | null;
}
