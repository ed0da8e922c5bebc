// Data layer (STYLE.md Layout): the usage tables' SQL over pg; the rules live in
// lib/services/usage.ts and lib/services/usage-meter.ts.
import { pool } from "../database/client";
import { dropDayPartitions, ensureDayPartitions, type DayPartitioned } from "./partitions";
import type { RequestLogEntry } from "../schemas/usage";

/** Dates go in as epoch seconds and are compared as UTC (the columns are `timestamp` in UTC, as Prisma writes them). */
const at = (date: Date) => date.getTime() / 1000;
const UTC = (n: number) => `(to_timestamp($${n}) AT TIME ZONE 'UTC')`;

/** One flush of a process's aggregates, as column arrays (one statement, `unnest`). */
export interface UsageBatch {
  counts: { clientId: string[]; route: string[]; status: number[]; errorCode: string[]; minute: number[]; count: number[] };
  latency: { clientId: string[]; route: string[]; minute: number[]; bucket: number[]; count: number[] };
  /** Request-log entries, column by column (the handle is read with the log, not stored). */
  log: { clientId: string[] } & { [K in Exclude<keyof RequestLogEntry, "userHandle">]: RequestLogEntry[K][] };
}

/**
 * Adds one batch in ONE statement: additive upserts of the counters and latency buckets (so any
 * number of processes add up), plus the request-log rows. Times are epoch minutes / ms, stored as
 * UTC like every other timestamp of the schema. Each key appears once per batch (the meter merges
 * them), as ON CONFLICT DO UPDATE requires.
 */
export async function insertUsageBatch(batch: UsageBatch): Promise<void> {
  const { counts: c, latency: l, log } = batch;
  await pool.query({
    name: "usage-flush-v2",
    text: `WITH counted AS (
         INSERT INTO "UsageCount" AS u ("clientId", route, status, "errorCode", "periodStart", count)
         SELECT k, r, s, e, to_timestamp(m::bigint * 60) AT TIME ZONE 'UTC', n
         FROM unnest($1::text[], $2::text[], $3::smallint[], $4::text[], $5::int[], $6::int[]) AS t(k, r, s, e, m, n)
         ON CONFLICT ("clientId", "periodStart", route, status, "errorCode") DO UPDATE SET count = u.count + EXCLUDED.count
       ), timed AS (
         INSERT INTO "UsageLatency" AS u ("clientId", route, "periodStart", bucket, count)
         SELECT k, r, to_timestamp(m::bigint * 60) AT TIME ZONE 'UTC', b, n
         FROM unnest($7::text[], $8::text[], $9::int[], $10::smallint[], $11::int[]) AS t(k, r, m, b, n)
         ON CONFLICT ("clientId", "periodStart", route, bucket) DO UPDATE SET count = u.count + EXCLUDED.count
       )
       INSERT INTO "RequestLog" ("clientId", at, method, route, status, "errorCode", "latencyMs", "requestId", "userId", path, "errorMessage", "rateLimit", "rateRemaining")
       SELECT k, to_timestamp(a / 1000.0) AT TIME ZONE 'UTC', me, r, s, e, ms, q, u, p, em, rl, rr
       FROM unnest($12::float8[], $13::text[], $14::text[], $15::text[], $16::smallint[], $17::text[], $18::real[], $19::text[], $20::int[],
                   $21::text[], $22::text[], $23::int[], $24::int[])
         AS t(a, k, me, r, s, e, ms, q, u, p, em, rl, rr)`,
    values: [
      c.clientId, c.route, c.status, c.errorCode, c.minute, c.count,
      l.clientId, l.route, l.minute, l.bucket, l.count,
      log.atMs, log.clientId, log.method, log.route, log.status, log.errorCode, log.latencyMs, log.requestId, log.userId,
      log.path, log.errorMessage, log.rateLimit, log.rateRemaining,
    ],
  });
}

/**
 * Rolls every minute row older than `before` into its hour's row (the row at the full hour), in
 * one statement per table: the minute rows are deleted and their sums added, so a rollup that runs
 * twice, or in two processes at once, never counts a request twice.
 */
