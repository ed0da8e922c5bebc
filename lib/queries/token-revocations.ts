// Data layer (STYLE.md Layout): SQL over pg, one statement per export; the rules stay in lib/services/consents.ts and lib/oidc/adapter.ts.
import type pg from "pg";

/**
 * Voids this person's access tokens for the app issued up to now (the per (user, app)
 * watermark the API and userinfo compare with `iat`). The database's clock (clock_timestamp), so
 * every process agrees; never moved backwards. Parameters: $1 user id, $2 client id.
 */
export const VOID_GRANT_TOKENS_SQL = `
  INSERT INTO "TokenRevocation" ("userId", "clientId", "revokedAt")
  VALUES ($1, $2, clock_timestamp() AT TIME ZONE 'UTC')
  ON CONFLICT ("userId", "clientId") DO UPDATE SET "revokedAt" = GREATEST("TokenRevocation"."revokedAt", EXCLUDED."revokedAt")`;

/** VOID_GRANT_TOKENS_SQL on a raw pg client, inside the caller's transaction. */
export async function voidGrantTokensWith(client: Pick<pg.ClientBase, "query">, userId: number, clientId: string): Promise<void> {
  await client.query(VOID_GRANT_TOKENS_SQL, [userId, clientId]);
}
