import { AppError } from "../errors";
import { db, type Tx } from "../database/client";
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

/** Newest first, keyset on the id (a cursor is the last id seen), so deep pages cost the same. */
export async function listAuditLog(
  options: { cursor?: string; limit?: number; targetType?: string; targetId?: string } = {},
): Promise<{ entries: AuditEntry[]; nextCursor: string | null }> {
  const limit = Math.min(Math.max(Math.trunc(options.limit ?? 50), 1), 200);
  let before: bigint | undefined;
  if (options.cursor !== undefined) {
    if (!/^[0-9]{1,19}$/.test(options.cursor)) throw new AppError("invalid_request", "Malformed cursor.");
    before = BigInt(options.cursor);
  }
  const rows = await db.auditLog.findMany({
    where: {
      ...(before !== undefined ? { id: { lt: before } } : {}),
      ...(options.targetType ? { targetType: options.targetType } : {}),
      ...(options.targetId ? { targetId: options.targetId } : {}),
    },
    orderBy: { id: "desc" },
    take: limit + 1,
  });
  const page = rows.slice(0, limit);
  return {
    entries: page.map((r) => ({
      id: r.id.toString(),
      actorId: r.actorId,
      actorHandle: r.actorHandle,
      action: r.action,
      targetType: r.targetType,
      targetId: r.targetId,
      outcome: r.outcome === "denied" ? "denied" : "ok",
      detail: (r.detail ?? {}) as Record<string, unknown>,
      ip: r.ip,
      createdAt: r.createdAt,
    })),
    nextCursor: rows.length > limit ? page[page.length - 1]!.id.toString() : null,
  };
}
