import { randomBytes } from "node:crypto";
import { transactionWithChanges } from "../database/changes";
import { db, Prisma, type Tx } from "../database/client";
import { AppError } from "../errors";
import {
  clientIdSchema,
  checkDeviceFlowForType,
  checkParForType,
  checkRedirectsForType,
  checkScopesForType,
  CHANGE_FIELDS,
  isDeveloperApp,
  pendingChangeSchema,
  type AppPage,
  type AppView,
  type PendingChange,
  type CreateAppInput,
  type UpdateAppInput,
} from "../schemas/apps";
import { effectiveQuota } from "../schemas/rate-limits";
import { capabilities, appInclude, loadApp, loadFor, lockApp, type AppRow } from "./app-access";
import type { Actor } from "./actor";
import { checkLogo, pruneLogos, storeLogo, type CheckedLogo } from "./app-logos";
import { recordAudit } from "./audit";
import { createSandboxFor, deleteSandboxWorldOf, type SandboxCredentials } from "./sandboxes";
import { revokeClientGrants } from "./token-revocation";
import { storedAppKeys } from "./key-sets";
import { ensureSystemUser } from "./users";

/**
 * Applications of the developer portal: registration, editing and deletion by their teams, the
 * views and lists of the portal and the admin area, and the portal's own first-party client. Who
 * may do what: lib/services/app-access.ts; the review workflow: app-review.ts; client secrets:
 * app-secrets.ts; voiding tokens: token-revocation.ts. Every state change is audited and announced
 * on the change channel in its transaction, so every process's caches follow at once.
 */

/** The portal's own login client (next-auth), created at start-up. */
export const PORTAL_CLIENT_ID = "developer-portal";

export type AppStatus = AppView["status"];
type AppType = AppView["type"];

/** The public part of an app's private_key_jwt keys (lib/services/app-keys.ts), for its page and the CLI. */
function clientKeysView(row: Pick<AppRow, "jwks" | "jwksUri" | "jwksUpdatedAt">): AppView["clientKeys"] {
  const keys = storedAppKeys(row.jwks);
  if (!keys) return null;
  const text = (value: unknown) => (typeof value === "string" ? value : null);
  return { jwksUri: row.jwksUri, keys: keys.map((k) => ({ kid: text(k.kid), kty: String(k.kty), alg: text(k.alg) })), updatedAt: row.jwksUpdatedAt };
}

export function toAppView(row: AppRow): AppView {
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
    requirePar: row.requirePar,
    requireDpop: row.requireDpop,
    firstParty: row.firstParty,
    owner: row.owner,
    members: row.members.map((m) => ({ ...m.user, role: m.role, addedAt: m.addedAt })),
    pendingChange: readPendingChange(row.pendingChange),
    revision: row.revision,
    transferTo: row.transferTo,
    transferRequestedAt: row.transferRequestedAt,
    pendingChangeRejection: row.pendingChangeRejection,
    requestsPerMinute: effectiveQuota(row.requestsPerMinute),
    customQuota: row.requestsPerMinute !== null,
    clientKeys: clientKeysView(row),
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


export function refuseFirstParty(app: AppRow, what: string): void {
  if (app.firstParty) {
    // The portal's own client: suspending or deleting it would lock everyone out of the portal.
    throw new AppError("forbidden", `The platform's own application cannot be ${what}.`);
  }
}


/**
 * Registers an app (pending review) with its sandbox: `sandbox` carries the sandbox's
 * client id and, for an API client, its secret, which exists only in this answer (shown once).
 */
export async function createApp(
  input: CreateAppInput,
  owner: { id: number },
  actor: Actor,
): Promise<AppView & { sandbox: SandboxCredentials }> {
  // Registering for someone else is managing their (future) app: only platform admins and the operator.
  if (actor.kind === "user" && actor.id !== owner.id && !capabilities({ owner, members: [] }, actor).manage) {
    await recordAudit({ actor, action: "app.create", targetType: "user", targetId: String(owner.id), outcome: "denied" });
    throw new AppError("forbidden", "You can only register applications for yourself.");
  }
  const problems = {
    ...checkScopesForType(input.type, input.scopes),
    ...checkDeviceFlowForType(input.type, input.deviceFlow),
    ...checkParForType(input.type, input.requirePar),
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
        requirePar: input.type === "login" && input.requirePar === true,
        requireDpop: input.requireDpop === true,
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
        detail: { name: row.name, type: row.type, owner: row.owner.handle, scopes: row.scopes, deviceFlow: row.deviceFlow, requirePar: row.requirePar, requireDpop: row.requireDpop },
      },
      tx,
    );
    // Created from a CreateAppInput: always a developer's app (agents' clients come from lib/oidc/agents.ts).
    if (!isDeveloperApp(row)) throw new Error("createApp made an agent client");
    const sandbox = await createSandboxFor(tx, row);
    return { ...toAppView(row), sandbox };
  });
}

