// Data layer (STYLE.md Layout): hot-path SQL over pg, one statement per export; rules live in the callers (lib/oidc/account.ts).
import { byPosition, turnBatched } from "../database/batch";
import { pool } from "../database/client";

/**
 * What oidc-provider's findAccount needs of a user: every refresh grant, code exchange
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

/** And its world, 0 live or a sandbox's (lib/oidc/account.ts matches it to the client's). */
export interface WorldAccountRow extends AccountRow {
  worldId: number;
}

export const findAccountRow = turnBatched<number, WorldAccountRow | null>(async (ids) => {
  const { rows } = await pool.query<WorldAccountRow & { i: string }>({
    name: "oidc_account_batch_v2",
    text: `SELECT k.i, u.id, u.handle, u."displayName", u."avatarUrl", u.disabled, u."worldId"
           FROM unnest($1::int[]) WITH ORDINALITY AS k(id, i)
           JOIN "User" u ON u.id = k.id`,
    values: [ids],
  });
  return byPosition(rows, ids.length).map((row) =>
    row
      ? { id: row.id, handle: row.handle, displayName: row.displayName, avatarUrl: row.avatarUrl, disabled: row.disabled, worldId: row.worldId }
      : null,
  );
});

/**
 * What the hosted login form's password check needs of a user, by handle (sign-in flow
 * bench case F): one named statement, batched per turn, instead of Prisma's per-query planning
 * (about 2 ms of the event loop per sign-in under load).
 */
export interface CredentialRow {
  id: number;
  handle: string;
  disabled: boolean;
  passwordHash: string | null;
  /** A confirmed second factor (TOTP or passkey), read with the credentials so a sign-in needs no query of its own for it. */
  hasSecondFactor: boolean;
}

/**
 * A handle is looked up in the signing-in client's world only (the unique index leads
 * with the world): the live world's people for a live client, the sandbox's test users for its
 * `sbx_` client (its generated people have no password, and are left out by name too). So a live
 * account never signs in to a sandbox client, nor a test user to a live one or the portal.
 */
export interface CredentialKey {
  worldId: number;
  handle: string;
}

export const findCredentialRow = turnBatched<CredentialKey, CredentialRow | null>(async (keys) => {
  const { rows } = await pool.query<CredentialRow & { i: string }>({
    name: "sign_in_credentials_batch_v4",
    text: `SELECT k.i, u.id, u.handle, u.disabled, u."passwordHash",
                  EXISTS (SELECT 1 FROM "SecondFactor" f WHERE f."userId" = u.id AND f."confirmedAt" IS NOT NULL) AS "hasSecondFactor"
           FROM unnest($1::int[], $2::text[]) WITH ORDINALITY AS k(world, handle, i)
           JOIN "User" u ON u."worldId" = k.world AND u.handle = k.handle AND (k.world = 0 OR u."isTestUser")`,
    values: [keys.map((k) => k.worldId), keys.map((k) => k.handle)],
  });
  return byPosition(rows, keys.length).map((row) =>
    row ? { id: row.id, handle: row.handle, disabled: row.disabled, passwordHash: row.passwordHash, hasSecondFactor: row.hasSecondFactor } : null,
  );
});
