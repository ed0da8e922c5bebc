import { z } from "zod";

/**
 * Issue 16, usage metering: the shapes shared by the meter (lib/services/usage-meter.ts), the usage
 * service, the portal's Usage tab and the CLI (`apps usage`, `apps requests`).
 */

/**
 * Fixed log-scale latency buckets: bucket i holds requests that took at most
 * LATENCY_BUCKET_BOUNDS_MS[i] (0.25 ms × √2^i), the last one everything slower. Fixed bounds make
 * histograms of different minutes, routes and processes mergeable by plain addition (issue 16).
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

export const usageRangeSchema = z.enum(["24h", "7d", "30d"]);
export type UsageRange = z.infer<typeof usageRangeSchema>;
export const USAGE_RANGE_MS: Record<UsageRange, number> = {
  "24h": 24 * 3600_000,
  "7d": 7 * 24 * 3600_000,
  "30d": 30 * 24 * 3600_000,
};

export const statusClassSchema = z.enum(["2xx", "4xx", "5xx"]);
export type StatusClass = z.infer<typeof statusClassSchema>;

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

export const requestLogFilterSchema = z.object({
  status: statusFilterSchema.optional(),
  route: z.string().min(1).max(200).optional(),
  requestId: requestIdSchema.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
});
/** Parsed at the edge (CLI flags, the page's search params); the service trusts it. */
export type RequestLogFilter = z.output<typeof requestLogFilterSchema>;
