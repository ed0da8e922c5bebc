// Data layer (STYLE.md Layout): hot-path SQL over pg, one statement per export; rules live in the callers (lib/services/consents.ts).
import { byPosition, turnBatched } from "../database/batch";
import { pool } from "../database/client";

/**
 * The scopes a person allowed an app, or null when they never did (sign-in flow bench
 * case F): every sign-in to a third-party app reads it when oidc-provider resumes the
 * authorization (lib/oidc/config.ts loadExistingGrant), so it is one named statement, batched per
 * turn, instead of a Prisma query.
 */
export const findConsentScopesRow = turnBatched<{ userId: number; clientId: string }, string[] | null>(async (keys) => {
  const { rows } = await pool.query<{ i: string; scopes: string[] }>({
    name: "consent_scopes_batch_v1",
    text: `SELECT k.i, c.scopes
           FROM unnest($1::int[], $2::text[]) WITH ORDINALITY AS k("userId", "clientId", i)
           JOIN "Consent" c ON c."userId" = k."userId" AND c."clientId" = k."clientId"`,
    values: [keys.map((k) => k.userId), keys.map((k) => k.clientId)],
  });
  return byPosition(rows, keys.length).map((row) => (row ? row.scopes : null));
});
