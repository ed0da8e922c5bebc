import { db } from "../db";

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

/** Forgets a user's consent for a client (the next authorization shows the consent page again). */
export async function forgetConsent(userId: number, clientId: string): Promise<void> {
  await db.consent.deleteMany({ where: { userId, clientId } });
}
