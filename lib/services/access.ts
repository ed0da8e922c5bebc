import { turnBatched } from "../database/batch";
import { pool } from "../db";

/**
 * What the API's bearer check (lib/api/auth.ts) needs from the database after a token verified:
 * whether its app is still approved and whether its user still exists and is enabled. Misses of
 * one event-loop turn share ONE query: with many distinct users each token is seen about once per
 * cache period, so a query of its own would double the round trips of a one-query read (issue 6).
 */
export interface AccessStatus {
  appApproved: boolean;
  /** undefined: app-only token. null: the user id does not exist. */
  userDisabled: boolean | null | undefined;
}

const loadAccessStatus = turnBatched<{ clientId: string; userId: number | undefined }, AccessStatus>(async (keys) => {
  const { rows } = await pool.query<{ i: string; app_status: string | null; user_disabled: boolean | null }>({
    name: "api_access_status_batch",
    text: `SELECT k.i, (SELECT status::text FROM "Application" WHERE "clientId" = k.client_id) AS app_status,
                  (SELECT disabled FROM "User" WHERE id = k.user_id) AS user_disabled
           FROM unnest($1::text[], $2::int[]) WITH ORDINALITY AS k(client_id, user_id, i)`,
    values: [keys.map((k) => k.clientId), keys.map((k) => k.userId ?? null)],
  });
  const byIndex = new Map(rows.map((r) => [Number(r.i), r]));
  return keys.map((k, index) => {
    const row = byIndex.get(index + 1);
    return {
      appApproved: row?.app_status === "approved",
      userDisabled: k.userId === undefined ? undefined : (row?.user_disabled ?? null),
    };
  });
});

export function getAccessStatus(clientId: string, userId: number | undefined): Promise<AccessStatus> {
  return loadAccessStatus({ clientId, userId });
}
