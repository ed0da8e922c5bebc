import { transactionWithChanges } from "../database/changes";
import { recordEvent } from "../events/outbox";
import { Prisma, type Tx } from "../database/client";
import { AppError } from "../errors";
import type { AppView, UpdateAppInput } from "../schemas/apps";
import { loadApp, loadFor, lockApp, notFound, requireReviewer, type AppRow } from "./app-access";
import type { Actor } from "./actor";
import { pruneLogos, storeLogo } from "./app-logos";
import {
  checkedChanges,
  notifyOwner,
  notifyTeam,
  prepareChanges,
  readPendingChange,
  refuseFirstParty,
  toAppView,
  type AppChanges,
  type AppStatus,
} from "./apps";
import { findLatestAudit, recordAudit } from "./audit";
import { revokeClientGrants, voidAppTokens } from "./token-revocation";

/**
 * The review workflow: admins approve, reject, suspend and reinstate apps, undo an
 * approval, and approve or refuse the change waiting on an approved app; a team resubmits a
 * rejected app. Every decision is audited, announced, and told to the owner.
 */

/** The revision of the app the reviewer looked at; without it, a decision acts on the current one. */
export interface ReviewedRevision {
  revision?: number;
}

/**
 * Refused: the app changed since the reviewer looked at it. `extra` carries the current
 * revision, so the CLI can print it and the portal shows the app again.
 */
function changedSinceReview(app: AppRow): AppError {
  return new AppError(
    "conflict",
    `"${app.name}" changed since you looked at it (it is now at revision ${app.revision}). It is shown as it is now: review it again.`,
    { extra: { reason: "changed_since_review", revision: app.revision } },
  );
}

/** Compare-and-set on the locked row (lockApp), never on a read made earlier in the call. */
function assertRevision(app: AppRow, reviewed: ReviewedRevision): void {
  if (reviewed.revision !== undefined && reviewed.revision !== app.revision) throw changedSinceReview(app);
}

/**
 * Makes `to` the app's owner (issue 15 teams, issue 24 transfers): the new owner leaves the member
 * list (if on it) and the old owner stays on the team as an admin. Both are told. The caller holds
 * the row lock and decided the transfer may apply (accepted for an app never approved, or approved
 * by a reviewer).
 */
export async function moveOwnership(tx: Tx, app: AppRow, to: { id: number; handle: string }): Promise<void> {
  const user = await tx.user.findUnique({ where: { id: to.id }, select: { id: true, disabled: true } });
  if (!user || user.disabled) throw new AppError("conflict", `@${to.handle} can no longer own an app; refuse the transfer instead.`);
  await tx.appMember.deleteMany({ where: { applicationId: app.id, userId: to.id } });
  await tx.application.update({ where: { id: app.id }, data: { ownerId: to.id, transferToId: null, transferRequestedAt: null } });
  await tx.appMember.create({ data: { applicationId: app.id, userId: app.ownerId, role: "admin" } });
  await notifyOwner(tx, to.id, `You now own the app "${app.name}".`, app.clientId);
  await notifyOwner(tx, app.ownerId, `@${to.handle} now owns your app "${app.name}"; you stay on its team as an admin.`, app.clientId);
}

/**
 * An admin approves the change waiting on an app: its requested values become the app's (checked
 * again against the type's rules), new tokens and consents include added scopes, and the owner is
 * told. Narrowings made since the request stay narrowed only if the request did not ask for them.
 */
export async function approvePendingChange(clientId: string, actor: Actor, reviewed: ReviewedRevision = {}): Promise<AppView> {
  await requireReviewer(actor, "app.change.approve", clientId);
  return transactionWithChanges(async (tx, announce) => {
    const app = await lockApp(tx, clientId);
    assertRevision(app, reviewed);
    const change = readPendingChange(app.pendingChange);
    if (!change) throw new AppError("conflict", `${clientId} has no change waiting for review.`);
    const { requestedAt: _at, requestedBy: _by, owner, ...fields } = change;
    const applied = checkedChanges(app, fields as AppChanges);
    await tx.application.update({
      where: { clientId },
      data: { ...applied, pendingChange: Prisma.DbNull, pendingChangeRejection: null },
    });
    // An accepted transfer: the consent and device pages name the new owner from now on.
    if (owner) await moveOwnership(tx, app, owner);
    if ("logo" in applied) await pruneLogos(tx, app.id, [applied.logo]);
    await recordAudit(
      {
        actor,
        action: "app.change.approve",
        targetType: "app",
        targetId: clientId,
        detail: { fields: Object.keys(applied), revision: app.revision, ...(owner ? { owner: { from: app.owner.handle, to: owner.handle } } : {}) },
      },
      tx,
    );
    await notifyTeam(tx, app, `The changes to your app "${app.name}" were approved and apply now.`);
    await recordEvent(tx, { type: "app.status.changed", clientId, data: { status: app.status, change: "approved" } });
    await announce({ kind: "app", clientId });
    return toAppView((await loadApp(clientId, tx))!);
  });
}