export async function rollUpUsage(before: Date): Promise<{ counts: number; latency: number }> {
  const counts = await pool.query(
    `WITH moved AS (
       DELETE FROM "UsageCount" WHERE "periodStart" < ${UTC(1)} AND "periodStart" <> date_trunc('hour', "periodStart")
       RETURNING "clientId", route, status, "errorCode", "periodStart", count
     )
     INSERT INTO "UsageCount" AS u ("clientId", route, status, "errorCode", "periodStart", count)
     SELECT "clientId", route, status, "errorCode", date_trunc('hour', "periodStart"), sum(count)::int
     FROM moved GROUP BY 1, 2, 3, 4, 5
     ON CONFLICT ("clientId", "periodStart", route, status, "errorCode") DO UPDATE SET count = u.count + EXCLUDED.count`,
    [at(before)],
  );
  const latency = await pool.query(
    `WITH moved AS (
       DELETE FROM "UsageLatency" WHERE "periodStart" < ${UTC(1)} AND "periodStart" <> date_trunc('hour', "periodStart")
       RETURNING "clientId", route, "periodStart", bucket, count
     )
     INSERT INTO "UsageLatency" AS u ("clientId", route, "periodStart", bucket, count)
     SELECT "clientId", route, date_trunc('hour', "periodStart"), bucket, sum(count)::int
     FROM moved GROUP BY 1, 2, 3, 4
     ON CONFLICT ("clientId", "periodStart", route, bucket) DO UPDATE SET count = u.count + EXCLUDED.count`,
    [at(before)],
  );
  return { counts: counts.rowCount ?? 0, latency: latency.rowCount ?? 0 };
}

/** The usage tables, range-partitioned by day on "periodStart" (prisma/migrations/…_partitioned_usage). */
const USAGE_TABLES: readonly DayPartitioned[] = [
  { table: "UsageCount", key: "periodStart" },
  { table: "UsageLatency", key: "periodStart" },
];
/** The request log, range-partitioned by day on "at" (prisma/migrations/…_partitioned_history). */
const REQUEST_LOG: DayPartitioned = { table: "RequestLog", key: "at" };

/**
 * Creates the day partitions of the usage tables from `from` through `through` (UTC days)
 * that do not exist yet, each taking over what the default partition held for its day. Returns how
 * many it created.
 */
export function ensureUsagePartitions(from: Date, through: Date): Promise<number> {
  return ensureDayPartitions(USAGE_TABLES, from, through);
}

/** The same for the request log. */
export function ensureRequestLogPartitions(from: Date, through: Date): Promise<number> {
  return ensureDayPartitions([REQUEST_LOG], from, through);
}

/**
 * Deletes usage older than `before`: the day partitions that end by then are dropped whole (issue
 * 30); the default partition (rows of a day that had no partition yet) is the only one deleted from
 * row by row. A partly expired day stays until its whole day is past. Returns the rows removed.
 */
export async function deleteUsageBefore(before: Date): Promise<number> {
  let removed = 0;
  for (const table of USAGE_TABLES) removed += await dropDayPartitions(table, before);
  return removed;
}

/**
 * Drops the request log's day partitions that end by `before` (past the longest age the
 * log promises), carrying into the default partition the rows still among their app's `keepRecent`
 * newest (a quiet app's last requests, whatever their age). The per-app trim (trimRequestLog)
 * bounds everything else, the default partition included. Returns the rows removed.
 */
export function dropRequestLogBefore(before: Date, keepRecent: number): Promise<number> {
  const cutoff = `(timestamptz '${before.toISOString()}' AT TIME ZONE 'UTC')`;
  const keep = `r.id IN (
    SELECT n.id FROM (SELECT DISTINCT o."clientId" FROM "RequestLog" o WHERE o.at < ${cutoff}) AS c
    CROSS JOIN LATERAL (
      SELECT l.id FROM "RequestLog" l WHERE l."clientId" = c."clientId" ORDER BY l.at DESC, l.id DESC LIMIT ${Math.trunc(keepRecent)}
    ) AS n)`;
  return dropDayPartitions(REQUEST_LOG, before, { keep, trimDefault: false });
}

