import { transactionWithChanges } from "../database/changes";
import { AppError } from "../errors";
import type { AppMember, AppView, MemberRole } from "../schemas/apps";
import type { Actor } from "./actor";
import type { PendingChange } from "../schemas/apps";
import { assertCapability, capabilities, loadApp, loadFor, lockApp, notFound } from "./app-access";
import { moveOwnership } from "./app-review";
import { getAppForViewer, listAppsOfferedTo, notifyOwner, readPendingChange } from "./apps";
import { recordAudit } from "./audit";
import { getUserByHandle } from "./users";

/** Reads back what a transfer did, whoever asked (the new owner may not be on the team yet). */
const SYSTEM: Actor = { kind: "system", name: "transfer" };

/**
 * Teams: an app has one owner and members who are team admins (manage everything but
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

/**
 * The owner (or a platform admin) removes a member; a member may remove themselves (leave).
 * `rollSecrets` says the person could handle the app's client secrets: they may
 * have copied one, so the portal offers and the CLI prints the advice to roll them.
 */
export async function removeMember(
  clientId: string,
  handle: string,
  actor: Actor,
): Promise<{ removed: boolean; rollSecrets: boolean }> {
  const app = await loadApp(clientId);
  if (!app) throw notFound(clientId);
  const user = await getUserByHandle(handle);
  const leaving = actor.kind === "user" && actor.id === user.id && capabilities(app, actor).onTeam;
  if (!leaving) await assertCapability(app, actor, "manageTeam", "app.member.remove");
  if (user.id === app.ownerId) {
    throw new AppError("invalid_request", "The owner cannot be removed; transfer the app to someone else first.");
  }
  const couldSeeSecrets =
    app.type === "api" &&
    app.secrets.length > 0 &&
    capabilities(app, { kind: "user", id: user.id, handle: user.handle, role: user.role }).handleSecrets;
  return transactionWithChanges(async (tx, announce) => {
    const { count } = await tx.appMember.deleteMany({ where: { applicationId: app.id, userId: user.id } });
    if (count > 0) {
      await recordAudit(
        { actor, action: "app.member.remove", targetType: "app", targetId: clientId, detail: { member: user.handle } },
        tx,
      );
      await announce({ kind: "app", clientId });
    }
    return { removed: count > 0, rollSecrets: count > 0 && couldSeeSecrets };
  });
}

/**
 * Offers the app to another person (ownership changes are reviewed identity changes).
 * Nothing changes until they accept it in the portal (their apps list); both are notified. The
 * operator who obtained consent elsewhere passes `accepted` (the CLI's --accepted), which accepts
 * at once. Only the owner, a platform admin or the operator offers; an offer replaces an earlier one.
 */
export async function requestTransfer(
  clientId: string,
  handle: string,
  actor: Actor,
  options: { accepted?: boolean } = {},
): Promise<{ app: AppView; outcome: TransferOutcome }> {
  const checked = await loadFor(clientId, actor, "manageTeam", "app.transfer");
  if (checked.firstParty) throw new AppError("forbidden", "The platform's own application cannot be transferred.");
  if (options.accepted && actor.kind !== "system") {
    throw new AppError("forbidden", "Only the operator can record a transfer as accepted; the new owner accepts it in the portal.");
  }
  const user = await getUserByHandle(handle);
  if (user.id === checked.ownerId) throw new AppError("invalid_request", `@${user.handle} owns this app already.`);
  if (user.disabled) throw new AppError("invalid_request", `@${user.handle} is disabled and cannot own an app.`);
  await transactionWithChanges(async (tx, announce) => {
    const app = await lockApp(tx, clientId);
    await tx.application.update({ where: { id: app.id }, data: { transferToId: user.id, transferRequestedAt: new Date() } });
    await recordAudit(
      { actor, action: "app.transfer.request", targetType: "app", targetId: clientId, detail: { from: app.owner.handle, to: user.handle } },
      tx,
    );
    if (!options.accepted) {
      await notifyOwner(
        tx,
        user.id,
        `@${app.owner.handle} offers you the app "${app.name}". Accept or decline it under "Transfers waiting for you" in My apps.`,
      );
      await notifyOwner(tx, app.ownerId, `You offered your app "${app.name}" to @${user.handle}; nothing changes until they accept.`);
    }
    await announce({ kind: "app", clientId });
  });
  if (options.accepted) return answerTransfer(clientId, true, actor);
  return { app: await getAppForViewer(clientId, SYSTEM), outcome: "awaiting_acceptance" };
}

