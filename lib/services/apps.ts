import { randomBytes } from "node:crypto";
import { transactionWithChanges } from "../database/changes";
import { db, Prisma, type Tx } from "../database/client";
import { AppError } from "../errors";
import {
  checkDeviceFlowForType,
  checkRedirectsForType,
  checkScopesForType,
  CHANGE_FIELDS,
  pendingChangeSchema,
  roleInTeam,
  type AppPage,
  type AppRole,
  type AppView,
  type ChangeField,
  type PendingChange,
  type CreateAppInput,
  type UpdateAppInput,
} from "../schemas/apps";
import { effectiveQuota } from "../schemas/rate-limits";
import { isAdminActor, type Actor } from "./actor";
import { checkLogo, pruneLogos, storeLogo, type CheckedLogo } from "./app-logos";
import { findLatestAudit, recordAudit } from "./audit";
import { ensureSystemUser } from "./users";

/**
 * Applications of the developer portal: registration by developers, review by admins, and the
 * portal's own first-party client (client secrets: lib/services/app-secrets.ts). Every state change
 * is audited and announced on the change channel in its transaction, so every process's caches
 * follow at once; permission checks live here so the portal, the admin area and the CLI cannot
 * disagree.
 */

/** The portal's own login client (next-auth), created at start-up. */
export const PORTAL_CLIENT_ID = "developer-portal";

type AppStatus = AppView["status"];
type AppType = AppView["type"];

const appInclude = {
  owner: { select: { id: true, handle: true, displayName: true } },
  members: {
    select: { role: true, addedAt: true, user: { select: { id: true, handle: true, displayName: true } } },
    orderBy: [{ addedAt: "asc" }, { userId: "asc" }],
  },
  secrets: { select: { id: true, hint: true, createdAt: true, lastUsedAt: true }, orderBy: { createdAt: "asc" } },
} satisfies Prisma.ApplicationInclude;
type AppRow = Prisma.ApplicationGetPayload<{ include: typeof appInclude }>;

