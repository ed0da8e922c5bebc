// Data layer (STYLE.md Layout): hot-path SQL over pg, one statement per export; the rules stay in lib/services/api-quota.ts.
import { pool } from "../database/client";

/**
 * Reserves up to `want` requests of `quota` for one app's window in ONE atomic upsert: the row is
 * locked while it is read and written, so processes reserving at once never hand out more than
 * the quota together. Returns what was granted (0 when the window is used up) and how many all
 * processes have reserved now.
 */
export async function reserveApiQuota(
  clientId: string,
  window: number,
  want: number,
  quota: number,
): Promise<{ granted: number; reserved: number }> {
  const { rows } = await pool.query<{ reserved: number; lastGrant: number }>({
    name: "api_quota_reserve_v1",
    text: `INSERT INTO "ApiQuotaWindow" AS w ("clientId", "window", reserved, "lastGrant")
           VALUES ($1, $2, LEAST($3::int, $4::int), LEAST($3::int, $4::int))
           ON CONFLICT ("clientId", "window") DO UPDATE SET
             "lastGrant" = LEAST($3::int, GREATEST($4::int - w.reserved, 0)),
             reserved = w.reserved + LEAST($3::int, GREATEST($4::int - w.reserved, 0))
           RETURNING reserved, "lastGrant"`,
    values: [clientId, window, want, quota],
  });
  const row = rows[0]!;
  return { granted: row.lastGrant, reserved: row.reserved };
}

/**
 * The same for one user's share of an app's window: up to `want` of the user's `quota`,
 * in ONE atomic upsert on the (app, user, window) row.
 */
export async function reserveApiUserQuota(
  clientId: string,
  userId: number,
  window: number,
  want: number,
  quota: number,
): Promise<{ granted: number; reserved: number }> {
  const { rows } = await pool.query<{ reserved: number; lastGrant: number }>({
    name: "api_user_quota_reserve_v1",
    text: `INSERT INTO "ApiUserQuotaWindow" AS w ("clientId", "userId", "window", reserved, "lastGrant")
           VALUES ($1, $2, $3, LEAST($4::int, $5::int), LEAST($4::int, $5::int))
           ON CONFLICT ("clientId", "userId", "window") DO UPDATE SET
             "lastGrant" = LEAST($4::int, GREATEST($5::int - w.reserved, 0)),
             reserved = w.reserved + LEAST($4::int, GREATEST($5::int - w.reserved, 0))
           RETURNING reserved, "lastGrant"`,
    values: [clientId, userId, window, want, quota],
  });
  const row = rows[0]!;
  return { granted: row.lastGrant, reserved: row.reserved };
}

/** Forgets the app and user windows that ended before `window` (they can no longer admit anything). */
export async function deleteApiQuotaWindowsBefore(window: number): Promise<void> {
  await pool.query(
    `WITH apps AS (DELETE FROM "ApiQuotaWindow" WHERE "window" < $1)
     DELETE FROM "ApiUserQuotaWindow" WHERE "window" < $1`,
    [window],
  );
}
