import { db, type Prisma, type Tx } from "../database/client";
import { AppError } from "../errors";
import type { AppRole, MemberRole } from "../schemas/apps";
import { isAdminActor, type Actor } from "./actor";
import { recordAudit } from "./audit";

/**
 * Who may do what with an app (STYLE.md Permissions): the app row as the
 * services load it, and the one permission table, `capabilities(app, actor)`, that services,
 * server actions, pages and the CLI all read. Nothing else compares team roles: ESLint refuses a
 * comparison with a role literal or a role rank outside this file (eslint.config.mjs, "one home
 * for each rule"; tests/lint/permissions.test.ts proves it).
 */

export const appInclude = {
  owner: { select: { id: true, handle: true, displayName: true } },
  members: {
    select: { role: true, addedAt: true, user: { select: { id: true, handle: true, displayName: true } } },
    orderBy: [{ addedAt: "asc" }, { userId: "asc" }],
  },
  secrets: { select: { id: true, hint: true, createdAt: true, lastUsedAt: true }, orderBy: { createdAt: "asc" } },
  transferTo: { select: { id: true, handle: true, displayName: true } },
} satisfies Prisma.ApplicationInclude;

/** An app as the services load it: the row, its owner, its team and its secrets' hints. */
export type AppRow = Prisma.ApplicationGetPayload<{ include: typeof appInclude }>;

export async function loadApp(clientId: string, client: Tx | typeof db = db): Promise<AppRow | null> {
  return client.application.findUnique({ where: { clientId }, include: appInclude });
}

/**
 * Locks the app's row for the rest of the transaction (SELECT … FOR UPDATE) and loads it as it is
 * now: a decision taken on what this returns (a review against the revision looked at, an edit's
 * "pending, so apply at once") cannot be overtaken by another writer before the commit.
 */
export async function lockApp(tx: Tx, clientId: string): Promise<AppRow> {
  const rows = await tx.$queryRaw<{ id: number }[]>`SELECT id FROM "Application" WHERE "clientId" = ${clientId} FOR UPDATE`;
  const app = rows[0] ? await loadApp(clientId, tx) : null;
  if (!app) throw notFound(clientId);
  return app;
}

export function notFound(clientId: string): AppError {
  return new AppError("not_found", `No application with the client id "${clientId}".`);
}

/** What a capability check needs: the owner and the team, as a row (AppRow) or a view (AppView) carries them. */
export interface AppTeam {
  owner: { id: number };
  members: readonly ({ id: number; role: MemberRole } | { user: { id: number }; role: MemberRole })[];
  /** The person a transfer is offered to, if any. */
  transferTo?: { id: number } | null;
}

export interface Capabilities {
  /** On the app's team in any role (the page speaks to them as the team, not as a reviewer). */
  onTeam: boolean;
  /** Read the app, its usage and its secrets' hints. */
  view: boolean;
  /** Edit it. */
  manage: boolean;
  /** Send a rejected app back to review: the team's call (a platform admin who wants it approves it). */
  resubmit: boolean;
  delete: boolean;
  /** Add, re-role and remove members; transfer the app. */
  manageTeam: boolean;
  /** See, mint, retire and roll client secrets. */
  handleSecrets: boolean;
  /** Approve, reject, suspend, reinstate; approve and reject changes; set quotas. */
  review: boolean;
  /** Accept or decline the transfer offered: the person it is offered to (or the operator). */
  answerTransfer: boolean;
}

const ROLE_RANK: Record<AppRole, number> = { viewer: 1, admin: 2, owner: 3 };

function teamRole(app: AppTeam, actor: Actor): AppRole | null {
  if (actor.kind !== "user") return null;
  if (actor.id === app.owner.id) return "owner";
  return app.members.find((m) => ("user" in m ? m.user.id : m.id) === actor.id)?.role ?? null;
}

/**
 * The permission table. Viewers read; team admins manage everything but deleting, the
 * team and transfers; the owner may do all of that. Platform admins and the operator may do all
 * of it too (an admin transfers an app whose owner is gone), except handling secrets: a platform
 * admin never sees or mints another team's secret (only the team and the operator do). Only
 * platform admins and the operator review.
 */
export function capabilities(app: AppTeam, actor: Actor): Capabilities {
  const role = teamRole(app, actor);
  const rank = role === null ? 0 : ROLE_RANK[role];
  const platform = isAdminActor(actor);
  return {
    onTeam: role !== null,
    view: platform || rank >= ROLE_RANK.viewer,
    manage: platform || rank >= ROLE_RANK.admin,
    resubmit: actor.kind === "system" || rank >= ROLE_RANK.admin,
    delete: platform || rank >= ROLE_RANK.owner,
    manageTeam: platform || rank >= ROLE_RANK.owner,
    handleSecrets: actor.kind === "system" || rank >= ROLE_RANK.admin,
    review: platform,
    answerTransfer:
      app.transferTo != null && (actor.kind === "system" || (actor.kind === "user" && actor.id === app.transferTo.id)),
  };
}

export type Capability = Exclude<keyof Capabilities, "onTeam">;

const REFUSALS: Record<Capability, string> = {
  view: "You cannot see this application.",
  manage: "Viewers of an app cannot change it.",
  resubmit: "Only the app's owner or team admins can resubmit it for review.",
  delete: "Only the app's owner can do this.",
  manageTeam: "Only the app's owner can do this.",
  handleSecrets: "Only the app's owner and team admins can manage its secrets.",
  review: "Only an admin can review applications.",
  answerTransfer: "No transfer of this application is waiting for you.",
};

/**
 * Refuses (audited) an actor who lacks `capability` on the app. Anyone outside the team (and not
 * a platform admin) gets not_found, so an app's existence is not revealed; a member whose role
 * falls short gets forbidden.
 */
export async function assertCapability(app: AppRow, actor: Actor, capability: Capability, action: string): Promise<void> {
  const granted = capabilities(app, actor);
  if (granted[capability]) return;
  await recordAudit({ actor, action, targetType: "app", targetId: app.clientId, outcome: "denied" });
  if (!granted.view) throw notFound(app.clientId);
  // A team member whose role falls short learns whom to ask (403s name the real reason).
  const ask = granted.onTeam && capability !== "review" ? ` Ask the owner, @${app.owner.handle}.` : "";
  throw new AppError("forbidden", REFUSALS[capability] + ask);
}

/** Loads an app for an action that needs `capability` (assertCapability's rule). */
export async function loadFor(clientId: string, actor: Actor, capability: Capability, action: string): Promise<AppRow> {
  const app = await loadApp(clientId);
  if (!app) throw notFound(clientId);
  await assertCapability(app, actor, capability, action);
  return app;
}

/**
 * Review actions, checked before the app is loaded (a reviewer's capability does not depend on the
 * app's team), so every caller gets the same rule; denials are audited.
 */
export async function requireReviewer(actor: Actor, action: string, clientId: string, refusal = REFUSALS.review): Promise<void> {
  if (capabilities({ owner: { id: -1 }, members: [] }, actor).review) return;
  await recordAudit({ actor, action, targetType: "app", targetId: clientId, outcome: "denied" });
  throw new AppError("forbidden", refusal);
}
