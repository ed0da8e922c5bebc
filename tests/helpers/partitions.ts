import { query } from "./db";

/**
 * The day partitions of a table (tests/api/usage-partitions.test.ts and
 * history-partitions.test.ts): partitions are named `<table>_pYYYYMMDD` (UTC day) and `<table>_default`.
 */
const DAY = 24 * 3600_000;

/** The UTC day `offsetDays` from today, as YYYY-MM-DD. */
export const dayOf = (offsetDays: number) => new Date(Date.now() + offsetDays * DAY).toISOString().slice(0, 10);

/** The same as a partition name's suffix, YYYYMMDD. */
export const dayName = (offsetDays: number) => dayOf(offsetDays).replaceAll("-", "");

/** A timestamp (UTC, as the columns store it) at noon `offsetDays` from today, as SQL. */
export const noon = (offsetDays: number) => `(date_trunc('day', now() AT TIME ZONE 'UTC') + interval '${offsetDays} days' + interval '12 hours')`;

/** The partitions of `table`, by name. */
export async function partitions(url: string, table: string): Promise<string[]> {
  const rows = await query<{ name: string }>(
    url,
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass ORDER BY 1`,
    [`"${table}"`],
  );
  return rows.map((r) => r.name);
}
