import { transactionWithChanges } from "../database/changes";
import { AppError } from "../errors";
import type { AppMember, AppView, MemberRole } from "../schemas/apps";
import type { Actor } from "./actor";
import { assertCapability, capabilities, loadApp, loadFor, notFound } from "./app-access";
import { getAppForViewer } from "./apps";
import { recordAudit } from "./audit";
import { getUserByHandle } from "./users";

/**
 * Teams (issue 15): an app has one owner and members who are team admins (manage everything but
 * delete and transfer) or viewers (read-only). The owner adds, re-roles and removes members and
 * transfers ownership; a member may leave; platform admins and the operator may do all of it (an
 * admin transfers an app whose owner is gone). Every change is audited and announced.
 */

/** At most this many members besides the owner. */
export const MAX_APP_MEMBERS = 50;

/** The owner first, then the members, longest-standing first. */
export async function listMembers(
  clientId: string,
  actor: Actor,
): Promise<{ owner: AppView["owner"]; members: AppMember[] }> {
  const app = await getAppForViewer(clientId, actor);
  return { owner: app.owner, members: app.members };
}

/**
 * Adds a member with a role, or changes the role of one already on the team (the CLI's `apps
 * members add` is idempotent: running it again with another --role changes the role).
 */
export async function setMember(
  clientId: string,
  handle: string,
  role: MemberRole,
  actor: Actor,
): Promise<{ member: AppMember; added: boolean }> {
  const app = await loadFor(clientId, actor, "manageTeam", "app.member.set");
  const user = await getUserByHandle(handle);
  if (user.id === app.ownerId) throw new AppError("invalid_request", `@${user.handle} owns this app already.`);
  if (user.disabled) throw new AppError("invalid_request", `@${user.handle} is disabled and cannot join a team.`);
  const existing = app.members.find((m) => m.user.id === user.id);
  if (!existing && app.members.length >= MAX_APP_MEMBERS) {
    throw new AppError("invalid_request", `An app has at most ${MAX_APP_MEMBERS} members besides its owner.`);
  }
  return transactionWithChanges(async (tx, announce) => {
    const row = await tx.appMember.upsert({
      where: { applicationId_userId: { applicationId: app.id, userId: user.id } },
      create: { applicationId: app.id, userId: user.id, role },
      update: { role },
    });
    await recordAudit(
      {
        actor,
        action: existing ? "app.member.role" : "app.member.add",
        targetType: "app",
        targetId: clientId,
        detail: { member: user.handle, role, ...(existing ? { from: existing.role } : {}) },
      },
      tx,
    );
    await announce({ kind: "app", clientId });
    return {
      member: { id: user.id, handle: user.handle, displayName: user.displayName, role: row.role, addedAt: row.addedAt },
      added: !existing,
    };
  });
}

/** The owner (or a platform admin) removes a member; a member may remove themselves (leave). */
export async function removeMember(clientId: string, handle: string, actor: Actor): Promise<{ removed: boolean }> {
  const app = await loadApp(clientId);
  if (!app) throw notFound(clientId);
  const user = await getUserByHandle(handle);
  const leaving = actor.kind === "user" && actor.id === user.id && capabilities(app, actor).onTeam;
  if (!leaving) await assertCapability(app, actor, "manageTeam", "app.member.remove");
  if (user.id === app.ownerId) {
    throw new AppError("invalid_request", "The owner cannot be removed; transfer the app to someone else first.");
  }
  return transactionWithChanges(async (tx, announce) => {
    const { count } = await tx.appMember.deleteMany({ where: { applicationId: app.id, userId: user.id } });
    if (count > 0) {
      await recordAudit(
        { actor, action: "app.member.remove", targetType: "app", targetId: clientId, detail: { member: user.handle } },
        tx,
      );
      await announce({ kind: "app", clientId });
    }
    return { removed: count > 0 };
  });
}

/**
 * Hands the app to another person: the new owner leaves the member list (if on it) and the old
 * owner stays on the team as an admin. Only the owner, a platform admin or the operator.
 */
export async function transferOwnership(clientId: string, handle: string, actor: Actor): Promise<AppView> {
  const app = await loadFor(clientId, actor, "manageTeam", "app.transfer");
  if (app.firstParty) throw new AppError("forbidden", "The platform's own application cannot be transferred.");
  const user = await getUserByHandle(handle);
  if (user.id === app.ownerId) throw new AppError("invalid_request", `@${user.handle} owns this app already.`);
  if (user.disabled) throw new AppError("invalid_request", `@${user.handle} is disabled and cannot own an app.`);
  await transactionWithChanges(async (tx, announce) => {
    await tx.appMember.deleteMany({ where: { applicationId: app.id, userId: user.id } });
    await tx.application.update({ where: { id: app.id }, data: { ownerId: user.id } });
    await tx.appMember.create({ data: { applicationId: app.id, userId: app.ownerId, role: "admin" } });
    await recordAudit(
      {
        actor,
        action: "app.transfer",
        targetType: "app",
        targetId: clientId,
        detail: { from: app.owner.handle, to: user.handle },
      },
      tx,
    );
    await announce({ kind: "app", clientId });
  });
  return getAppForViewer(clientId, { kind: "system", name: "transfer" });
}