/**
 * Trims the request log per app: a row stays while it is among the app's `keepRecent` newest, or it
 * is a non-2xx answer newer than `errorsSince` and among the app's `errorCap` newest of those.
 */
export async function trimRequestLog(keepRecent: number, errorsSince: Date, errorCap: number): Promise<number> {
  const result = await pool.query(
    `DELETE FROM "RequestLog" r USING (
       SELECT id, at FROM (
         SELECT id, status, at,
           row_number() OVER (PARTITION BY "clientId" ORDER BY at DESC, id DESC) AS recent,
           row_number() OVER (PARTITION BY "clientId", (status BETWEEN 200 AND 299) ORDER BY at DESC, id DESC) AS nth
         FROM "RequestLog"
       ) x
       WHERE recent > $1 AND (status BETWEEN 200 AND 299 OR at < ${UTC(2)} OR nth > $3)
     ) d
     WHERE r.id = d.id AND r.at = d.at`,
    [keepRecent, at(errorsSince), errorCap],
  );
  return result.rowCount ?? 0;
}

export interface UsageTotalRow {
  route: string;
  status: number;
  errorCode: string;
  count: number;
}

/** Totals per route, status and error code of one app since `since`. */
export async function selectUsageTotals(clientId: string, since: Date): Promise<UsageTotalRow[]> {
  const { rows } = await pool.query<UsageTotalRow>(
    `SELECT route, status::int AS status, "errorCode", sum(count)::int AS count
     FROM "UsageCount" WHERE "clientId" = $1 AND "periodStart" >= ${UTC(2)}
     GROUP BY route, status, "errorCode" ORDER BY route, status, "errorCode"`,
    [clientId, at(since)],
  );
  return rows;
}

/** Latency buckets per route of one app since `since`. */
export async function selectLatencyTotals(clientId: string, since: Date): Promise<{ route: string; bucket: number; count: number }[]> {
  const { rows } = await pool.query<{ route: string; bucket: number; count: number }>(
    `SELECT route, bucket::int AS bucket, sum(count)::int AS count
     FROM "UsageLatency" WHERE "clientId" = $1 AND "periodStart" >= ${UTC(2)}
     GROUP BY route, bucket`,
    [clientId, at(since)],
  );
  return rows;
}

/** Requests per time slot (`stepSeconds` wide, from the epoch) and status class of one app. */
export async function selectUsageSeries(
  clientId: string,
  since: Date,
  stepSeconds: number,
): Promise<{ slot: number; statusClass: number; count: number }[]> {
  const { rows } = await pool.query<{ slot: string; statusClass: number; count: number }>(
    `SELECT floor(extract(epoch FROM "periodStart") / $3)::bigint AS slot, (status / 100)::int AS "statusClass",
            sum(count)::int AS count
     FROM "UsageCount" WHERE "clientId" = $1 AND "periodStart" >= ${UTC(2)} AND route NOT LIKE 'token:%' AND route NOT LIKE 'unauthenticated:%'
     GROUP BY 1, 2 ORDER BY 1`,
    [clientId, at(since), stepSeconds],
  );
  return rows.map((r) => ({ slot: Number(r.slot), statusClass: r.statusClass, count: r.count }));
}

/** Latency buckets per time slot of one app's API requests. */
export async function selectLatencySeries(
  clientId: string,
  since: Date,
  stepSeconds: number,
): Promise<{ slot: number; bucket: number; count: number }[]> {
  const { rows } = await pool.query<{ slot: string; bucket: number; count: number }>(
    `SELECT floor(extract(epoch FROM "periodStart") / $3)::bigint AS slot, bucket::int AS bucket, sum(count)::int AS count
     FROM "UsageLatency" WHERE "clientId" = $1 AND "periodStart" >= ${UTC(2)} AND route NOT LIKE 'token:%' AND route NOT LIKE 'unauthenticated:%'
     GROUP BY 1, 2`,
    [clientId, at(since), stepSeconds],
  );
  return rows.map((r) => ({ slot: Number(r.slot), bucket: r.bucket, count: r.count }));
}

