import { AppError } from "../errors";
import { logger } from "../logger";
import { deleteExpiredIdempotencyKeys } from "../queries/idempotency-keys";
import { deleteIdleMcpSubscriptions } from "./mcp-sessions";
import {
  deleteUsageBefore,
  dropRequestLogBefore,
  ensureRequestLogPartitions,
  ensureUsagePartitions,
  rollUpUsage,
  selectLatencySeries,
  selectLatencyTotals,
  selectRequestLog,
  selectRequestLogById,
  selectSandboxExercise,
  selectPlatformSeries,
  selectTrafficByApp,
  selectUsageSeries,
  selectUsageTotals,
  trimRequestLog,
  type RequestLogRecord,
} from "../queries/usage";
import {
  encodeRequestLogCursor,
  GRANT_ROUTE_PREFIX,
  LATENCY_BUCKET_COUNT,
  latencyQuantile,
  UNAUTHENTICATED_ROUTE_PREFIX,
  USAGE_RANGE_MS,
  type RequestLogFilter,
  type RequestLogMode,
  type RequestLogRow,
  type SandboxExercise,
  type StatusFilter,
  type UsageMode,
  type UsageRange,
} from "../schemas/usage";
import { isSandboxClientId, sandboxClientId } from "../schemas/sandboxes";
import { isAdminActor, type Actor } from "./actor";
import { loadFor, requireReviewer } from "./app-access";

/**
 * What an app's team (owner, team admins, viewers) and platform admins read about its
 * traffic — totals, time series, latency percentiles and the request log — and the rollup and
 * retention job. The counting itself is lib/services/usage-meter.ts.
 *
 * An app's sandbox is metered as its own client (`sbx_` + the app's client id, the id its
 * tokens carry), so its figures never mix with the live app's; each reader takes a `mode` and reads
 * the one client it names, with the app's permissions.
 */

/** The metered client of an app's live or sandbox figures. */
function meteredClientId(appClientId: string, mode: UsageMode): string {
  return mode === "sandbox" ? sandboxClientId(appClientId) : appClientId;
}

/** Minutes older than this become hour rows. */
export const ROLLUP_AFTER_MS = 24 * 3600_000;
/** Hour rows older than this are deleted. */
export const KEEP_USAGE_MS = 90 * 24 * 3600_000;
/** The request log keeps at least this many newest rows per app… */
export const LOG_KEEP_RECENT = 1000;
/** …and the non-2xx rows of this long, up to LOG_ERROR_CAP per app. */
export const LOG_KEEP_ERRORS_MS = 7 * 24 * 3600_000;
export const LOG_ERROR_CAP = 10_000;
/** How many days of usage partitions the retention job keeps created ahead. */
const PARTITIONS_AHEAD_DAYS = 7;
/** …and of the request log's (fewer: every partition is one more index scan for its readers). */
const LOG_PARTITIONS_AHEAD_DAYS = 2;

export interface RetentionResult {
  rolledUp: number;
  deleted: number;
  logTrimmed: number;
  /** Idempotency-Key rows past their 24 hours. */
  idempotencyKeysExpired: number;
  /** MCP subscriptions of sessions idle for a day. */
  mcpSubscriptionsExpired: number;
}

/**
 * Rolls minute rows older than a day (whole hours only, so the last day keeps its minutes) into hour
 * rows, deletes usage older than 90 days and trims the request log (dropping its days past
 * 7 whole). Safe to run in several
 * processes at once and again at any time (lib/queries/usage.ts). It also deletes expired
 * Idempotency-Key rows (a claim treats an expired row as free, so this only bounds the table) and the
 * subscriptions of MCP sessions idle for a day.
 */
