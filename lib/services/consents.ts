import { transactionWithChanges } from "../database/changes";
import { db, Prisma } from "../database/client";
import { findConsentScopesRow } from "../queries/consents";
import { insertEventSql } from "../queries/events";
import type { Actor } from "./actor";
import { recordAudit } from "./audit";
import { recordAuthorizationEvents } from "../events/outbox";
import { revokeUserGrants, voidUserTokens } from "./token-revocation";

/**
 * A user's remembered consent for a third-party login client (PRODUCT.md: the consent page is
 * remembered). The sign-in service skips the consent page when every requested scope is covered.
 */
export async function findConsentScopes(userId: number, clientId: string): Promise<string[] | null> {
  // Read at every sign-in to a third-party app: the hot path's raw statement, not Prisma.
  return findConsentScopesRow({ userId, clientId });
}

/**
 * Records the scopes granted, merged with what was granted before, with its
 * `app.authorization.granted` event (all scopes now granted). One statement, so two
 * consent submissions at the same instant both succeed and both sets of scopes are kept.
 */
const GRANTED_EVENT_SQL = Prisma.raw(
  insertEventSql(
    {
      type: "'app.authorization.granted'",
      clientId: 'c."clientId"',
      userId: 'c."userId"',
      worldId: 'u."worldId"',
      data: "jsonb_build_object('user', u.handle, 'scopes', to_jsonb(c.scopes))",
    },
    'c JOIN "User" u ON u.id = c."userId"',
  ),
);

export async function rememberConsent(userId: number, clientId: string, scopes: string[]): Promise<void> {
  const granted = [...new Set(scopes)].sort();
  // UTC wall-clock, as Prisma writes its timestamp(3) columns.
  await db.$executeRaw`
    WITH c AS (
      INSERT INTO "Consent" ("userId", "clientId", scopes, "createdAt", "updatedAt")
      VALUES (${userId}, ${clientId}, ${granted}::text[], now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC')
      ON CONFLICT ("userId", "clientId") DO UPDATE SET
        scopes = (SELECT array_agg(DISTINCT s ORDER BY s) FROM unnest("Consent".scopes || EXCLUDED.scopes) AS s),
        "updatedAt" = EXCLUDED."updatedAt"
      RETURNING "userId", "clientId", scopes
    )
    ${GRANTED_EVENT_SQL}`;
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
    const removed = await tx.$queryRaw<{ scopes: string[]; handle: string }[]>`
      DELETE FROM "Consent" c USING "User" u WHERE c."userId" = ${userId} AND c."clientId" = ${clientId} AND u.id = c."userId"
      RETURNING c.scopes, u.handle`;
    const consents = removed.length;
    if (removed[0]) await recordAuthorizationEvents(tx, "app.authorization.revoked", [{ userId, clientId, scopes: removed[0].scopes }], removed[0].handle);
    const revoked = await revokeUserGrants(tx, userId, clientId);
    await recordAudit(
      { actor, action: "consent.revoke", targetType: "user", targetId: String(userId), detail: { client: clientId, revoked } },
      tx,
    );
    await announce(await voidUserTokens(tx, userId, clientId));
    return { revoked, hadConsent: consents > 0 };
  });
}
