import { AppError } from "../errors";
import { db, Prisma, type Tx } from "../database/client";
import { actorLabel, type Actor } from "./actor";

export type { Actor } from "./actor";
export { isAdminActor, CLI_ACTOR, STARTUP_ACTOR } from "./actor";

/**
 * The audit log of every admin and security-relevant action (PRODUCT: admin area). `detail` must
 * never hold a secret, password or token: it is shown to admins as is.
 */
export interface AuditEntryInput {
  actor: Actor;
  /** Dotted verb, e.g. "app.approve", "user.disable", "app.secret.reveal". */
  action: string;
  targetType: "app" | "user" | "setting";
  targetId: string;
  outcome?: "ok" | "denied";
  detail?: Record<string, unknown>;
}

export interface AuditEntry {
  id: string;
  actorId: number | null;
  actorHandle: string | null;
  action: string;
  targetType: string;
  targetId: string;
  outcome: "ok" | "denied";
  detail: Record<string, unknown>;
  ip: string | null;
  createdAt: Date;
}

export async function recordAudit(entry: AuditEntryInput, tx?: Tx): Promise<void> {
  const client = tx ?? db;
  await client.auditLog.create({
    data: {
      actorId: entry.actor.kind === "user" ? entry.actor.id : null,
      actorHandle: actorLabel(entry.actor),
      action: entry.action,
      targetType: entry.targetType,
      targetId: entry.targetId,
      outcome: entry.outcome ?? "ok",
      detail: (entry.detail ?? {}) as object,
      ip: entry.actor.kind === "user" ? (entry.actor.ip ?? null) : null,
    },
  });
}

/** The latest entry for a target among `actions` (outcome ok), read in the caller's transaction. */
export async function findLatestAudit(
  where: { targetType: string; targetId: string; actions: readonly string[] },
  tx?: Tx,
): Promise<Pick<AuditEntry, "action" | "detail" | "createdAt"> | null> {
  const row = await (tx ?? db).auditLog.findFirst({
    where: { targetType: where.targetType, targetId: where.targetId, action: { in: [...where.actions] }, outcome: "ok" },
    orderBy: { id: "desc" },
    select: { action: true, detail: true, createdAt: true },
  });
  return row ? { action: row.action, detail: (row.detail ?? {}) as Record<string, unknown>, createdAt: row.createdAt } : null;
}

/** The audit log's filters; they combine with AND. */
export interface AuditFilters {
  /** The actor's handle (or "system:cli"), exact. */
  actor?: string;
  /** A dotted action, exact ("app.approve"), or every action under a prefix ("app.secret.*"). */
  action?: string;
  /** A client id or a handle, exact. */
  target?: string;
  /** Entries at or after this instant. */
  from?: Date;
  /** Entries before this instant. */
  to?: Date;
}

/** An entry with the names behind its ids: the app's name, the user's handle. */
export interface AuditEntryWithNames extends AuditEntry {
  /** The app's current name (app targets), or null when the app is gone. */
  targetName: string | null;
}

function encodeAuditCursor(row: { createdAt: Date; id: bigint }): string {
  return Buffer.from(`${row.createdAt.getTime()}.${row.id}`).toString("base64url");
}

function decodeAuditCursor(cursor: string): { createdAt: Date; id: bigint } {
  const match = /^(\d{1,15})\.(\d{1,19})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!match) throw new AppError("invalid_request", "Malformed cursor.");
  return { createdAt: new Date(Number(match[1])), id: BigInt(match[2]!) };
}

function auditWhere(filters: AuditFilters): Prisma.AuditLogWhereInput {
  const action = filters.action?.trim();
  const target = filters.target?.trim();
  return {
    ...(filters.actor ? { actorHandle: filters.actor.trim().replace(/^@/, "").toLowerCase() } : {}),
    ...(action ? (action.endsWith(".*") ? { action: { startsWith: action.slice(0, -1) } } : { action }) : {}),
    // A handle is stored lower-case without "@"; a client id is case-sensitive.
    ...(target
      ? { targetId: { in: [...new Set([target.replace(/^@/, ""), target.replace(/^@/, "").toLowerCase()])] } }
      : {}),
    ...(filters.from || filters.to ? { createdAt: { ...(filters.from ? { gte: filters.from } : {}), ...(filters.to ? { lt: filters.to } : {}) } } : {}),
  };
}

/**
 * Newest first, keyset on (createdAt, id) like its index, so deep pages cost the same. Names for
 * the ids are looked up in one query per kind for the whole page (no query per row).
 */
export async function listAuditLog(
  options: AuditFilters & { cursor?: string; limit?: number; targetType?: string; targetId?: string } = {},
): Promise<{ entries: AuditEntryWithNames[]; nextCursor: string | null }> {
  const limit = Math.min(Math.max(Math.trunc(options.limit ?? 50), 1), 200);
  const before = options.cursor !== undefined ? decodeAuditCursor(options.cursor) : undefined;
  const rows = await db.auditLog.findMany({
    where: {
      AND: [
        auditWhere(options),
        options.targetType ? { targetType: options.targetType } : {},
        options.targetId ? { targetId: options.targetId } : {},
        before
          ? { OR: [{ createdAt: { lt: before.createdAt } }, { createdAt: before.createdAt, id: { lt: before.id } }] }
          : {},
      ],
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit + 1,
  });
  const page = rows.slice(0, limit);
  const appIds = [...new Set(page.filter((r) => r.targetType === "app").map((r) => r.targetId))];
  // A few old entries name a user by numeric id (a denied app.create); show the handle instead.
  const userIds = [
    ...new Set(page.filter((r) => r.targetType === "user" && /^\d{1,9}$/.test(r.targetId)).map((r) => Number(r.targetId))),
  ];
  const [apps, users] = await Promise.all([
    appIds.length ? db.application.findMany({ where: { clientId: { in: appIds } }, select: { clientId: true, name: true } }) : [],
    userIds.length ? db.user.findMany({ where: { id: { in: userIds } }, select: { id: true, handle: true } }) : [],
  ]);
  const appNames = new Map(apps.map((a) => [a.clientId, a.name]));
  const handles = new Map(users.map((u) => [String(u.id), u.handle]));
  return {
    entries: page.map((r) => ({
      id: r.id.toString(),
      actorId: r.actorId,
      actorHandle: r.actorHandle,
      action: r.action,
      targetType: r.targetType,
      targetId: r.targetType === "user" ? (handles.get(r.targetId) ?? r.targetId) : r.targetId,
      targetName: r.targetType === "app" ? (appNames.get(r.targetId) ?? (typeof (r.detail as { name?: unknown })?.name === "string" ? (r.detail as { name: string }).name : null)) : null,
      outcome: r.outcome === "denied" ? "denied" : "ok",
      detail: (r.detail ?? {}) as Record<string, unknown>,
      ip: r.ip,
      createdAt: r.createdAt,
    })),
    nextCursor: rows.length > limit ? encodeAuditCursor(page[page.length - 1]!) : null,
  };
}

/** The actions the log holds, for the filter's choices (GROUP BY in the database, not rows in memory). */
export async function listAuditActions(): Promise<string[]> {
  const rows = await db.auditLog.groupBy({ by: ["action"], orderBy: { action: "asc" } });
  return rows.map((r) => r.action);
}
