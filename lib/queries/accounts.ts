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

/**
 * What the hosted login form's password check needs of a user, by handle (issue 24, sign-in flow
 * bench case F): one named statement, batched per turn, instead of Prisma's per-query planning
 * (about 2 ms of the event loop per sign-in under load).
 */
export interface CredentialRow {
  id: number;
  handle: string;
  disabled: boolean;
  passwordHash: string | null;
}

export const findCredentialRow = turnBatched<string, CredentialRow | null>(async (handles) => {
  const { rows } = await pool.query<CredentialRow & { i: string }>({
    name: "sign_in_credentials_batch_v2",
    // Issue 26: the live world's people only (worldId 0; its unique index leads with the world).
    text: `SELECT k.i, u.id, u.handle, u.disabled, u."passwordHash"
           FROM unnest($1::text[]) WITH ORDINALITY AS k(handle, i)
           JOIN "User" u ON u."worldId" = 0 AND u.handle = k.handle`,
    values: [handles],
  });
  return byPosition(rows, handles.length).map((row) =>
    row ? { id: row.id, handle: row.handle, disabled: row.disabled, passwordHash: row.passwordHash } : null,
  );
});