export async function runUsageRetention(nowMs = Date.now()): Promise<RetentionResult> {
  const hour = 3600_000;
  // The usage tables' day partitions, from yesterday to a week ahead (created before they are written to).
  await ensureUsagePartitions(new Date(nowMs - 24 * hour), new Date(nowMs + PARTITIONS_AHEAD_DAYS * 24 * hour));
  const rollupBefore = new Date(Math.floor((nowMs - ROLLUP_AFTER_MS) / hour) * hour);
  const rolled = await rollUpUsage(rollupBefore);
  const deleted = await deleteUsageBefore(new Date(nowMs - KEEP_USAGE_MS));
  // The request log's day partitions too; the days past the errors' 7 days are dropped
  // whole, each app's newest LOG_KEEP_RECENT carried over; the per-app trim bounds the rest.
  await ensureRequestLogPartitions(new Date(nowMs - 24 * hour), new Date(nowMs + LOG_PARTITIONS_AHEAD_DAYS * 24 * hour));
  const logTrimmed =
    (await trimRequestLog(LOG_KEEP_RECENT, new Date(nowMs - LOG_KEEP_ERRORS_MS), LOG_ERROR_CAP)) +
    (await dropRequestLogBefore(new Date(nowMs - LOG_KEEP_ERRORS_MS), LOG_KEEP_RECENT));
  const idempotencyKeysExpired = await deleteExpiredIdempotencyKeys();
  const mcpSubscriptionsExpired = await deleteIdleMcpSubscriptions();
  return { rolledUp: rolled.counts + rolled.latency, deleted, logTrimmed, idempotencyKeysExpired, mcpSubscriptionsExpired };
}

/** Runs the retention job every `intervalMs` (first run after a random part of it, so processes spread out). */
export function startUsageRetention(intervalMs: number): () => void {
  let timer: NodeJS.Timeout;
  const run = () => {
    runUsageRetention()
      .catch((error: Error) => logger.warn("usage retention failed", { error: error.message }))
      .finally(() => {
        timer = setTimeout(run, intervalMs);
        timer.unref();
      });
  };
  timer = setTimeout(run, Math.floor(intervalMs * (0.5 + Math.random() / 2)));
  timer.unref();
  return () => clearTimeout(timer);
}

export interface RouteUsage {
  route: string;
  total: number;
  byStatus: { status: number; errorCode: string | null; count: number }[];
  p50Ms: number | null;
  p95Ms: number | null;
}

export interface UsageSummary {
  /** The metered client: the app's client id, or its sandbox's (`sbx_…`) in sandbox mode. */
  clientId: string;
  mode: UsageMode;
  range: UsageRange;
  since: Date;
  total: number;
  /** Requests by status class ("2xx", "4xx", "5xx"). */
  byClass: Record<string, number>;
  p50Ms: number | null;
  p95Ms: number | null;
  /** API routes, then token grants (`token:…`), most used first. */
  routes: RouteUsage[];
  /** Error answers by code, most frequent first. */
  errors: { code: string; status: number; count: number }[];
  /**
   * Failed token requests that named the app but carried no client authentication:
   * anyone can send a login client's ID, so these are not the app's errors and are in none of the
   * figures above. By grant and error code, most frequent first.
   */
  unauthenticated: { total: number; byCode: { grantType: string; code: string; status: number; count: number }[] };
}

function sinceFor(range: UsageRange, nowMs: number): Date {
  return new Date(nowMs - USAGE_RANGE_MS[range]);
}

const statusClass = (status: number) => `${Math.floor(status / 100)}xx`;

/**
 * An app's usage over a range, live or its sandbox's. Team members (viewers included) and admins;
 * others get not_found.
 */