function toAppView(row: AppRow): AppView {
  return {
    clientId: row.clientId,
    name: row.name,
    description: row.description,
    type: row.type,
    status: row.status,
    statusReason: row.statusReason,
    scopes: row.scopes,
    redirectUris: row.redirectUris,
    postLogoutRedirectUris: row.postLogoutRedirectUris,
    homepageUrl: row.homepageUrl,
    privacyPolicyUrl: row.privacyPolicyUrl,
    termsUrl: row.termsUrl,
    logo: row.logo,
    deviceFlow: row.deviceFlow,
    firstParty: row.firstParty,
    owner: row.owner,
    members: row.members.map((m) => ({ ...m.user, role: m.role, addedAt: m.addedAt })),
    pendingChange: readPendingChange(row.pendingChange),
    pendingChangeRejection: row.pendingChangeRejection,
    requestsPerMinute: effectiveQuota(row.requestsPerMinute),
    customQuota: row.requestsPerMinute !== null,
    hasSecret: row.secrets.length > 0,
    secrets: row.secrets,
    reviewedAt: row.reviewedAt,
    resubmittedAt: row.resubmittedAt,
    previousRejectionReason: row.previousRejectionReason,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `length` uniformly random base62 characters. */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(32)) {
      // Rejection sampling: 248 = 4 × 62, so every character is equally likely.
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** 20 base62 characters (~119 bits) after a type prefix: `api_…` or `app_…` (login clients). */
export function generateClientId(type: AppType): string {
  return `${type === "api" ? "api" : "app"}_${randomBase62(20)}`;
}

export async function loadApp(clientId: string, client: Tx | typeof db = db): Promise<AppRow | null> {
  return client.application.findUnique({ where: { clientId }, include: appInclude });
}

/** The actor's place on the app's team (issue 15): owner, a member's role, or none. */
export function teamRole(app: Pick<AppRow, "ownerId" | "members">, actor: Actor): AppRole | null {
  if (actor.kind !== "user") return null;
  return roleInTeam(app.ownerId, app.members.map((m) => ({ id: m.user.id, role: m.role })), actor.id);
}

const ROLE_RANK: Record<AppRole, number> = { viewer: 1, admin: 2, owner: 3 };

/** Does this role (or the platform admin / operator) allow what `need` asks for? */
export function mayAct(app: Pick<AppRow, "ownerId" | "members">, actor: Actor, need: AppRole): boolean {
  if (isAdminActor(actor)) return true;
  const role = teamRole(app, actor);
  return role !== null && ROLE_RANK[role] >= ROLE_RANK[need];
}

export function notFound(clientId: string): AppError {
  return new AppError("not_found", `No application with the client id "${clientId}".`);
}

/**
 * Loads an app for an action that needs `need` on its team (issue 15): viewers read, team admins
 * manage, only the owner deletes and transfers; platform admins and the operator may do all. Anyone
 * outside the team gets not_found, so an app's existence is not revealed; a member whose role falls
 * short gets forbidden. Both are audited.
 */
export async function loadManageable(clientId: string, actor: Actor, action: string, need: AppRole = "admin"): Promise<AppRow> {
  const app = await loadApp(clientId);
  if (!app) throw notFound(clientId);
  await assertMayAct(app, actor, action, need);
  return app;
}

/** loadManageable's check, for a caller that already holds the app. */
export async function assertMayAct(app: AppRow, actor: Actor, action: string, need: AppRole): Promise<void> {
  if (mayAct(app, actor, need)) return;
  await recordAudit({ actor, action, targetType: "app", targetId: app.clientId, outcome: "denied" });
  if (teamRole(app, actor) === null) throw notFound(app.clientId);
  throw new AppError("forbidden", need === "owner" ? "Only the app's owner can do this." : "Viewers of an app cannot change it.");
}

/** Admin-only actions: checked here, so every caller gets the same rule; denials are audited. */
async function requireAdmin(actor: Actor, action: string, clientId: string): Promise<void> {
  if (isAdminActor(actor)) return;
  await recordAudit({ actor, action, targetType: "app", targetId: clientId, outcome: "denied" });
  throw new AppError("forbidden", "Only an admin can review applications.");
}

function refuseFirstParty(app: AppRow, what: string): void {
  if (app.firstParty) {
    // The portal's own client: suspending or deleting it would lock everyone out of the portal.
    throw new AppError("forbidden", `The platform's own application cannot be ${what}.`);
  }
}

/** Revokes everything issued to a client: oidc-provider grants, tokens, sessions' client entries. */
export async function revokeClientGrants(tx: Tx, clientId: string, alsoConsents: boolean): Promise<number> {
  const { count } = await tx.oidcModel.deleteMany({ where: { clientId } });
  if (alsoConsents) await tx.consent.deleteMany({ where: { clientId } });
  return count;
}

/**
 * Voids every access token of the app issued up to now (issue 12): the API and userinfo compare
 * the token's `iat` with this watermark. The database's clock (clock_timestamp, not the
 * transaction's start) as the last statement before the commit, so no token minted while the
 * transaction ran escapes it. Never cleared: reinstating an app does not revive old tokens.
 */
export async function voidAppTokens(tx: Tx, clientId: string): Promise<void> {
  await tx.$executeRaw`UPDATE "Application" SET "tokensRevokedAt" = clock_timestamp() AT TIME ZONE 'UTC'
                       WHERE "clientId" = ${clientId}`;
}

export async function createApp(input: CreateAppInput, owner: { id: number }, actor: Actor): Promise<AppView> {
  if (actor.kind === "user" && actor.id !== owner.id && !isAdminActor(actor)) {
    await recordAudit({ actor, action: "app.create", targetType: "user", targetId: String(owner.id), outcome: "denied" });
    throw new AppError("forbidden", "You can only register applications for yourself.");
  }
  const problems = {
    ...checkScopesForType(input.type, input.scopes),
    ...checkDeviceFlowForType(input.type, input.deviceFlow),
    ...checkRedirectsForType(input.type, input.redirectUris, input.postLogoutRedirectUris),
  };
  if (Object.keys(problems).length) {
    throw new AppError("invalid_request", Object.values(problems)[0]!, { fields: problems });
  }
  const upload = input.logo ? await checkLogo(input.logo) : null;
  return db.$transaction(async (tx) => {
    let row = await tx.application.create({
      data: {
        clientId: generateClientId(input.type),
        name: input.name,
        description: input.description,
        type: input.type,
        status: "pending",
        ownerId: owner.id,
        scopes: input.scopes,
        redirectUris: input.type === "login" ? input.redirectUris : [],
        postLogoutRedirectUris: input.type === "login" ? input.postLogoutRedirectUris : [],
        homepageUrl: input.homepageUrl ?? null,
        privacyPolicyUrl: input.privacyPolicyUrl ?? null,
        termsUrl: input.termsUrl ?? null,
        deviceFlow: input.type === "login" && input.deviceFlow === true,
      },
      include: appInclude,
    });
    if (upload) {
      await storeLogo(tx, row.id, upload);
      row = await tx.application.update({ where: { id: row.id }, data: { logo: upload.file }, include: appInclude });
    }
    await recordAudit(
      {
        actor,
        action: "app.create",
        targetType: "app",
        targetId: row.clientId,
        detail: { name: row.name, type: row.type, owner: row.owner.handle, scopes: row.scopes, deviceFlow: row.deviceFlow },
      },
      tx,
    );
    return toAppView(row);
  });
}

/** The apps a person owns or is a member of, newest first (the portal's "My apps"). */
export async function listAppsForOwner(ownerId: number): Promise<AppView[]> {
  const rows = await db.application.findMany({
    where: { OR: [{ ownerId }, { members: { some: { userId: ownerId } } }] },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    include: appInclude,
  });
  return rows.map(toAppView);
}

function encodeAppCursor(row: { createdAt: Date; id: number }): string {
  return Buffer.from(`${row.createdAt.getTime()}.${row.id}`).toString("base64url");
}

function decodeAppCursor(cursor: string): { createdAt: Date; id: number } {
  const match = /^(\d{1,15})\.(\d{1,10})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!match) throw new AppError("invalid_request", "Malformed cursor.");
  return { createdAt: new Date(Number(match[1])), id: Number(match[2]) };
}

/** The admin queue's filters (issue 14); every one is optional and they combine with AND. */
export interface AppFilters {
  status?: AppStatus;
  type?: AppType;
  /** Only apps sent back to review after a rejection (and not reviewed since). */
  resubmitted?: boolean;
  /** Only apps with a change waiting for review (issue 15). */
  changes?: boolean;
  /** Matches the name, client id, description (case-insensitive) or the owner's handle. */
  search?: string;
}

function appWhere(filters: AppFilters): Prisma.ApplicationWhereInput {
  const search = filters.search?.trim();
  const handle = search?.replace(/^@/, "").toLowerCase();
  return {
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.type ? { type: filters.type } : {}),
    ...(filters.resubmitted ? { resubmittedAt: { not: null } } : {}),
    ...(filters.changes ? { pendingChange: { not: Prisma.DbNull } } : {}),
    ...(search
      ? {
          OR: [
            { name: { contains: search, mode: "insensitive" as const } },
            { clientId: { contains: search } },
            { description: { contains: search, mode: "insensitive" as const } },
            { owner: { handle: { contains: handle } } },
          ],
        }
      : {}),
  };
}

