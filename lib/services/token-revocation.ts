import type { Change } from "../database/changes";
import type { Tx } from "../database/client";
import { VOID_GRANT_TOKENS_SQL } from "../queries/token-revocations";

/**
 * Taking back what was issued. Two watermarks void access tokens by their `iat`: the
 * app's (`Application.tokensRevokedAt`: suspension, secret roll, an undone approval) and a
 * person's for one app (`TokenRevocation`: a revoked consent or grant). Both are written with the
 * database's clock and only ever move forward; the API and userinfo read both in one statement
 * (lib/queries/access.ts getAccessStatus), the refresh path with its grant
 * (lib/queries/refresh-grants.ts), and issuers wait past them (lib/oidc/access-tokens.ts
 * waitPastRevocation). Grants, refresh tokens and codes live in oidc-provider's table.
 */

/** Revokes everything issued to a client: oidc-provider grants, tokens, sessions' client entries. */
export async function revokeClientGrants(tx: Tx, clientId: string, alsoConsents: boolean): Promise<number> {
  const { count } = await tx.oidcModel.deleteMany({ where: { clientId } });
  if (alsoConsents) await tx.consent.deleteMany({ where: { clientId } });
  return count;
}

/**
 * Voids every access token of the app issued up to now: the app's watermark. The database's clock
 * (clock_timestamp, not the transaction's start) as the last statement before the commit, so no
 * token minted while the transaction ran escapes it. Never cleared: reinstating an app does not
 * revive old tokens.
 */
export async function voidAppTokens(tx: Tx, clientId: string): Promise<void> {
  await tx.$executeRaw`UPDATE "Application" SET "tokensRevokedAt" = clock_timestamp() AT TIME ZONE 'UTC'
                       WHERE "clientId" = ${clientId}`;
}

/** Deletes one person's grants, refresh tokens and codes for an app (oidc-provider's models carry the account). */
export async function revokeUserGrants(tx: Tx, userId: number, clientId: string): Promise<number> {
  return tx.$executeRaw`
    DELETE FROM "OidcModel" WHERE "clientId" = ${clientId} AND payload->>'accountId' = ${String(userId)}`;
}

/**
 * Voids this person's access tokens for the app issued up to now: the (user, app) watermark,
 * written last in the caller's transaction for the reason voidAppTokens gives. Returns the change
 * to announce.
 */
export async function voidUserTokens(tx: Tx, userId: number, clientId: string): Promise<Change> {
  await tx.$executeRawUnsafe(VOID_GRANT_TOKENS_SQL, userId, clientId);
  return { kind: "grant", userId, clientId };
}