export async function getAppUsage(
  appClientId: string,
  range: UsageRange,
  actor: Actor,
  { mode = "live", nowMs = Date.now() }: { mode?: UsageMode; nowMs?: number } = {},
): Promise<UsageSummary> {
  await loadFor(appClientId, actor, "view", "app.usage");
  const clientId = meteredClientId(appClientId, mode);
  const since = sinceFor(range, nowMs);
  const [totals, latency] = await Promise.all([selectUsageTotals(clientId, since), selectLatencyTotals(clientId, since)]);

  const routes = new Map<string, RouteUsage & { buckets: number[] }>();
  const routeOf = (route: string) => {
    let r = routes.get(route);
    if (!r) {
      r = { route, total: 0, byStatus: [], p50Ms: null, p95Ms: null, buckets: new Array<number>(LATENCY_BUCKET_COUNT).fill(0) };
      routes.set(route, r);
    }
    return r;
  };
  const byClass: Record<string, number> = { "2xx": 0, "4xx": 0, "5xx": 0 };
  const errors = new Map<string, { code: string; status: number; count: number }>();
  const unauthenticated: UsageSummary["unauthenticated"] = { total: 0, byCode: [] };
  let total = 0;
  for (const row of totals) {
    if (row.route.startsWith(UNAUTHENTICATED_ROUTE_PREFIX)) {
      unauthenticated.total += row.count;
      const grantType = row.route.slice(UNAUTHENTICATED_ROUTE_PREFIX.length);
      unauthenticated.byCode.push({ grantType, code: row.errorCode || "unknown", status: row.status, count: row.count });
      continue;
    }
    const r = routeOf(row.route);
    r.total += row.count;
    r.byStatus.push({ status: row.status, errorCode: row.errorCode || null, count: row.count });
    if (row.route.startsWith(GRANT_ROUTE_PREFIX)) continue;
    total += row.count;
    const cls = statusClass(row.status);
    byClass[cls] = (byClass[cls] ?? 0) + row.count;
    if (row.status >= 400) {
      const key = `${row.status} ${row.errorCode}`;
      const e = errors.get(key) ?? { code: row.errorCode || "unknown", status: row.status, count: 0 };
      e.count += row.count;
      errors.set(key, e);
    }
  }
  const apiBuckets = new Array<number>(LATENCY_BUCKET_COUNT).fill(0);
  unauthenticated.byCode.sort((a, b) => b.count - a.count);
  for (const row of latency) {
    if (row.route.startsWith(UNAUTHENTICATED_ROUTE_PREFIX)) continue;
    routeOf(row.route).buckets[row.bucket] = (routeOf(row.route).buckets[row.bucket] ?? 0) + row.count;
    if (!row.route.startsWith(GRANT_ROUTE_PREFIX)) apiBuckets[row.bucket]! += row.count;
  }
  const list = [...routes.values()].map(({ buckets, ...r }) => ({
    ...r,
    p50Ms: latencyQuantile(buckets, 0.5),
    p95Ms: latencyQuantile(buckets, 0.95),
  }));
  list.sort(
    (a, b) =>
      Number(a.route.startsWith(GRANT_ROUTE_PREFIX)) - Number(b.route.startsWith(GRANT_ROUTE_PREFIX)) ||
      b.total - a.total ||
      a.route.localeCompare(b.route),
  );
  return {
    clientId,
    mode,
    range,
    since,
    total,
    byClass,
    p50Ms: latencyQuantile(apiBuckets, 0.5),
    p95Ms: latencyQuantile(apiBuckets, 0.95),
    routes: list,
    errors: [...errors.values()].sort((a, b) => b.count - a.count),
    unauthenticated,
  };
}

export interface UsagePoint {
  /** Start of the slot. */
  at: Date;
  "2xx": number;
  "4xx": number;
  "5xx": number;
  p50Ms: number | null;
  p95Ms: number | null;
}

/** Slot widths per range: 96 quarter hours, 168 hours, 120 six-hour slots. */
export const SERIES_STEP_SECONDS: Record<UsageRange, number> = { "24h": 900, "7d": 3600, "30d": 6 * 3600 };

/** An app's (or its sandbox's) API requests over time by status class, with latency percentiles per slot (charts). */
export async function getAppUsageSeries(
  appClientId: string,
  range: UsageRange,
  actor: Actor,
  { mode = "live", nowMs = Date.now() }: { mode?: UsageMode; nowMs?: number } = {},
): Promise<UsagePoint[]> {
  await loadFor(appClientId, actor, "view", "app.usage");
  const clientId = meteredClientId(appClientId, mode);
  const step = SERIES_STEP_SECONDS[range];
  const since = sinceFor(range, nowMs);
  const [counts, latency] = await Promise.all([
    selectUsageSeries(clientId, since, step),
    selectLatencySeries(clientId, since, step),
  ]);
  const first = Math.floor(since.getTime() / 1000 / step);
  const last = Math.floor(nowMs / 1000 / step);
  const points: (UsagePoint & { buckets: number[] })[] = [];
  for (let slot = first; slot <= last; slot++) {
    points.push({
      at: new Date(slot * step * 1000),
      "2xx": 0,
      "4xx": 0,
      "5xx": 0,
      p50Ms: null,
      p95Ms: null,
      buckets: new Array<number>(LATENCY_BUCKET_COUNT).fill(0),
    });
  }
  const at = (slot: number) => points[slot - first];
  for (const row of counts) {
    const p = at(row.slot);
    if (!p) continue;
    const cls = row.statusClass >= 5 ? "5xx" : row.statusClass >= 4 ? "4xx" : "2xx";
    p[cls] += row.count;
  }
  for (const row of latency) {
    const p = at(row.slot);
    if (p) p.buckets[row.bucket]! += row.count;
  }
  return points.map(({ buckets, ...p }) => ({ ...p, p50Ms: latencyQuantile(buckets, 0.5), p95Ms: latencyQuantile(buckets, 0.95) }));
}