/**
 * All apps for the admin area, oldest first (so the pending queue is served in arrival order), with
 * a keyset cursor on (createdAt, id), so a deep page costs what the first one does.
 */
export async function listApps(
  options: AppFilters & { cursor?: string; limit?: number } = {},
): Promise<AppPage> {
  const limit = Math.min(Math.max(Math.trunc(options.limit ?? 50), 1), 200);
  const after = options.cursor !== undefined ? decodeAppCursor(options.cursor) : undefined;
  const rows = await db.application.findMany({
    where: {
      AND: [
        appWhere(options),
        after
          ? {
              OR: [
                { createdAt: { gt: after.createdAt } },
                { createdAt: after.createdAt, id: { gt: after.id } },
              ],
            }
          : {},
      ],
    },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: limit + 1,
    include: appInclude,
  });
  const page = rows.slice(0, limit);
  return {
    apps: page.map(toAppView),
    nextCursor: rows.length > limit ? encodeAppCursor(page[page.length - 1]!) : null,
  };
}

/** How many apps match the filters, and how many of each status match the rest of them (the queue's counts). */
export async function countApps(
  filters: AppFilters,
): Promise<{ total: number; byStatus: Record<AppStatus, number>; resubmitted: number }> {
  const { status: _all, ...rest } = filters;
  const [groups, resubmitted] = await Promise.all([
    db.application.groupBy({ by: ["status"], where: appWhere({ ...rest, resubmitted: filters.resubmitted }), _count: { _all: true } }),
    db.application.count({ where: appWhere({ ...rest, status: filters.status, resubmitted: true }) }),
  ]);
  const byStatus: Record<AppStatus, number> = { pending: 0, approved: 0, rejected: 0, suspended: 0 };
  for (const group of groups) byStatus[group.status] = group._count._all;
  const total = filters.status ? byStatus[filters.status] : Object.values(byStatus).reduce((a, b) => a + b, 0);
  return { total, byStatus, resubmitted };
}

