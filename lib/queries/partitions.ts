// Data layer (STYLE.md Layout): issue 30's day partitions, over the SQL functions of the migrations
// 20261126235800_partitioned_usage (platform_ensure_day_partition, platform_drop_day_partitions) and
// 20261127065245_partitioned_history (platform_drop_day_partitions_keeping).
import type pg from "pg";
import { pgTransactionWithChanges } from "../database/changes";
import { pool } from "../database/client";

/** A table range-partitioned by UTC day on `key` (`<table>_pYYYYMMDD`, and `<table>_default`). */
export interface DayPartitioned {
  table: string;
  key: string;
}

const day = (date: Date) => date.toISOString().slice(0, 10);

/**
 * Creates the day partitions of `tables` from `from` through `through` (UTC days) that do not exist
 * yet, each taking over what the default partition held for its day. Returns how many it created.
 */
export async function ensureDayPartitions(tables: readonly DayPartitioned[], from: Date, through: Date): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(*) FILTER (WHERE platform_ensure_day_partition(t, k, d::date))::int AS n
     FROM unnest($1::text[], $2::text[]) AS x(t, k), generate_series($3::date, $4::date, interval '1 day') AS d`,
    [tables.map((t) => t.table), tables.map((t) => t.key), day(from), day(through)],
  );
  return rows[0]!.n;
}

/**
 * Removes the rows of `table` older than `before`: the day partitions that end by then are dropped
 * whole, and the default partition (rows of days that had no partition, and rows kept past their
 * day) is deleted from row by row unless `trimDefault` is false (its table has its own trim).
 * `keep`, a SQL condition on a row named `r` (constant text, never input), names the rows that
 * outlive their day: they are carried into the default partition in the same transaction, and the
 * default partition's trim spares them too. `mutable`: the kept rows may be updated meanwhile (a
 * pending delivery being recorded), so the table takes no writes from the copy to the drop (an
 * EXCLUSIVE lock, after the partitions' advisory lock as every retention takes it: milliseconds, as
 * such a `keep` reads an index); otherwise a copy could bring back a row's older version. A partly
 * expired day stays until its whole day is past. Returns the rows removed.
 */
export async function dropDayPartitions(
  { table, key }: DayPartitioned,
  before: Date,
  options: { keep?: string; mutable?: boolean; trimDefault?: boolean } = {},
): Promise<number> {
  const { keep, mutable = false, trimDefault = true } = options;
  const cutoff = `(to_timestamp($1) AT TIME ZONE 'UTC')`;
  const at = before.getTime() / 1000;
  let dropped: number;
  if (!keep) {
    dropped = Number((await pool.query<{ n: string }>(`SELECT platform_drop_day_partitions($2, ${cutoff}) AS n`, [at, table])).rows[0]!.n);
  } else {
    const dropKeeping = async (db: Pick<pg.ClientBase, "query">) =>
      Number((await db.query<{ n: string }>(`SELECT platform_drop_day_partitions_keeping($2, $3, ${cutoff}, $4) AS n`, [at, table, key, keep])).rows[0]!.n);
    dropped = mutable
      ? await pgTransactionWithChanges(async (client) => {
          await client.query(`SELECT pg_advisory_xact_lock(hashtext('platform_partitions'))`);
          await client.query(`LOCK TABLE "${table}" IN EXCLUSIVE MODE`);
          return dropKeeping(client);
        })
      : await dropKeeping(pool);
  }
  const deleted = trimDefault
    ? await pool.query(`DELETE FROM "${table}_default" r WHERE r."${key}" < ${cutoff}${keep ? ` AND NOT (${keep})` : ""}`, [at])
    : null;
  return dropped + (deleted?.rowCount ?? 0);
}