function statusBounds(status: StatusFilter | undefined): { statusFrom: number; statusTo: number } {
  if (status === undefined) return { statusFrom: 0, statusTo: 999 };
  if (typeof status === "number") return { statusFrom: status, statusTo: status };
  const base = Number(status[0]) * 100;
  return { statusFrom: base, statusTo: base + 99 };
}

/** The metered clients a request-log read covers: the live client, its sandbox, or both. */
function logClientIds(appClientId: string, mode: RequestLogMode): string[] {
  return mode === "all" ? [appClientId, sandboxClientId(appClientId)] : [meteredClientId(appClientId, mode)];
}

function toLogRow({ clientId, ...row }: RequestLogRecord): RequestLogRow {
  return { ...row, latencyMs: Math.round(row.latencyMs * 100) / 100, mode: isSandboxClientId(clientId) ? "sandbox" : "live" };
}

export interface RequestLogPage {
  entries: RequestLogRow[];
  /** The cursor of the next (older) page; null when this page is the last. */
  nextCursor: string | null;
}

/**
 * An app's request log, newest first (filters: status class or code, route, request id, a time
 * window, and live, sandbox or both: each row says which), one page of `limit` rows after
 * `cursor` (keyset paging).
 */
export async function listRequestLogPage(appClientId: string, filter: RequestLogFilter, actor: Actor): Promise<RequestLogPage> {
  await loadFor(appClientId, actor, "view", "app.usage");
  const rows = await selectRequestLog(logClientIds(appClientId, filter.mode ?? "live"), {
    ...statusBounds(filter.status),
    route: filter.route,
    requestId: filter.requestId,
    since: filter.since,
    until: filter.until,
    after: filter.cursor,
    // One more than shown says whether another page follows.
    limit: filter.limit + 1,
  });
  const entries = rows.slice(0, filter.limit).map(toLogRow);
  const last = entries[entries.length - 1];
  return { entries, nextCursor: rows.length > filter.limit && last ? encodeRequestLogCursor(last) : null };
}

/** The entries of one page of an app's request log (`apps requests`). */
export async function listRequestLog(appClientId: string, filter: RequestLogFilter, actor: Actor): Promise<RequestLogRow[]> {
  return (await listRequestLogPage(appClientId, filter, actor)).entries;
}

/** Rows kept per request id for the detail view (a client may send the same X-Request-Id again and again). */
const SAME_ID_ROWS = 20;

/**
 * The request log's detail view: the app's logged requests with this request id, live or
 * sandbox, newest first (usually one). Team members and admins; anyone else gets not_found.
 */
export async function getRequestLogEntries(appClientId: string, requestId: string, actor: Actor): Promise<RequestLogRow[]> {
  await loadFor(appClientId, actor, "view", "app.usage");
  const rows = await selectRequestLogById(logClientIds(appClientId, "all"), requestId, SAME_ID_ROWS);
  if (rows.length === 0) throw new AppError("not_found", "No request with that id in this app's log.");
  return rows.map(toLogRow);
}

/** The window of the reviewer's sandbox summary. */
export const SANDBOX_EXERCISE_DAYS = 7;

/**
 * Next to the review: how much an app's sandbox was exercised — calls and token requests
 * of the last SANDBOX_EXERCISE_DAYS days, the endpoints used, its last activity — from the usage
 * tables in one statement. Reviewers only (the admins who see the Review panel).
 */