/** One app for its owner, an admin or the operator; anyone else gets not_found (audited). */
export async function getAppForViewer(clientId: string, actor: Actor): Promise<AppView> {
  return toAppView(await loadManageable(clientId, actor, "app.view", "viewer"));
}

/** An update as the services apply it: a logo upload is already checked and named by its file. */
type AppChanges = Omit<UpdateAppInput, "logo"> & { logo?: string | null };

/** Checks an update's logo upload (if any) and names it: the change then carries its file name. */
async function prepareChanges(input: UpdateAppInput): Promise<{ changes: AppChanges; upload: CheckedLogo | null }> {
  const { logo, ...rest } = input;
  if (logo === undefined) return { changes: rest, upload: null };
  if (logo === null) return { changes: { ...rest, logo: null }, upload: null };
  const upload = await checkLogo(logo);
  return { changes: { ...rest, logo: upload.file }, upload };
}

/** The fields an update changes, after the type-dependent redirect rules are checked against the stored app. */
function checkedChanges(app: AppRow, input: AppChanges): AppChanges {
  const redirectUris = input.redirectUris ?? app.redirectUris;
  const postLogoutRedirectUris = input.postLogoutRedirectUris ?? app.postLogoutRedirectUris;
  const problems = {
    ...checkScopesForType(app.type, input.scopes ?? []),
    ...checkDeviceFlowForType(app.type, input.deviceFlow),
    ...checkRedirectsForType(app.type, redirectUris, postLogoutRedirectUris),
  };
  if (Object.keys(problems).length) {
    throw new AppError("invalid_request", Object.values(problems)[0]!, { fields: problems });
  }
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as AppChanges;
}