/** The apps offered to this person by a transfer waiting for their answer, oldest offer first. */
export async function listAppsOfferedTo(userId: number): Promise<AppView[]> {
  const rows = await db.application.findMany({
    where: { transferToId: userId },
    orderBy: [{ transferRequestedAt: "asc" }, { id: "asc" }],
    include: appInclude,
  });
  return rows.map(toAppView);
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

/** The admin queue's filters; every one is optional and they combine with AND. */
export interface AppFilters {
  status?: AppStatus;
  type?: AppType;
  /** Only apps sent back to review after a rejection (and not reviewed since). */
  resubmitted?: boolean;
  /** Only apps with a change waiting for review. */
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
  return toAppView(await loadFor(clientId, actor, "view", "app.view"));
}


/** An update as the services apply it: a logo upload is already checked and named by its file. */
export type AppChanges = Omit<UpdateAppInput, "logo"> & { logo?: string | null };

/** Checks an update's logo upload (if any) and names it: the change then carries its file name. */
export async function prepareChanges(input: UpdateAppInput): Promise<{ changes: AppChanges; upload: CheckedLogo | null }> {
  const { logo, ...rest } = input;
  if (logo === undefined) return { changes: rest, upload: null };
  if (logo === null) return { changes: { ...rest, logo: null }, upload: null };
  const upload = await checkLogo(logo);
  return { changes: { ...rest, logo: upload.file }, upload };
}

/** The fields an update changes, after the type-dependent redirect rules are checked against the stored app. */
export function checkedChanges(app: AppRow, input: AppChanges): AppChanges {
  if (!isDeveloperApp(app)) {
    throw new AppError("invalid_request", "An agent's client is described by its own metadata document: it cannot be edited here.");
  }
  const redirectUris = input.redirectUris ?? app.redirectUris;
  const postLogoutRedirectUris = input.postLogoutRedirectUris ?? app.postLogoutRedirectUris;
  const problems = {
    ...checkScopesForType(app.type, input.scopes ?? []),
    ...checkDeviceFlowForType(app.type, input.deviceFlow),
    ...checkParForType(app.type, input.requirePar),
    ...checkRedirectsForType(app.type, redirectUris, postLogoutRedirectUris),
  };
  if (Object.keys(problems).length) {
    throw new AppError("invalid_request", Object.values(problems)[0]!, { fields: problems });
  }
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as AppChanges;
}

export function readPendingChange(value: Prisma.JsonValue | null): PendingChange | null {
  if (value === null) return null;
  const parsed = pendingChangeSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

const LIST_FIELDS = ["scopes", "redirectUris", "postLogoutRedirectUris"] as const;
type ChangeFields = Partial<Omit<PendingChange, "requestedAt" | "requestedBy">>;

/**
 * Splits an edit of an approved (or suspended) app: what narrows or keeps what the app
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
  // An accepted transfer waiting for review stays waiting whatever the team edits.
  if (waiting?.owner) pending.owner = waiting.owner;
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
  // Device sign-in: turning it on widens what the app may do; turning it off applies at
  // once (and withdraws a waiting request to turn it on).
  if (changed.deviceFlow !== undefined) {
    if (changed.deviceFlow && !app.deviceFlow) pending.deviceFlow = true;
    else {
      delete pending.deviceFlow;
      if (!changed.deviceFlow && app.deviceFlow) now.deviceFlow = false;
    }
  }
  // Requiring pushed authorization requests is how the app protects its own sign-ins: its choice,
  // applied at once either way.
  if (changed.requirePar !== undefined && changed.requirePar !== app.requirePar) now.requirePar = changed.requirePar;
  // Requiring DPoP-bound tokens likewise protects the app's own tokens: applied at once either way.
  if (changed.requireDpop !== undefined && changed.requireDpop !== app.requireDpop) now.requireDpop = changed.requireDpop;
  return { now, pending };
}

/**
 * A login app must keep an applied redirect URI: narrowing applies at once while
 * new URIs wait for review, so replacing every approved URI would leave the app with nowhere to send
 * people back to until an admin acts. Refused with the field named.
 */
function refuseUnreachable(app: AppRow, now: AppChanges): void {
  if (app.type !== "login" || now.redirectUris === undefined || now.redirectUris.length > 0) return;
  const message =
    "Keep at least one approved redirect URI: new ones wait for review, and until then the app would have none to sign people in with. Remove the old ones after the new ones are approved.";
  throw new AppError("invalid_request", message, { fields: { redirectUris: message } });
}

/**
 * Edits an app. A rejected app stays rejected (the admin's decision stands until the owner asks
 * for another look with resubmitApp). A pending or rejected app (never approved) changes at once;
 * an approved or suspended one keeps running on its approved configuration while a widening
 * change waits for review: narrowing parts apply at once.
 */
export async function updateApp(clientId: string, input: UpdateAppInput, actor: Actor): Promise<AppView> {
  refuseFirstParty(await loadFor(clientId, actor, "manage", "app.update"), "edited");
  const prepared = await prepareChanges(input);
  return transactionWithChanges(async (tx, announce) => {
    // The status decision ("never approved: apply at once" or "approved: widening waits for
    // review") is taken on the row as locked here, not as loaded before: an edit that started
    // while the app was pending cannot land on an app approved in between.
    const app = await lockApp(tx, clientId);
    const changed = checkedChanges(app, prepared.changes);
    const reviewed = app.status === "approved" || app.status === "suspended";
    const { now, pending } = reviewed ? splitChange(app, changed) : { now: changed, pending: {} };
    refuseUnreachable(app, now);
    const hasPending = Object.keys(pending).length > 0;
    const requested: PendingChange | null = hasPending
      ? {
          ...pending,
          requestedAt: new Date(),
          requestedBy: actor.kind === "user" ? actor.handle : `system:${actor.name}`,
        }
      : null;
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


/** Deletes the app and revokes everything issued to it (grants, tokens, remembered consents). */
export async function deleteApp(clientId: string, actor: Actor): Promise<void> {
  const app = await loadFor(clientId, actor, "delete", "app.delete");
  refuseFirstParty(app, "deleted");
  await transactionWithChanges(async (tx, announce) => {
    const revoked = await revokeClientGrants(tx, clientId, true);
    // The sandbox's synthetic people go with the app (its Sandbox row cascades).
    await deleteSandboxWorldOf(tx, app.id);
    await tx.application.delete({ where: { clientId } });
    await recordAudit(
      { actor, action: "app.delete", targetType: "app", targetId: clientId, detail: { name: app.name, revoked } },
      tx,
    );
    await announce({ kind: "app", clientId });
  });
}


/**
 * A notice to one person about an app (type `app_review`: their platform notifications, and the
 * portal's bell, lib/services/portal-notifications.ts). `clientId`: the app it links to, when that
 * person can open it.
 */
export async function notifyOwner(tx: Tx, ownerId: number, message: string, clientId: string | null = null): Promise<void> {
  await tx.notification.create({ data: { userId: ownerId, type: "app_review", message, clientId } });
}

/**
 * A review decision reaches the app's whole team: the owner and every team admin and
 * viewer, each with a link to the app.
 */
export async function notifyTeam(tx: Tx, app: { id: number; ownerId: number; clientId: string }, message: string): Promise<void> {
  const members = await tx.appMember.findMany({ where: { applicationId: app.id }, select: { userId: true } });
  const people = [...new Set([app.ownerId, ...members.map((m) => m.userId)])];
  await tx.notification.createMany({ data: people.map((userId) => ({ userId, type: "app_review", message, clientId: app.clientId })) });
}


/**
 * Whether a live app has this client ID, whatever its review status (a failed token
 * request for a pending or rejected app is logged for it; an unknown ID for nobody).
 */
export async function isAppClientId(clientId: string): Promise<boolean> {
  if (!clientIdSchema.safeParse(clientId).success) return false;
  return (await db.application.findUnique({ where: { clientId }, select: { id: true } })) !== null;
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
      requirePar: true,
      requireDpop: true,
      jwks: true,
      jwksUri: true,
      jwksUpdatedAt: true,
      ownerId: true,
    },
  });
}

/**
 * Who is asking, for the consent page: the approved name, description, links and logo
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
