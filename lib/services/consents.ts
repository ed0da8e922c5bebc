import { transactionWithChanges } from "../database/changes";
import { db } from "../database/client";
import type { Actor } from "./actor";
import { recordAudit } from "./audit";
import { revokeUserGrants, voidUserTokens } from "./token-revocation";

/**
 * A user's remembered consent for a third-party login client (PRODUCT.md: the consent page is
 * remembered). The sign-in service skips the consent page when every requested scope is covered.
 */
export async function findConsentScopes(userId: number, clientId: string): Promise<string[] | null> {
  const row = await db.consent.findUnique({ where: { userId_clientId: { userId, clientId } }, select: { scopes: true } });
  return row ? row.scopes : null;
}

/**
 * Records the scopes granted, merged with what was granted before. One statement, so two consent
 * submissions at the same instant both succeed and both sets of scopes are kept.
 */
export async function rememberConsent(userId: number, clientId: string, scopes: string[]): Promise<void> {
  const granted = [...new Set(scopes)].sort();
  // UTC wall-clock, as Prisma writes its timestamp(3) columns.
  await db.$executeRaw`
    INSERT INTO "Consent" ("userId", "clientId", scopes, "createdAt", "updatedAt")
    VALUES (${userId}, ${clientId}, ${granted}::text[], now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC')
    ON CONFLICT ("userId", "clientId") DO UPDATE SET
      scopes = (SELECT array_agg(DISTINCT s ORDER BY s) FROM unnest("Consent".scopes || EXCLUDED.scopes) AS s),
      "updatedAt" = EXCLUDED."updatedAt"`;
}

/**
 * Revokes a person's authorization of a login client: the remembered consent goes (the next
 * sign-in asks again), every grant and refresh token of that person for the app is deleted, and
 * every access token of theirs for the app stops working at once, in every process.
 */
export async function revokeConsent(
  userId: number,
  clientId: string,
  actor: Actor,
): Promise<{ revoked: number; hadConsent: boolean }> {
  return transactionWithChanges(async (tx, announce) => {
    const { count: consents } = await tx.consent.deleteMany({ where: { userId, clientId } });
    const revoked = await revokeUserGrants(tx, userId, clientId);
    await recordAudit(
      { actor, action: "consent.revoke", targetType: "user", targetId: String(userId), detail: { client: clientId, revoked } },
      tx,
    );
    await announce(await voidUserTokens(tx, userId, clientId));
    return { revoked, hadConsent: consents > 0 };
  });
}