/** An admin refuses the change waiting on an app, with a reason the team sees; the approved configuration stays. */
export async function rejectPendingChange(
  clientId: string,
  reason: string,
  actor: Actor,
  reviewed: ReviewedRevision = {},
): Promise<AppView> {
  await requireReviewer(actor, "app.change.reject", clientId);
  return transactionWithChanges(async (tx, announce) => {
    const app = await lockApp(tx, clientId);
    assertRevision(app, reviewed);
    const change = readPendingChange(app.pendingChange);
    if (!change) throw new AppError("conflict", `${clientId} has no change waiting for review.`);
    if (change.owner) {
      await notifyOwner(tx, change.owner.id, `The transfer of the app "${app.name}" to you was not approved: ${reason}.`);
    }
    await tx.application.update({
      where: { clientId },
      data: { pendingChange: Prisma.DbNull, pendingChangeRejection: reason },
    });
    await pruneLogos(tx, app.id, [app.logo]);
    await recordAudit(
      { actor, action: "app.change.reject", targetType: "app", targetId: clientId, detail: { reason, revision: app.revision } },
      tx,
    );
    await notifyTeam(tx, app, `The changes to your app "${app.name}" were not approved: ${reason}.`);
    await recordEvent(tx, { type: "app.status.changed", clientId, data: { status: app.status, change: "rejected", reason } });
    await announce({ kind: "app", clientId });
    return toAppView((await loadApp(clientId, tx))!);
  });
}

/**
 * "Save and resubmit": the owner's edit of a rejected app, saved and sent back to the
 * review queue in one step. The app becomes pending, marked resubmitted, and keeps the rejection
 * reason it answers so the admin can check the change against it. Only the app's team (owner or
 * team admins) or the operator asks for another review; a platform admin who wants the app
 * approves it instead.
 */
export async function resubmitApp(clientId: string, input: UpdateAppInput, actor: Actor): Promise<AppView> {
  const app = await loadFor(clientId, actor, "resubmit", "app.resubmit");
  refuseFirstParty(app, "resubmitted");
  const prepared = await prepareChanges(input);
  const changed = checkedChanges(app, prepared.changes);
  return transactionWithChanges(async (tx, announce) => {
    if (prepared.upload) await storeLogo(tx, app.id, prepared.upload);
    // Conditional on the status, so a resubmission cannot undo an approval that happened meanwhile.
    const { count } = await tx.application.updateMany({
      where: { clientId, status: "rejected" },
      data: {
        ...changed,
        status: "pending",
        statusReason: null,
        resubmittedAt: new Date(),
        previousRejectionReason: app.statusReason,
      },
    });
    if (count === 0) {
      const current = (await loadApp(clientId, tx))?.status ?? app.status;
      throw new AppError("conflict", `Only a rejected application can be resubmitted; ${clientId} is ${current}.`);
    }
    if ("logo" in changed) await pruneLogos(tx, app.id, [changed.logo]);
    await recordAudit(
      {
        actor,
        action: "app.resubmit",
        targetType: "app",
        targetId: clientId,
        detail: { fields: Object.keys(changed), ...(app.statusReason ? { rejectionReason: app.statusReason } : {}) },
      },
      tx,
    );
    await announce({ kind: "app", clientId });
    return toAppView((await loadApp(clientId, tx))!);
  });
}


const TRANSITIONS = {
  // An operator without a "reinstate" command (the CLI) approves a suspended app to reinstate it.
  approve: { from: ["pending", "rejected", "suspended"], to: "approved", audit: "app.approve" },
  reject: { from: ["pending"], to: "rejected", audit: "app.reject" },
  suspend: { from: ["approved"], to: "suspended", audit: "app.suspend" },
  reinstate: { from: ["suspended"], to: "approved", audit: "app.reinstate" },
} as const satisfies Record<string, { from: readonly AppStatus[]; to: AppStatus; audit: string }>;

type Transition = keyof typeof TRANSITIONS;

const CONFLICT_HINT: Record<Transition, Partial<Record<AppStatus, string>>> = {
  approve: { approved: "it is already approved" },
  reject: {
    rejected: "it is already rejected",
    approved: "it is approved; suspend it instead",
    suspended: "it is suspended",
  },
  suspend: { pending: "it is not approved yet; reject it instead", rejected: "it is rejected", suspended: "it is already suspended" },
  reinstate: { pending: "it is not suspended", approved: "it is not suspended", rejected: "it is not suspended" },
};

