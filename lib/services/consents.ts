import { db } from "../db";

/**
 * A user's remembered consent for a third-party login client (PRODUCT.md: the consent page is
 * remembered). The sign-in service skips the consent page when every requested scope is covered.
 */
export async function findConsentScopes(userId: number, clientId: string): Promise<string[] | null> {
  const row = await db.consent.findUnique({ where: { userId_clientId: { userId, clientId } }, select: { scopes: true } });
  return row ? row.scopes : null;
}

/** Records the scopes granted, merged with what was granted before. */
export async function rememberConsent(userId: number, clientId: string, scopes: string[]): Promise<void> {
  const previous = (await findConsentScopes(userId, clientId)) ?? [];
  const merged = [...new Set([...previous, ...scopes])].sort();
  await db.consent.upsert({
    where: { userId_clientId: { userId, clientId } },
    create: { userId, clientId, scopes: merged },
    update: { scopes: merged },
  });
}

/** Forgets a user's consent for a client (the next authorization shows the consent page again). */
export async function forgetConsent(userId: number, clientId: string): Promise<void> {
  await db.consent.deleteMany({ where: { userId, clientId } });
}