export async function getSandboxExercise(appClientId: string, actor: Actor, nowMs = Date.now()): Promise<SandboxExercise> {
  await requireReviewer(actor, "app.sandbox.exercise", appClientId, "Only an admin reviews an app's sandbox use.");
  const sandbox = sandboxClientId(appClientId);
  const row = await selectSandboxExercise(sandbox, new Date(nowMs - SANDBOX_EXERCISE_DAYS * 24 * 3600_000));
  const endpoints = row.routes.filter((r) => !r.route.startsWith(GRANT_ROUTE_PREFIX));
  const sum = (list: { calls: number }[]) => list.reduce((n, r) => n + r.calls, 0);
  return {
    sandboxClientId: sandbox,
    days: SANDBOX_EXERCISE_DAYS,
    calls: sum(endpoints),
    errors: endpoints.reduce((n, r) => n + r.errors, 0),
    tokenRequests: sum(row.routes.filter((r) => r.route.startsWith(GRANT_ROUTE_PREFIX))),
    endpoints,
    lastActivity: row.lastActivity,
  };
}

export interface AppTraffic {
  clientId: string;
  name: string | null;
  total: number;
  errors: number;
  errorRate: number;
  limited: number;
}

/** Requests, errors (4xx and 5xx) and 429s, summed over the rows of the overview. */
export interface TrafficTotals {
  requests: number;
  errors: number;
  limited: number;
  /** errors / requests; 0 without requests. */
  errorRate: number;
}

export interface UsageOverview {
  /** Every app with traffic in the range, most traffic first (the rankings are read from these rows). */
  apps: AppTraffic[];
  /** The platform's totals: the sums of `apps`. */
  totals: TrafficTotals;
  /** The same sums over the range of equal length just before (the trend). */
  previous: TrafficTotals;
  /** The platform's requests per slot by status class (p50Ms/p95Ms null); they add up to `totals.requests`. */
  series: UsagePoint[];
}

function totalsOf(apps: AppTraffic[]): TrafficTotals {
  let requests = 0;
  let errors = 0;
  let limited = 0;
  for (const a of apps) {
    requests += a.total;
    errors += a.errors;
    limited += a.limited;
  }
  return { requests, errors, limited, errorRate: requests ? errors / requests : 0 };
}

const withRate = (rows: Omit<AppTraffic, "errorRate">[]): AppTraffic[] => rows.map((r) => ({ ...r, errorRate: r.total ? r.errors / r.total : 0 }));

/**
 * Admins: every app's traffic over a range, for the overview's rankings, with the platform's totals
 * (sums of the same rows, so the figures and the tables cannot disagree), the previous range's
 * totals and the requests over time.
 */
export async function getUsageOverview(range: UsageRange, actor: Actor, nowMs = Date.now()): Promise<UsageOverview> {
  if (!isAdminActor(actor)) throw new AppError("forbidden", "Only an admin can see every app's usage.");
  const until = new Date(nowMs);
  const since = sinceFor(range, nowMs);
  const before = new Date(since.getTime() - USAGE_RANGE_MS[range]);
  const step = SERIES_STEP_SECONDS[range];
  const [current, earlier, counts] = await Promise.all([
    selectTrafficByApp(since, until),
    selectTrafficByApp(before, since),
    selectPlatformSeries(since, until, step),
  ]);
  const apps = withRate(current);
  const first = Math.floor(since.getTime() / 1000 / step);
  const last = Math.floor(nowMs / 1000 / step);
  const series: UsagePoint[] = [];
  for (let slot = first; slot <= last; slot++) {
    series.push({ at: new Date(slot * step * 1000), "2xx": 0, "4xx": 0, "5xx": 0, p50Ms: null, p95Ms: null });
  }
  for (const row of counts) {
    const p = series[row.slot - first];
    if (p) p[row.statusClass >= 5 ? "5xx" : row.statusClass >= 4 ? "4xx" : "2xx"] += row.count;
  }
  return { apps, totals: totalsOf(apps), previous: totalsOf(withRate(earlier)), series };
}
