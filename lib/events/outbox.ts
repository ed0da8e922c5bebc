import type { Tx } from "../database/client";
import { newPublicId } from "../crypto/ids";
import { insertEventSql } from "../queries/events";
import type { EventType } from "../schemas/events";
import { isSandboxClientId, LIVE_WORLD_ID } from "../schemas/sandboxes";

// The world: the one given ($5), else the sandbox of the client ($6, the client id again), else the live world ($7).
const RECORD_EVENT_SQL = insertEventSql({
  id: "$1",
  type: "$2",
  clientId: "$3",
  userId: "$4",
  worldId: `coalesce($5::int, (SELECT s.id FROM "Sandbox" s WHERE s."clientId" = $6), $7)`,
  data: "$8::jsonb",
});

/**
 * Writes an event inside the transaction of what it reports ("written with the change"):
 * it commits with the change or not at all. The Event table's trigger announces it (NOTIFY, sent
 * only if it commits) to every process's event streams and webhook delivery loop, which read it
 * from the table (lib/events/stream.ts, lib/events/worker.ts).
 * The hot paths write theirs in their own statement (chat posts: lib/queries/chat.ts; notifications:
 * the Notification trigger; consents: lib/services/consents.ts), all through insertEventSql.
 */
export async function recordEvent(
  tx: Tx,
  event: { type: EventType; clientId?: string | null; userId?: number | null; worldId?: number; data: Record<string, unknown> },
): Promise<string> {
  const id = newPublicId("evt");
  const clientId = event.clientId ?? null;
  // An event for a sandbox client (`sbx_…`) happens in that sandbox's world unless told.
  const worldId = event.worldId ?? (clientId !== null && isSandboxClientId(clientId) ? null : LIVE_WORLD_ID);
  await tx.$executeRawUnsafe(RECORD_EVENT_SQL, id, event.type, clientId, event.userId ?? null, worldId, clientId, LIVE_WORLD_ID, JSON.stringify(event.data));
  return id;
}

/** `app.authorization.revoked` for each app the person had authorized (their consents, read in `tx`). */
export async function recordAuthorizationEvents(
  tx: Tx,
  type: "app.authorization.granted" | "app.authorization.revoked",
  consents: readonly { userId: number; clientId: string; scopes: string[] }[],
  handle: string,
): Promise<void> {
  for (const c of consents) {
    await recordEvent(tx, { type, clientId: c.clientId, userId: c.userId, data: { user: handle, scopes: [...c.scopes].sort() } });
  }
}
