import { db, Prisma } from "../database/client";
import { AppError } from "../errors";
import { agentDomain } from "../schemas/agents";
import type { ConnectedApp } from "../schemas/connected-apps";
import { appLiveSql } from "../schemas/sandboxes";
import { isAdminActor, type Actor } from "./actor";
import { recordAudit } from "./audit";
import { revokeConsent } from "./consents";
import { lastUsedRecorder } from "./last-used";
import { getUserByHandle } from "./users";

/**
 * "Connected apps": the third-party login clients a person has authorized, as Google's
 * and GitHub's account pages list them, and the way to take an authorization back. The person
 * themselves and admins (portal, CLI) may see and revoke; everyone else gets not_found, as for any
 * account they cannot see.
 */

/** The person themselves or an admin; anyone else gets not_found, audited like the app checks. */
async function userIdFor(handle: string, actor: Actor, action: string): Promise<number> {
  const user = await getUserByHandle(handle);
  if (isAdminActor(actor) || (actor.kind === "user" && actor.id === user.id)) return user.id;
  await recordAudit({ actor, action, targetType: "user", targetId: String(user.id), outcome: "denied" });
  throw new AppError("not_found", "No such user.");
}

/** Most recently used first, then most recently authorized. First-party clients (the portal) are not listed. */
export async function listConnectedApps(handle: string, actor: Actor): Promise<ConnectedApp[]> {
  const userId = await userIdFor(handle, actor, "consent.list");
  const rows = await db.$queryRaw<(Omit<ConnectedApp, "agentDomain"> & { type: string })[]>`
    SELECT a."clientId", a.name, a.description, a.type::text AS type,
           -- A suspended app's logo is no longer published (app/media/logos): its initial instead.
           CASE WHEN ${Prisma.raw(appLiveSql("a.status", "live"))} THEN a.logo END AS logo, o.handle AS "ownerHandle", o."displayName" AS "ownerDisplayName",
           c.scopes, c."createdAt" AS "authorizedAt", c."lastUsedAt"
      FROM "Consent" c
      JOIN "Application" a ON a."clientId" = c."clientId"
      JOIN "User" o ON o.id = a."ownerId"
     WHERE c."userId" = ${userId} AND NOT a."firstParty"
     ORDER BY c."lastUsedAt" DESC NULLS LAST, c."createdAt" DESC, a."clientId"`;
  return rows.map(({ type, ...row }) => ({
    ...row,
    agentDomain: type === "agent" ? agentDomain(row.clientId) : null,
    scopes: [...row.scopes].sort(),
  }));
}

/**
 * Takes an authorization back: consent, grants and refresh tokens go, and the person's access
 * tokens for the app stop working at once in every process (revokeConsent). Revoking an app that
 * is not connected is not an error (the outcome the caller wanted holds) but says so.
 */
export async function revokeConnectedApp(
  handle: string,
  clientId: string,
  actor: Actor,
): Promise<{ clientId: string; wasConnected: boolean; revokedGrants: number }> {
  const userId = await userIdFor(handle, actor, "consent.revoke");
  const app = await db.application.findUnique({ where: { clientId }, select: { id: true } });
  if (!app) throw new AppError("not_found", `No application ${clientId}.`);
  const { revoked, hadConsent } = await revokeConsent(userId, clientId, actor);
  return { clientId, wasConnected: hadConsent, revokedGrants: revoked };
}

/**
 * Called by the sign-in service after a successful authorization-code or refresh-token grant.
 * At most one write per person and app per minute per process; never fails the grant.
 */
const recordConnectedAppUse = lastUsedRecorder("connected app", 50_000, async (key) => {
  const [userId, clientId] = key.split(" ");
  await db.$executeRaw`
    UPDATE "Consent" SET "lastUsedAt" = now() AT TIME ZONE 'UTC'
     WHERE "userId" = ${Number(userId)} AND "clientId" = ${clientId}`;
});

export function markConnectedAppUsed(userId: number, clientId: string): void {
  recordConnectedAppUse(`${userId} ${clientId}`);
}
