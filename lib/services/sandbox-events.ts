import { db, type Tx } from "../database/client";
import { AppError } from "../errors";
import { recordEvent } from "../events/outbox";
import { MESSAGE_COLUMNS } from "../queries/chat";
import { insertEventSql } from "../queries/events";
import { pendingChangeSchema } from "../schemas/apps";
import { isAppLiveIn } from "../schemas/sandboxes";
import { EVENT_AUDIENCE, TRIGGERABLE_EVENT_TYPES, type TriggerableEventType } from "../schemas/events";
import { loadFor, type AppRow } from "./app-access";
import type { Actor } from "./actor";
import { recordAudit } from "./audit";
import { ensureSandbox, ensureSandboxWorld } from "./sandboxes";

/**
 * "Trigger event": one event of a documented type in an app's sandbox, with
 * synthetic data from its world (built now if it was not yet), delivered like any other event of
 * that world (its sandbox endpoints, its sandbox tokens' streams; never live ones):
 *
 *  - chat.message.created: a generated person of the world posts a message (it is in the sandbox's chat);
 *  - notification.created: a generated person pokes another (the Notification trigger writes the event);
 *  - app.authorization.granted / revoked: a generated person, with the sandbox's scopes;
 *  - app.status.changed: `approved` (what the app will hear when its review passes).
 *
 * Those who may change the app (app-access.ts `manage`) may trigger; viewers may not.
 */

/** The sandbox's scopes: the app's current configuration, its pending change included (as its sign-in). */
function sandboxScopes(app: AppRow): string[] {
  const pending = app.pendingChange === null ? null : (pendingChangeSchema.safeParse(app.pendingChange).data ?? null);
  return pending?.scopes ?? app.scopes;
}

function parseType(type: string): TriggerableEventType {
  const found = TRIGGERABLE_EVENT_TYPES.find((t) => t === type);
  if (!found) {
    const hint = type === "ping" ? " (a ping is sent to one endpoint by “Send test event”, `apps webhooks test --sandbox`)" : "";
    throw new AppError("invalid_request", `Unknown event type "${type.slice(0, 60)}"${hint}; one of ${TRIGGERABLE_EVENT_TYPES.join(", ")}.`);
  }
  return found;
}

/** Generated people of world `worldId`, picked at random, enabled. */
async function pickPeople(tx: Tx, worldId: number, count: number): Promise<{ id: number; handle: string }[]> {
  const people = await tx.$queryRaw<{ id: number; handle: string }[]>`
    SELECT id, handle FROM "User" WHERE "worldId" = ${worldId} AND NOT disabled ORDER BY random() LIMIT ${count}`;
  if (people.length < count) throw new AppError("conflict", "The sandbox's world has too few people; reset the sandbox.");
  return people;
}

/** The id of the newest event this transaction wrote (the Notification trigger's). */
async function lastEventOfTransaction(tx: Tx): Promise<string> {
  const [row] = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM "Event" WHERE txid = pg_current_xact_id() ORDER BY seq DESC LIMIT 1`;
  if (!row) throw new Error("the synthetic notification wrote no event");
  return row.id;
}

async function writeEvent(tx: Tx, type: TriggerableEventType, sandbox: { id: number; clientId: string }, scopes: string[]): Promise<string> {
  const worldId = sandbox.id;
  switch (type) {
    case "chat.message.created": {
      const [author] = await pickPeople(tx, worldId, 1);
      const text = `Test message triggered in the sandbox at ${new Date().toISOString()}.`;
      // As a post writes it (lib/queries/chat.ts): the message, and its event with the record as data.
      const [row] = await tx.$queryRawUnsafe<{ id: string }[]>(
        `WITH m AS (
           INSERT INTO "ChatMessage" ("worldId", "authorId", text, "createdAt")
           VALUES ($1, $2, $3, timezone('UTC', now())::timestamp(3))
           RETURNING id, text, "replyToId", media, reactions, "editedAt", "createdAt"
         ), posted AS (SELECT ${MESSAGE_COLUMNS} FROM m, "User" u WHERE u.id = $2)
         ${insertEventSql({ type: "'chat.message.created'", worldId: "$1", data: "to_jsonb(posted)" }, "posted")}
         RETURNING id`,
        worldId,
        author!.id,
        text,
      );
      return row!.id;
    }
    case "notification.created": {
      const [target, sender] = await pickPeople(tx, worldId, 2);
      await tx.$executeRaw`
        INSERT INTO "Notification" ("userId", type, read, "fromUserId", count, "createdAt")
        VALUES (${target!.id}, 'poke', false, ${sender!.id}, 1, date_trunc('second', timezone('UTC', now())))`;
      return lastEventOfTransaction(tx);
    }
    case "app.authorization.granted":
    case "app.authorization.revoked": {
      const [person] = await pickPeople(tx, worldId, 1);
      return recordEvent(tx, {
        type,
        clientId: sandbox.clientId,
        userId: person!.id,
        worldId,
        data: { user: person!.handle, scopes: [...scopes].sort() },
      });
    }
    case "app.status.changed":
      return recordEvent(tx, { type, clientId: sandbox.clientId, worldId, data: { status: "approved" } });
  }
}

export async function triggerSandboxEvent(appClientId: string, actor: Actor, type: string): Promise<{ eventId: string }> {
  const eventType = parseType(type);
  const app = await loadFor(appClientId, actor, "manage", "app.sandbox.trigger");
  if (!isAppLiveIn(app.status, "sandbox")) throw new AppError("conflict", "The app is suspended: its sandbox hears no events.");
  const scopes = sandboxScopes(app);
  const needs = EVENT_AUDIENCE[eventType].scope;
  if (needs !== null && !scopes.includes(needs)) {
    throw new AppError("invalid_request", `The sandbox cannot receive ${eventType}: the app's scopes lack ${needs}.`);
  }
  const sandbox = await ensureSandbox(app);
  await ensureSandboxWorld(sandbox.id);
  const eventId = await db.$transaction(async (tx) => {
    const id = await writeEvent(tx, eventType, sandbox, scopes);
    await recordAudit(
      { actor, action: "app.sandbox.trigger", targetType: "app", targetId: app.clientId, detail: { type: eventType, event: id } },
      tx,
    );
    return id;
  });
  return { eventId };
}
