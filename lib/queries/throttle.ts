// Data layer (STYLE.md Layout): hot-path SQL over pg, one statement per export; the rules stay in lib/services/throttle.ts.
import { pool } from "../database/client";

/** One key's fixed-window counter in the RateLimit table. */
export interface RateLimitCounter {
  key: string;
  count: number;
  /** When the key's window began, as the database wrote it (decrementRateLimits matches on it). */
  windowStart: string;
  windowEnd: Date;
}

/**
 * Counts one attempt on every key in ONE statement (each row's upsert is atomic; the rows are locked
 * in the order given, so callers that always pass keys in one order cannot deadlock). A window of
 * `windowSeconds` that has ended restarts at 1. Times come from the database clock, shared by every
 * process.
 */
export async function incrementRateLimits(keys: readonly string[], windowSeconds: number): Promise<RateLimitCounter[]> {
  const { rows } = await pool.query<{ key: string; count: number; windowStart: string; windowEnd: string }>(
    `WITH clock AS (SELECT date_trunc('milliseconds', now() AT TIME ZONE 'UTC') AS t)
     INSERT INTO "RateLimit" AS r (key, count, "windowStart")
     SELECT k.key, 1, clock.t FROM unnest($1::text[]) WITH ORDINALITY AS k(key, n), clock ORDER BY k.n
     ON CONFLICT (key) DO UPDATE SET
       count = CASE WHEN r."windowStart" <= EXCLUDED."windowStart" - make_interval(secs => $2) THEN 1 ELSE r.count + 1 END,
       "windowStart" = CASE WHEN r."windowStart" <= EXCLUDED."windowStart" - make_interval(secs => $2)
                       THEN EXCLUDED."windowStart" ELSE r."windowStart" END
     RETURNING key, count, r."windowStart"::text AS "windowStart",
       to_char(r."windowStart" + make_interval(secs => $2), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "windowEnd"`,
    [keys, windowSeconds],
  );
  return rows.map((row) => ({ key: row.key, count: row.count, windowStart: row.windowStart, windowEnd: new Date(row.windowEnd) }));
}

/** Takes one attempt back from each key, only within the window it was counted in, never below 0. */
export async function decrementRateLimits(entries: readonly { key: string; windowStart: string }[]): Promise<void> {
  await pool.query(
    `UPDATE "RateLimit" AS r SET count = GREATEST(r.count - 1, 0)
     FROM unnest($1::text[], $2::timestamp(3)[]) AS g(key, "windowStart")
     WHERE r.key = g.key AND r."windowStart" = g."windowStart"`,
    [entries.map((e) => e.key), entries.map((e) => e.windowStart)],
  );
}

/**
 * A successful sign-in's settlement in one statement (sign-in flow bench case F): forgets
 * the (account, address) pair's counter and gives the attempt back to the other keys, as
 * deleteRateLimit then decrementRateLimits would, in one round trip. The pair's key is never one
 * of `entries` (lib/services/throttle.ts loginKeys: one prefix per kind of key).
 */
export async function settleRateLimits(forget: string, entries: readonly { key: string; windowStart: string }[]): Promise<void> {
  await pool.query({
    name: "rate_limit_settle_v1",
    text: `WITH forgotten AS (DELETE FROM "RateLimit" WHERE key = $1)
           UPDATE "RateLimit" AS r SET count = GREATEST(r.count - 1, 0)
           FROM unnest($2::text[], $3::timestamp(3)[]) AS g(key, "windowStart")
           WHERE r.key = g.key AND r."windowStart" = g."windowStart"`,
    values: [forget, entries.map((e) => e.key), entries.map((e) => e.windowStart)],
  });
}

/** Removes the counters under `prefix` whose window began more than `olderThanSeconds` ago. */
export async function deleteStaleRateLimits(prefix: string, olderThanSeconds: number): Promise<number> {
  const { rowCount } = await pool.query(
    `DELETE FROM "RateLimit" WHERE key LIKE $1 || '%'
       AND "windowStart" < (now() AT TIME ZONE 'UTC') - make_interval(secs => $2)`,
    [prefix, olderThanSeconds],
  );
  return rowCount ?? 0;
}