/**
 * What an answered transfer led to: declined; applied (the app was never approved, so nothing of
 * it was reviewed yet); or awaiting review (an approved app: the new owner waits in its pending
 * change, and the consent and device pages keep the approved owner until an admin approves).
 */
export type TransferOutcome = "awaiting_acceptance" | "declined" | "applied" | "awaiting_review";

/** The person offered the app (or the operator) accepts or declines; the owner's side cancels with cancelTransfer. */
export async function answerTransfer(
  clientId: string,
  accept: boolean,
  actor: Actor,
): Promise<{ app: AppView; outcome: TransferOutcome }> {
  const action = accept ? "app.transfer.accept" : "app.transfer.decline";
  const outcome = await transactionWithChanges(async (tx, announce): Promise<TransferOutcome> => {
    // Decided on the locked row: an app approved meanwhile sends the new owner to review.
    const app = await lockApp(tx, clientId);
    if (!capabilities(app, actor).answerTransfer) {
      await recordAudit({ actor, action, targetType: "app", targetId: clientId, outcome: "denied" });
      if (!capabilities(app, actor).view) throw notFound(clientId);
      throw new AppError("conflict", "No transfer of this application is waiting for you.");
    }
    const to = app.transferTo!;
    let result: TransferOutcome = "declined";
    if (!accept) {
      await tx.application.update({ where: { id: app.id }, data: { transferToId: null, transferRequestedAt: null } });
      await notifyOwner(tx, app.ownerId, `@${to.handle} declined your offer of the app "${app.name}".`);
    } else if (app.status === "approved" || app.status === "suspended") {
      const waiting = readPendingChange(app.pendingChange);
      const change: PendingChange = {
        ...(waiting ?? { requestedAt: new Date(), requestedBy: app.owner.handle }),
        owner: { id: to.id, handle: to.handle },
      };
      await tx.application.update({
        where: { id: app.id },
        data: {
          transferToId: null,
          transferRequestedAt: null,
          pendingChange: { ...change, requestedAt: change.requestedAt.toISOString() },
          pendingChangeRejection: null,
        },
      });
      await notifyOwner(tx, to.id, `You accepted the app "${app.name}"; you become its owner once an admin approves the change.`);
      await notifyOwner(tx, app.ownerId, `@${to.handle} accepted your app "${app.name}"; the change of owner waits for review.`);
      await recordAudit({ actor, action: "app.change.request", targetType: "app", targetId: clientId, detail: { fields: ["owner"] } }, tx);
      result = "awaiting_review";
    } else {
      await moveOwnership(tx, app, to);
      result = "applied";
    }
    await recordAudit(
      { actor, action, targetType: "app", targetId: clientId, detail: { from: app.owner.handle, to: to.handle, outcome: result } },
      tx,
    );
    await announce({ kind: "app", clientId });
    return result;
  });
  return { app: await getAppForViewer(clientId, SYSTEM), outcome };
}

/** The owner's side (or a platform admin, or the operator) withdraws an offer not yet answered. */
export async function cancelTransfer(clientId: string, actor: Actor): Promise<AppView> {
  await loadFor(clientId, actor, "manageTeam", "app.transfer.cancel");
  await transactionWithChanges(async (tx, announce) => {
    const app = await lockApp(tx, clientId);
    if (!app.transferTo) throw new AppError("conflict", "No transfer of this application is waiting.");
    await tx.application.update({ where: { id: app.id }, data: { transferToId: null, transferRequestedAt: null } });
    await notifyOwner(tx, app.transferTo.id, `The offer of the app "${app.name}" to you was withdrawn.`);
    await recordAudit({ actor, action: "app.transfer.cancel", targetType: "app", targetId: clientId, detail: { to: app.transferTo.handle } }, tx);
    await announce({ kind: "app", clientId });
  });
  return getAppForViewer(clientId, actor);
}

/** The apps offered to this person, waiting for their answer (their apps list shows them). */
export async function listTransferOffers(userId: number): Promise<AppView[]> {
  return listAppsOfferedTo(userId);
}