function readPendingChange(value: Prisma.JsonValue | null): PendingChange | null {
  if (value === null) return null;
  const parsed = pendingChangeSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

const LIST_FIELDS = ["scopes", "redirectUris", "postLogoutRedirectUris"] as const;
type ChangeFields = Partial<Pick<PendingChange, ChangeField>>;

/**
 * Splits an edit of an approved (or suspended) app (issue 15): what narrows or keeps what the app
 * may do applies at once; what widens it or changes how it presents itself to people waits for
 * review. A list that both drops and adds entries applies the drops now and asks for the whole
 * new list. The pending change merges with one already waiting; a field edited back to its
 * approved value leaves the request.
 */
function splitChange(
  app: AppRow,
  changed: AppChanges,
): { now: AppChanges; pending: ChangeFields } {
  const now: AppChanges = {};
  const pending: ChangeFields = {};
  const waiting = readPendingChange(app.pendingChange);
  for (const field of CHANGE_FIELDS) {
    if (waiting?.[field] !== undefined && changed[field] === undefined) Object.assign(pending, { [field]: waiting[field] });
  }
  // How the app presents itself (name, description, links, logo): any change waits, even a removal.
  for (const field of ["name", "description", "homepageUrl", "privacyPolicyUrl", "termsUrl", "logo"] as const) {
    const value = changed[field];
    if (value === undefined) continue;
    if (value !== app[field]) Object.assign(pending, { [field]: value });
    else delete pending[field];
  }
  for (const field of LIST_FIELDS) {
    const value = changed[field] as string[] | undefined;
    if (value === undefined) continue;
    const current: string[] = app[field];
    const kept = current.filter((entry) => value.includes(entry));
    if (kept.length !== current.length) (now as Record<string, string[]>)[field] = kept;
    if (value.some((entry) => !current.includes(entry))) Object.assign(pending, { [field]: value });
    else delete pending[field];
  }
  // Device sign-in (issue 17): turning it on widens what the app may do; turning it off applies at
  // once (and withdraws a waiting request to turn it on).
  if (changed.deviceFlow !== undefined) {
    if (changed.deviceFlow && !app.deviceFlow) pending.deviceFlow = true;
    else {
      delete pending.deviceFlow;
      if (!changed.deviceFlow && app.deviceFlow) now.deviceFlow = false;
    }
  }
  return { now, pending };
}

/**
 * Edits an app. A rejected app stays rejected (the admin's decision stands until the owner asks
 * for another look with resubmitApp). A pending or rejected app (never approved) changes at once;
 * an approved or suspended one keeps running on its approved configuration while a widening
 * change waits for review (issue 15): narrowing parts apply at once.
 */
export async function updateApp(clientId: string, input: UpdateAppInput, actor: Actor): Promise<AppView> {
  const app = await loadManageable(clientId, actor, "app.update");
  refuseFirstParty(app, "edited");
  const prepared = await prepareChanges(input);
  const changed = checkedChanges(app, prepared.changes);
  const reviewed = app.status === "approved" || app.status === "suspended";
  const { now, pending } = reviewed ? splitChange(app, changed) : { now: changed, pending: {} };
  const hasPending = Object.keys(pending).length > 0;
  const requested: PendingChange | null = hasPending
    ? {
        ...pending,
        requestedAt: new Date(),
        requestedBy: actor.kind === "user" ? actor.handle : `system:${actor.name}`,
      }
    : null;
  return transactionWithChanges(async (tx, announce) => {
    if (prepared.upload) await storeLogo(tx, app.id, prepared.upload);
    const row = await tx.application.update({
      where: { clientId },
      data: {
        ...now,
        ...(reviewed
          ? {
              pendingChange: requested ? { ...requested, requestedAt: requested.requestedAt.toISOString() } : Prisma.DbNull,
              ...(hasPending ? { pendingChangeRejection: null } : {}),
            }
          : {}),
      },
      include: appInclude,
    });
    // The approved logo and the one waiting for review stay; a replaced one goes.
    if ("logo" in changed) await pruneLogos(tx, app.id, [row.logo, readPendingChange(row.pendingChange)?.logo]);
    await recordAudit(
      {
        actor,
        action: "app.update",
        targetType: "app",
        targetId: clientId,
        detail: { fields: Object.keys(now), ...(hasPending ? { pending: Object.keys(pending) } : {}) },
      },
      tx,
    );
    if (hasPending) {
      await recordAudit(
        { actor, action: "app.change.request", targetType: "app", targetId: clientId, detail: { fields: Object.keys(pending) } },
        tx,
      );
    }
    await announce({ kind: "app", clientId });
    return toAppView(row);
  });
}

/**
 * An admin approves the change waiting on an app: its requested values become the app's (checked
 * again against the type's rules), new tokens and consents include added scopes, and the owner is
 * told. Narrowings made since the request stay narrowed only if the request did not ask for them.
 */
export async function approvePendingChange(clientId: string, actor: Actor): Promise<AppView> {
  await requireAdmin(actor, "app.change.approve", clientId);
  const app = await loadApp(clientId);
  if (!app) throw notFound(clientId);
  const change = readPendingChange(app.pendingChange);
  if (!change) throw new AppError("conflict", `${clientId} has no change waiting for review.`);
  const { requestedAt: _at, requestedBy: _by, ...fields } = change;
  const applied = checkedChanges(app, fields as AppChanges);
  return transactionWithChanges(async (tx, announce) => {
    const { count } = await tx.application.updateMany({
      where: { clientId, updatedAt: app.updatedAt },
      data: { ...applied, pendingChange: Prisma.DbNull, pendingChangeRejection: null },
    });
    if (count === 0) throw new AppError("conflict", `${clientId} changed meanwhile; reload and review it again.`);
    if ("logo" in applied) await pruneLogos(tx, app.id, [applied.logo]);
    await recordAudit(
      { actor, action: "app.change.approve", targetType: "app", targetId: clientId, detail: { fields: Object.keys(applied) } },
      tx,
    );
    await notifyOwner(tx, app.ownerId, `The changes to your app "${app.name}" were approved and apply now.`);
    await announce({ kind: "app", clientId });
    return toAppView((await loadApp(clientId, tx))!);
  });
}

/** An admin refuses the change waiting on an app, with a reason the team sees; the approved configuration stays. */
export async function rejectPendingChange(clientId: string, reason: string, actor: Actor): Promise<AppView> {
  await requireAdmin(actor, "app.change.reject", clientId);
  const app = await loadApp(clientId);
  if (!app) throw notFound(clientId);
  if (!readPendingChange(app.pendingChange)) throw new AppError("conflict", `${clientId} has no change waiting for review.`);
  return transactionWithChanges(async (tx, announce) => {
    const { count } = await tx.application.updateMany({
      where: { clientId, updatedAt: app.updatedAt },
      data: { pendingChange: Prisma.DbNull, pendingChangeRejection: reason },
    });
    if (count === 0) throw new AppError("conflict", `${clientId} changed meanwhile; reload and review it again.`);
    await pruneLogos(tx, app.id, [app.logo]);
    await recordAudit({ actor, action: "app.change.reject", targetType: "app", targetId: clientId, detail: { reason } }, tx);
    await notifyOwner(tx, app.ownerId, `The changes to your app "${app.name}" were not approved: ${reason}.`);
    await announce({ kind: "app", clientId });
    return toAppView((await loadApp(clientId, tx))!);
  });
}

/**
 * "Save and resubmit" (issue 14): the owner's edit of a rejected app, saved and sent back to the
 * review queue in one step. The app becomes pending, marked resubmitted, and keeps the rejection
 * reason it answers so the admin can check the change against it. Only the app's team (owner or
 * team admins) or the operator asks for another review; a platform admin who wants the app
 * approves it instead.
 */
export async function resubmitApp(clientId: string, input: UpdateAppInput, actor: Actor): Promise<AppView> {
  const app = await loadManageable(clientId, actor, "app.resubmit");
  const role = teamRole(app, actor);
  if (role !== "owner" && role !== "admin" && actor.kind !== "system") {
    await recordAudit({ actor, action: "app.resubmit", targetType: "app", targetId: clientId, outcome: "denied" });
    throw new AppError("forbidden", "Only the app's owner or team admins can resubmit it for review.");
  }
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

/** Deletes the app and revokes everything issued to it (grants, tokens, remembered consents). */
export async function deleteApp(clientId: string, actor: Actor): Promise<void> {
  const app = await loadManageable(clientId, actor, "app.delete", "owner");
  refuseFirstParty(app, "deleted");
  await transactionWithChanges(async (tx, announce) => {
    const revoked = await revokeClientGrants(tx, clientId, true);
    await tx.application.delete({ where: { clientId } });
    await recordAudit(
      { actor, action: "app.delete", targetType: "app", targetId: clientId, detail: { name: app.name, revoked } },
      tx,
    );
    await announce({ kind: "app", clientId });
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

async function transition(clientId: string, kind: Transition, actor: Actor, reason?: string): Promise<AppView> {
  const rule = TRANSITIONS[kind];
  await requireAdmin(actor, rule.audit, clientId);
  const app = await loadApp(clientId);
  if (!app) throw notFound(clientId);
  if (rule.to !== "approved") refuseFirstParty(app, `${kind === "reject" ? "rejected" : "suspended"}`);
  return transactionWithChanges(async (tx, announce) => {
    // Conditional on the current status, so two admins acting at once cannot both succeed.
    const { count } = await tx.application.updateMany({
      where: { clientId, status: { in: [...rule.from] } },
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
    if (count === 0) {
      const current = (await loadApp(clientId, tx))?.status ?? app.status;
      throw new AppError("conflict", `Cannot ${kind} ${clientId}: ${CONFLICT_HINT[kind][current] ?? `it is ${current}`}.`);
    }
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
          ...(reason ? { reason } : {}),
          ...(revoked ? { revoked } : {}),
          // What an undo of this approval puts back (undoApproval).
          ...(kind === "approve" ? approvalRestore(app) : {}),
        },
      },
      tx,
    );
    if (!app.firstParty) await notifyOwner(tx, app.ownerId, decisionMessage(kind, app, reason));
    const view = toAppView((await loadApp(clientId, tx))!);
    if (rule.to === "suspended") await voidAppTokens(tx, clientId);
    await announce({ kind: "app", clientId });
    return view;
  });
}

/**
 * What the owner reads in their platform notifications (issue 15: "owners hear about decisions"),
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

export async function notifyOwner(tx: Tx, ownerId: number, message: string): Promise<void> {
  await tx.notification.create({ data: { userId: ownerId, type: "app_review", message } });
}

export function approveApp(clientId: string, actor: Actor): Promise<AppView> {
  return transition(clientId, "approve", actor);
}

/** At most this many apps in one bulk approval (one page of the queue). */
export const MAX_BULK_APPROVE = 100;

/**
 * Approves several apps, each on its own (its own transaction, audit entry and announcement), so
 * one that changed meanwhile does not block the others: the result says which failed and why.
 */
export async function approveApps(
  clientIds: readonly string[],
  actor: Actor,
): Promise<{ approved: AppView[]; failed: { clientId: string; message: string }[] }> {
  if (clientIds.length > MAX_BULK_APPROVE) {
    throw new AppError("invalid_request", `Approve at most ${MAX_BULK_APPROVE} applications at once.`);
  }
  const approved: AppView[] = [];
  const failed: { clientId: string; message: string }[] = [];
  for (const clientId of new Set(clientIds)) {
    try {
      approved.push(await approveApp(clientId, actor));
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
  await requireAdmin(actor, "app.approve.undo", clientId);
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
    await notifyOwner(tx, app.ownerId, `The approval of your app "${app.name}" was withdrawn: it is back to ${from}.`);
    const view = toAppView((await loadApp(clientId, tx))!);
    await voidAppTokens(tx, clientId);
    await announce({ kind: "app", clientId });
    return view;
  });
}

export function rejectApp(clientId: string, reason: string, actor: Actor): Promise<AppView> {
  return transition(clientId, "reject", actor, reason);
}

export function suspendApp(clientId: string, reason: string, actor: Actor): Promise<AppView> {
  return transition(clientId, "suspend", actor, reason);
}

export function reinstateApp(clientId: string, actor: Actor): Promise<AppView> {
  return transition(clientId, "reinstate", actor);
}

/** What the sign-in service needs to know about a client (never its secrets). Null if unknown. */
export async function findClientForSignIn(clientId: string) {
  return db.application.findUnique({
    where: { clientId },
    select: {
      clientId: true,
      name: true,
      type: true,
      status: true,
      redirectUris: true,
      postLogoutRedirectUris: true,
      scopes: true,
      firstParty: true,
      deviceFlow: true,
      ownerId: true,
    },
  });
}

/**
 * Who is asking, for the consent page (issue 15): the approved name, description, links and logo
 * and the owner. A read of its own, so the sign-in service's hot client cache (lib/oidc/clients.ts)
 * stays small. Null if the app is unknown.
 */
export async function findAppIdentity(clientId: string) {
  return db.application.findUnique({
    where: { clientId },
    select: {
      clientId: true,
      name: true,
      description: true,
      homepageUrl: true,
      privacyPolicyUrl: true,
      termsUrl: true,
      logo: true,
      owner: { select: { handle: true, displayName: true } },
    },
  });
}

/**
 * The portal's own login client (next-auth signs developers in through the platform's sign-in
 * service). Idempotent; follows APP_URL changes by updating its redirect URIs. Safe when two
 * processes start at once (a lost insert race is retried as an update).
 */
export async function ensurePortalClient(options: {
  redirectUri: string;
  postLogoutRedirectUri: string;
}): Promise<AppView> {
  const owner = await ensureSystemUser();
  const wanted = {
    name: "Developer portal",
    description: "The platform's own developer portal.",
    type: "login" as const,
    status: "approved" as const,
    statusReason: null,
    firstParty: true,
    ownerId: owner.id,
    redirectUris: [options.redirectUri],
    postLogoutRedirectUris: [options.postLogoutRedirectUri],
  };
  for (let attempt = 0; ; attempt++) {
    const existing = await loadApp(PORTAL_CLIENT_ID);
    if (existing) {
      const same =
        existing.status === "approved" &&
        existing.firstParty &&
        existing.redirectUris.join("\n") === wanted.redirectUris.join("\n") &&
        existing.postLogoutRedirectUris.join("\n") === wanted.postLogoutRedirectUris.join("\n");
      if (same) return toAppView(existing);
      const row = await db.application.update({ where: { clientId: PORTAL_CLIENT_ID }, data: wanted, include: appInclude });
      await recordAudit({
        actor: { kind: "system", name: "startup" },
        action: "app.update",
        targetType: "app",
        targetId: PORTAL_CLIENT_ID,
        detail: { redirectUris: wanted.redirectUris, postLogoutRedirectUris: wanted.postLogoutRedirectUris },
      });
      return toAppView(row);
    }
    try {
      const row = await db.application.create({
        data: { ...wanted, clientId: PORTAL_CLIENT_ID, scopes: [], reviewedAt: new Date() },
        include: appInclude,
      });
      await recordAudit({
        actor: { kind: "system", name: "startup" },
        action: "app.create",
        targetType: "app",
        targetId: PORTAL_CLIENT_ID,
        detail: { firstParty: true },
      });
      return toAppView(row);
    } catch (error) {
      const raced = error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
      if (!raced || attempt > 0) throw error;
    }
  }
}