async function transition(
  clientId: string,
  kind: Transition,
  actor: Actor,
  reason?: string,
  reviewed: ReviewedRevision = {},
): Promise<AppView> {
  const rule = TRANSITIONS[kind];
  await requireReviewer(actor, rule.audit, clientId);
  return transactionWithChanges(async (tx, announce) => {
    // Under the row lock, so two admins acting at once cannot both succeed, and a decision applies
    // to the revision it names, not to whatever an edit stored meanwhile.
    const app = await lockApp(tx, clientId);
    if (rule.to !== "approved") refuseFirstParty(app, `${kind === "reject" ? "rejected" : "suspended"}`);
    if (!(rule.from as readonly AppStatus[]).includes(app.status)) {
      throw new AppError("conflict", `Cannot ${kind} ${clientId}: ${CONFLICT_HINT[kind][app.status] ?? `it is ${app.status}`}.`);
    }
    assertRevision(app, reviewed);
    await tx.application.update({
      where: { clientId },
      data: {
        status: rule.to,
        // A rejection or suspension carries its reason; approval clears any old one.
        statusReason: rule.to === "approved" ? null : (reason ?? null),
        // A review answers a resubmission: the mark and the old reason it carried go.
        ...(kind === "approve" || kind === "reject"
          ? {
              reviewedAt: new Date(),
              reviewedById: actor.kind === "user" ? actor.id : null,
              resubmittedAt: null,
              previousRejectionReason: null,
            }
          : {}),
      },
    });
    // A suspended client loses every grant, refresh token and access token at once, for good: its
    // tokens stay void after a reinstatement (the watermark stays). Its remembered consents stay,
    // so a reinstated app does not ask every user again.
    const revoked = rule.to === "suspended" ? await revokeClientGrants(tx, clientId, false) : 0;
    await recordAudit(
      {
        actor,
        action: rule.audit,
        targetType: "app",
        targetId: clientId,
        detail: {
          from: app.status,
          revision: app.revision,
          ...(reason ? { reason } : {}),
          ...(revoked ? { revoked } : {}),
          // What an undo of this approval puts back (undoApproval).
          ...(kind === "approve" ? approvalRestore(app) : {}),
        },
      },
      tx,
    );
    if (!app.firstParty) await notifyTeam(tx, app, decisionMessage(kind, app, reason));
    // The app hears it too (a suspended app included: it learns why its calls fail).
    await recordEvent(tx, {
      type: "app.status.changed",
      clientId,
      data: { status: rule.to, ...(rule.to !== "approved" && reason ? { reason } : {}) },
    });
    const view = toAppView((await loadApp(clientId, tx))!);
    if (rule.to === "suspended") await voidAppTokens(tx, clientId);
    await announce({ kind: "app", clientId });
    return view;
  });
}

/**
 * What the owner reads in their platform notifications ("owners hear about decisions"),
 * type `app_review`, with the reason the admin gave. Never a secret.
 */
function decisionMessage(kind: Transition, app: Pick<AppRow, "name" | "status" | "type">, reason?: string): string {
  const name = `"${app.name}"`;
  switch (kind) {
    case "approve":
      return app.status === "suspended"
        ? `Your app ${name} was reinstated. Tokens issued before the suspension stay void.`
        : `Your app ${name} was approved.${app.type === "api" ? " Its client secret is waiting on the app page." : ""}`;
    case "reject":
      return `Your app ${name} was not approved: ${reason ?? "no reason given"}. Edit it and resubmit it for review.`;
    case "suspend":
      return `Your app ${name} was suspended: ${reason ?? "no reason given"}. Its tokens no longer work.`;
    case "reinstate":
      return `Your app ${name} was reinstated. Tokens issued before the suspension stay void.`;
  }
}


export function approveApp(clientId: string, actor: Actor, reviewed: ReviewedRevision = {}): Promise<AppView> {
  return transition(clientId, "approve", actor, undefined, reviewed);
}

/** At most this many apps in one bulk approval (one page of the queue). */
export const MAX_BULK_APPROVE = 100;

/**
 * Approves several apps, each on its own (its own transaction, audit entry and announcement) and
 * each at the revision the queue showed, so one that changed meanwhile is refused without blocking
 * the others: the result says which failed and why.
 */
export async function approveApps(
  items: readonly (string | ({ clientId: string } & ReviewedRevision))[],
  actor: Actor,
): Promise<{ approved: AppView[]; failed: { clientId: string; message: string }[] }> {
  if (items.length > MAX_BULK_APPROVE) {
    throw new AppError("invalid_request", `Approve at most ${MAX_BULK_APPROVE} applications at once.`);
  }
  const reviewed = new Map<string, ReviewedRevision>();
  for (const item of items) {
    if (typeof item === "string") reviewed.set(item, {});
    else reviewed.set(item.clientId, { revision: item.revision });
  }
  const approved: AppView[] = [];
  const failed: { clientId: string; message: string }[] = [];
  for (const [clientId, revision] of reviewed) {
    try {
      approved.push(await approveApp(clientId, actor, revision));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      if (error.code === "forbidden") throw error;
      failed.push({ clientId, message: error.message });
    }
  }
  return { approved, failed };
}