export interface AppTrafficRow {
  clientId: string;
  name: string | null;
  total: number;
  errors: number;
  limited: number;
}

/**
 * Every app's totals in [`since`, `until`) (the admin overview), most traffic first. Failed token
 * requests of unauthenticated callers (`unauthenticated:…`) are not the app's traffic or
 * errors. Every app with traffic, not a top few: the overview's platform totals are the sums of these
 * rows, one row per metered client (a sandbox's is its own row, named after its app).
 */
export async function selectTrafficByApp(since: Date, until: Date): Promise<AppTrafficRow[]> {
  const { rows } = await pool.query<AppTrafficRow>(
    `SELECT c."clientId", a.name, sum(c.count)::int AS total,
            (sum(c.count) FILTER (WHERE c.status >= 400))::int AS errors,
            (sum(c.count) FILTER (WHERE c.status = 429))::int AS limited
     FROM "UsageCount" c
       LEFT JOIN "Application" a ON a."clientId" = (CASE WHEN c."clientId" LIKE 'sbx\_%' THEN substr(c."clientId", 5) ELSE c."clientId" END)
     WHERE c."periodStart" >= ${UTC(1)} AND c."periodStart" < ${UTC(2)} AND c.route NOT LIKE 'unauthenticated:%'
     GROUP BY c."clientId", a.name ORDER BY total DESC, c."clientId"`,
    [at(since), at(until)],
  );
  return rows.map((r) => ({ ...r, errors: r.errors ?? 0, limited: r.limited ?? 0 }));
}

/**
 * The platform's requests per time slot (`stepSeconds` wide, from the epoch) and status
 * class in [`since`, `until`), every app's, token requests included and unauthenticated callers'
 * failures left out, as selectTrafficByApp counts them.
 */
export async function selectPlatformSeries(since: Date, until: Date, stepSeconds: number): Promise<{ slot: number; statusClass: number; count: number }[]> {
  const { rows } = await pool.query<{ slot: string; statusClass: number; count: number }>(
    `SELECT floor(extract(epoch FROM "periodStart") / $3)::bigint AS slot, (status / 100)::int AS "statusClass", sum(count)::int AS count
     FROM "UsageCount" WHERE "periodStart" >= ${UTC(1)} AND "periodStart" < ${UTC(2)} AND route NOT LIKE 'unauthenticated:%'
     GROUP BY 1, 2 ORDER BY 1`,
    [at(since), at(until), stepSeconds],
  );
  return rows.map((r) => ({ slot: Number(r.slot), statusClass: r.statusClass, count: r.count }));
}

/** A request-log row as read: the entry, its metered client and its id (a bigint, as text). */
export type RequestLogRecord = RequestLogEntry & { clientId: string; id: string };

const LOG_COLUMNS = `r.id::text AS id, extract(epoch FROM r.at) * 1000 AS "atMs", r."clientId", r.method, r.route, r.status::int AS status,
  r."errorCode", r."latencyMs", r."requestId", r."userId", u.handle AS "userHandle", r.path, r."errorMessage", r."rateLimit", r."rateRemaining"`;

type RawLogRow = Omit<RequestLogRecord, "atMs"> & { atMs: string };
const toRecord = (r: RawLogRow): RequestLogRecord => ({ ...r, atMs: Number(r.atMs) });

/**
 * An app's request log, newest first, filtered; the user's handle is read here, not per request.
 * `clientIds`: the live client, its sandbox or both, each read newest first through
 * ("clientId", at DESC) and merged, so showing both costs two index reads of `limit` rows.
 * A time window (`since` inclusive, `until` exclusive) and keyset paging: `after` is the
 * last row of the previous page, the page continues strictly after it in (at DESC, id DESC) order
 * (an index range, whatever the depth; never OFFSET).
 */
