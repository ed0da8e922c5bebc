import { pool } from "../db";

/**
 * Fixed-window failure counters in the RateLimit table, shared by every process (PRODUCT.md: rate
 * limits live in PostgreSQL). Used for failed sign-ins per account and per client IP.
 */
export interface ThrottleRule {
  /** Row key, e.g. `login:account:alice`. */
  key: string;
  /** Failures allowed within one window. */
  limit: number;
  windowSeconds: number;
}

/** Failed sign-ins: 5 per account and 20 per IP address per 15 minutes. */
export const LOGIN_WINDOW_SECONDS = 15 * 60;
export const LOGIN_LIMIT_PER_ACCOUNT = 5;
export const LOGIN_LIMIT_PER_IP = 20;

/** PostgreSQL text cannot hold NUL; a typed username may contain anything (it is no handle then). */
const keyPart = (value: string, max: number) => value.replace(/[\u0000-\u001f\u007f]/g, "\ufffd").slice(0, max);

export function loginThrottleRules(handle: string, ip: string): ThrottleRule[] {
  return [
    { key: `login:account:${keyPart(handle.toLowerCase(), 100)}`, limit: LOGIN_LIMIT_PER_ACCOUNT, windowSeconds: LOGIN_WINDOW_SECONDS },
    { key: `login:ip:${keyPart(ip, 64)}`, limit: LOGIN_LIMIT_PER_IP, windowSeconds: LOGIN_WINDOW_SECONDS },
  ];
}

// Timestamps as ISO strings with `Z`: the column is timestamp(3) holding UTC, as Prisma writes it.
const iso = (date: Date) => date.toISOString();

/**
 * The earliest time every rule allows another attempt, or null when none is exhausted. Reading
 * is enough here: the count only grows on a failure (recordFailure).
 */
export async function findThrottledUntil(rules: ThrottleRule[], now = new Date()): Promise<Date | null> {
  if (rules.length === 0) return null;
  const { rows } = await pool.query<{ key: string; count: number; windowStart: string }>(
    `SELECT key, count, to_char("windowStart", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "windowStart"
     FROM "RateLimit" WHERE key = ANY($1)`,
    [rules.map((r) => r.key)],
  );
  let until: Date | null = null;
  for (const rule of rules) {
    const row = rows.find((r) => r.key === rule.key);
    if (!row) continue;
    const end = new Date(new Date(row.windowStart).getTime() + rule.windowSeconds * 1000);
    if (end > now && row.count >= rule.limit && (!until || end > until)) until = end;
  }
  return until;
}

/** Counts one failure against every rule (atomic upsert; a stale window restarts at 1). */
export async function recordFailure(rules: ThrottleRule[], now = new Date()): Promise<void> {
  for (const rule of rules) {
    const windowFloor = new Date(now.getTime() - rule.windowSeconds * 1000);
    await pool.query(
      `INSERT INTO "RateLimit" (key, count, "windowStart") VALUES ($1, 1, $2)
       ON CONFLICT (key) DO UPDATE SET
         count = CASE WHEN "RateLimit"."windowStart" <= $3 THEN 1 ELSE "RateLimit".count + 1 END,
         "windowStart" = CASE WHEN "RateLimit"."windowStart" <= $3 THEN $2 ELSE "RateLimit"."windowStart" END`,
      [rule.key, iso(now), iso(windowFloor)],
    );
  }
}

/** A successful sign-in clears the account's counter (not the IP's: one success must not unlock a sprayer). */
export async function clearFailures(keys: string[]): Promise<void> {
  if (keys.length === 0) return;
  await pool.query(`DELETE FROM "RateLimit" WHERE key = ANY($1)`, [keys]);
}