/** An approval can be undone for this long (the toast offers it for seconds; a slow network gets slack). */
export const APPROVAL_UNDO_WINDOW_MS = 10 * 60_000;

/** The state an approval replaced, kept in its audit entry so undoApproval can put it back. */
function approvalRestore(app: AppRow): Record<string, unknown> {
  return {
    ...(app.statusReason ? { fromReason: app.statusReason } : {}),
    ...(app.resubmittedAt ? { fromResubmittedAt: app.resubmittedAt.toISOString() } : {}),
    ...(app.previousRejectionReason ? { fromPreviousRejectionReason: app.previousRejectionReason } : {}),
  };
}

const STATUS_ACTIONS = ["app.approve", "app.approve.undo", "app.reject", "app.suspend", "app.reinstate", "app.resubmit"];

/**
 * Takes back an approval made moments ago (the queue's undo toast): the app returns to the status
 * it had, with its reasons and resubmission mark. Whatever the approval let the app get is taken
 * back with it, as if it had never been approved: secrets created since (an API client's owner
 * may have revealed its secret already) are deleted, grants and refresh tokens revoked, consents
 * given since forgotten, and every access token voided through the app's watermark. Only the
 * latest status change of the app, only while it is approved, and only within the undo window.
 */
export async function undoApproval(clientId: string, actor: Actor): Promise<AppView> {
  await requireReviewer(actor, "app.approve.undo", clientId);
  const app = await loadApp(clientId);
  if (!app) throw notFound(clientId);
  return transactionWithChanges(async (tx, announce) => {
    // The app's row lock serializes the undo with a secret reveal and with another admin's action.
    const locked = await tx.$queryRaw<{ id: number; status: string }[]>`
      SELECT id, status::text AS status FROM "Application" WHERE "clientId" = ${clientId} FOR UPDATE`;
    if (!locked[0]) throw notFound(clientId);
    const cannot = (why: string) => new AppError("conflict", `Cannot undo the approval of ${clientId}: ${why}.`);
    if (locked[0].status !== "approved") throw cannot(`it is ${locked[0].status}`);
    const last = await findLatestAudit({ targetType: "app", targetId: clientId, actions: STATUS_ACTIONS }, tx);
    if (!last || last.action !== "app.approve") throw cannot("its last change was not an approval");
    if (Date.now() - last.createdAt.getTime() > APPROVAL_UNDO_WINDOW_MS) throw cannot("the approval is more than 10 minutes old");
    const detail = last.detail;
    const from = typeof detail.from === "string" && detail.from !== "approved" ? (detail.from as AppStatus) : "pending";
    const text = (value: unknown) => (typeof value === "string" ? value : null);
    await tx.application.update({
      where: { clientId },
      data: {
        status: from,
        statusReason: text(detail.fromReason),
        resubmittedAt: text(detail.fromResubmittedAt) ? new Date(text(detail.fromResubmittedAt)!) : null,
        previousRejectionReason: text(detail.fromPreviousRejectionReason),
      },
    });
    const since = { gte: last.createdAt };
    const { count: secretsRemoved } = await tx.clientSecret.deleteMany({ where: { applicationId: locked[0].id, createdAt: since } });
    const revoked = await revokeClientGrants(tx, clientId, false);
    const { count: consentsRemoved } = await tx.consent.deleteMany({ where: { clientId, createdAt: since } });
    await recordAudit(
      {
        actor,
        action: "app.approve.undo",
        targetType: "app",
        targetId: clientId,
        detail: {
          to: from,
          ...(secretsRemoved ? { secretsRemoved } : {}),
          ...(revoked ? { revoked } : {}),
          ...(consentsRemoved ? { consentsRemoved } : {}),
        },
      },
      tx,
    );
    await notifyTeam(tx, app, `The approval of your app "${app.name}" was withdrawn: it is back to ${from}.`);
    const view = toAppView((await loadApp(clientId, tx))!);
    await voidAppTokens(tx, clientId);
    await announce({ kind: "app", clientId });
    return view;
  });
}

export function rejectApp(clientId: string, reason: string, actor: Actor, reviewed: ReviewedRevision = {}): Promise<AppView> {
  return transition(clientId, "reject", actor, reason, reviewed);
}

export function suspendApp(clientId: string, reason: string, actor: Actor): Promise<AppView> {
  return transition(clientId, "suspend", actor, reason);
}

export function reinstateApp(clientId: string, actor: Actor): Promise<AppView> {
  return transition(clientId, "reinstate", actor);
}