export async function selectRequestLog(
  clientIds: string[],
  filter: {
    statusFrom: number;
    statusTo: number;
    route?: string;
    requestId?: string;
    since?: Date;
    until?: Date;
    after?: { atMs: number; id: string };
    limit: number;
  },
): Promise<RequestLogRecord[]> {
  const { rows } = await pool.query<RawLogRow>(
    `SELECT ${LOG_COLUMNS}
     FROM unnest($1::text[]) AS k("clientId")
     CROSS JOIN LATERAL (
       SELECT * FROM "RequestLog" r
       WHERE r."clientId" = k."clientId" AND r.status BETWEEN $2 AND $3
         AND ($4::text IS NULL OR r.route = $4) AND ($5::text IS NULL OR r."requestId" = $5)
         AND ($7::float8 IS NULL OR r.at >= ${UTC(7)}) AND ($8::float8 IS NULL OR r.at < ${UTC(8)})
         AND ($9::float8 IS NULL OR (r.at, r.id) < (${UTC(9)}, $10::bigint))
       ORDER BY r.at DESC, r.id DESC LIMIT $6
     ) r
     LEFT JOIN "User" u ON u.id = r."userId"
     ORDER BY r.at DESC, r.id DESC LIMIT $6`,
    [
      clientIds,
      filter.statusFrom,
      filter.statusTo,
      filter.route ?? null,
      filter.requestId ?? null,
      filter.limit,
      filter.since ? at(filter.since) : null,
      filter.until ? at(filter.until) : null,
      filter.after ? filter.after.atMs / 1000 : null,
      filter.after?.id ?? null,
    ],
  );
  return rows.map(toRecord);
}

/** The detail view: the rows of `clientIds` with this request id (usually one; a client may reuse an id), newest first. */
export async function selectRequestLogById(clientIds: string[], requestId: string, limit: number): Promise<RequestLogRecord[]> {
  const { rows } = await pool.query<RawLogRow>(
    `SELECT ${LOG_COLUMNS}
     FROM "RequestLog" r LEFT JOIN "User" u ON u.id = r."userId"
     WHERE r."clientId" = ANY($1::text[]) AND r."requestId" = $2
     ORDER BY r.at DESC, r.id DESC LIMIT $3`,
    [clientIds, requestId, limit],
  );
  return rows.map(toRecord);
}

export interface SandboxExerciseRow {
  /** API calls per route (token grants as `token:<grant_type>`) since the range's start. */
  routes: { route: string; calls: number; errors: number }[];
  /** The newest minute (an hour, once rolled up) with any of its requests, whenever it was. */
  lastActivity: Date | null;
}

/**
 * For the reviewer: how much an app's sandbox client was exercised, in ONE statement —
 * its calls per route since `since` (the sandbox's rows of the last days: one index range of the
 * primary key) and its newest counted minute of any age (a backward read of the same index that
 * stops at the first row). Failed unauthenticated token requests are not the sandbox's use.
 */
export async function selectSandboxExercise(sandboxClientId: string, since: Date): Promise<SandboxExerciseRow> {
  const { rows } = await pool.query<{ routes: SandboxExerciseRow["routes"] | null; last: Date | null }>({
    name: "sandbox-exercise-v1",
    text: `SELECT
       (SELECT json_agg(json_build_object('route', route, 'calls', calls, 'errors', errors) ORDER BY calls DESC, route)
        FROM (SELECT route, sum(count)::int AS calls, coalesce(sum(count) FILTER (WHERE status >= 400), 0)::int AS errors
              FROM "UsageCount" WHERE "clientId" = $1 AND "periodStart" >= ${UTC(2)} AND route NOT LIKE 'unauthenticated:%'
              GROUP BY route) t) AS routes,
       (SELECT "periodStart" AT TIME ZONE 'UTC' FROM "UsageCount"
        WHERE "clientId" = $1 AND route NOT LIKE 'unauthenticated:%' ORDER BY "periodStart" DESC LIMIT 1) AS last`,
    values: [sandboxClientId, at(since)],
  });
  const row = rows[0]!;
  return { routes: row.routes ?? [], lastActivity: row.last };
}
