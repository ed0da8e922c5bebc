// Data layer (STYLE.md Layout): hot-path SQL over pg, one statement per export; rules live in the callers (lib/oidc/account.ts).
import { byPosition, turnBatched } from "../database/batch";
import { pool } from "../database/client";

/**
 * What oidc-provider's findAccount needs of a user (issue 18): every refresh grant, code exchange
 * and userinfo call looks the account up, so it is a hot read. Prisma's per-query planning cost a
 * fifth of a refresh grant's CPU; this is one named statement, and the lookups of one event-loop
 * turn share it.
 */
export interface AccountRow {
  id: number;
  handle: string;
  displayName: string;
  avatarUrl: string;
  disabled: boolean;
}

export const findAccountRow = turnBatched<number, AccountRow | null>(async (ids) => {
  const { rows } = await pool.query<AccountRow & { i: string }>({
    name: "oidc_account_batch_v1",
    text: `SELECT k.i, u.id, u.handle, u."displayName", u."avatarUrl", u.disabled
           FROM unnest($1::int[]) WITH ORDINALITY AS k(id, i)
           JOIN "User" u ON u.id = k.id`,
    values: [ids],
  });
  return byPosition(rows, ids.length).map((row) =>
    row ? { id: row.id, handle: row.handle, displayName: row.displayName, avatarUrl: row.avatarUrl, disabled: row.disabled } : null,
  );
});
