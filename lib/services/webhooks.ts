import { publishChange } from "../database/changes";
import { db, type Tx } from "../database/client";
import { AppError } from "../errors";
import { newPublicId } from "../crypto/ids";
import { audienceRefusal, type AudienceRefusal } from "../events/audience";
import { checkWebhookUrl } from "../events/deliver-http";
import { recordEvent } from "../events/outbox";
import { sealSecret } from "../events/secret-box";
import { generateWebhookSecret } from "../events/signing";
import { EVENT_AUDIENCE, EVENT_TYPES, MAX_WEBHOOKS_PER_APP, type EventType } from "../schemas/events";
import {
  deliveryFilterSchema,
  DELIVERY_ID_PATTERN,
  webhookInputSchema,
  WEBHOOK_ID_PATTERN,
  type DeliveryFilter,
  type DeliveryView,
  type WebhookBacklogView,
  type WebhookInput,
  type WebhookView,
} from "../schemas/webhooks";
import { pendingChangeSchema } from "../schemas/apps";
import { LIVE_WORLD_ID, sandboxClientId } from "../schemas/sandboxes";
import { loadFor, type AppRow } from "./app-access";
import type { Actor } from "./actor";
import { recordAudit } from "./audit";
import { ensureSandbox } from "./sandboxes";

/**
 * Webhook endpoints of an app. The team's owner and admins (and the operator) manage
 * them, since they hold signing secrets (the `handleSecrets` capability); viewers and platform
 * admins read them. The signing secret is shown once, at creation and on rotation, and stored
 * encrypted (lib/events/secret-box.ts). A rotation keeps the old secret signing for 24 hours.
 *
 * Every function takes `{ sandbox: true }` for the endpoints of the app's sandbox, stored
 * under its sandbox client id (`sbx_…`): the same rights, limit (5), signing, retries, delivery log
 * and test event, receiving only the sandbox's events (lib/events/worker.ts), with the types the
 * sandbox's scopes allow (the app's current configuration, its pending change included).
 */
const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

/** Which of an app's two sets of endpoints: live (default) or its sandbox's. */
export interface WebhookWorld {
  sandbox?: boolean;
}

/** The app, and the client id its endpoints of that world are stored under. */
async function loadTarget(clientId: string, actor: Actor, capability: "view" | "handleSecrets", action: string, world: WebhookWorld) {
  const app = await loadFor(clientId, actor, capability, action);
  return { app, owner: world.sandbox ? sandboxClientId(app.clientId) : app.clientId, sandbox: world.sandbox === true };
}

interface StoredSecret {
  box: string;
  createdAt: string;
  expiresAt?: string;
}

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

/** The scopes an app's endpoints receive with: its approved ones, or for its sandbox, its pending change's if it has one. */
function receivableScopes(app: { scopes: string[]; pendingChange: unknown }, world: WebhookWorld): string[] {
  const pending = world.sandbox && app.pendingChange != null ? (pendingChangeSchema.safeParse(app.pendingChange).data ?? null) : null;
  return pending?.scopes ?? app.scopes;
}

/**
 * The event types an app may receive with its approved scopes (what an empty filter means); for its
 * sandbox, with the scopes its sandbox signs in with (the pending change's, if it has one).
 */
export function receivableTypes(app: { scopes: string[]; pendingChange: unknown }, world: WebhookWorld = {}): EventType[] {
  const scopes = receivableScopes(app, world);
  return EVENT_TYPES.filter((t) => {
    const scope = EVENT_AUDIENCE[t].scope;
    return scope === null || scopes.includes(scope);
  });
}

function toView(row: { id: string; url: string; events: string[]; enabled: boolean; disabledReason: string | null; failingSince: Date | null; createdAt: Date }): WebhookView {
  return {
    id: row.id,
    url: row.url,
    events: row.events as EventType[],
    status: row.enabled ? "enabled" : "disabled",
    disabled_reason: row.enabled ? null : row.disabledReason,
    failing_since: row.failingSince ? seconds(row.failingSince) : null,
    created_at: seconds(row.createdAt),
  };
}

function parseInput(app: AppRow, input: WebhookInput, world: WebhookWorld): { url: string; events: EventType[] } {
  const parsed = webhookInputSchema.safeParse(input);
  if (!parsed.success) throw new AppError("invalid_request", parsed.error.issues[0]!.message);
  const url = checkWebhookUrl(parsed.data.url);
  if (!url.ok) throw new AppError("invalid_request", url.message);
  const allowed = receivableTypes(app, world);
  const refused = parsed.data.events.filter((t) => !allowed.includes(t));
  if (refused.length) {
    const needs = refused.map((t) => `${t} needs ${EVENT_AUDIENCE[t].scope}`).join(", ");
    throw new AppError("invalid_request", `This ${world.sandbox ? "app's sandbox" : "app"} cannot receive ${refused.join(", ")} (${needs}).`);
  }
  return { url: url.url, events: [...new Set(parsed.data.events)].sort() };
}

/** An endpoint of `owner` (the app's client id, or its sandbox's). */
async function loadEndpoint(owner: string, webhookId: string) {
  const row = WEBHOOK_ID_PATTERN.test(webhookId) ? await db.webhookEndpoint.findUnique({ where: { id: webhookId } }) : null;
  if (!row || row.clientId !== owner) throw new AppError("not_found", `No webhook ${webhookId} on ${owner}.`);
  return row;
}

export async function listWebhooks(clientId: string, actor: Actor, world: WebhookWorld = {}): Promise<WebhookView[]> {
  const { owner } = await loadTarget(clientId, actor, "view", "app.webhook.list", world);
  const rows = await db.webhookEndpoint.findMany({ where: { clientId: owner }, orderBy: { createdAt: "asc" } });
  return rows.map(toView);
}

export async function addWebhook(clientId: string, input: WebhookInput, actor: Actor, world: WebhookWorld = {}): Promise<WebhookView & { secret: string }> {
  const { app, owner, sandbox } = await loadTarget(clientId, actor, "handleSecrets", "app.webhook.add", world);
  const { url, events } = parseInput(app, input, world);
  // The sandbox's own row (fan-out finds its endpoints through it); made now for an app older than sandboxes.
  if (sandbox) await ensureSandbox(app);
  const secret = generateWebhookSecret();
  const secrets: StoredSecret[] = [{ box: await sealSecret(secret), createdAt: new Date().toISOString() }];
  const row = await db.$transaction(async (tx) => {
    // Under the app's row lock: two additions at once cannot both take the fifth place.
    await tx.$queryRaw`SELECT 1 FROM "Application" WHERE "clientId" = ${clientId} FOR UPDATE`;
    const count = await tx.webhookEndpoint.count({ where: { clientId: owner } });
    if (count >= MAX_WEBHOOKS_PER_APP) {
      throw new AppError("conflict", `An app${sandbox ? "'s sandbox" : ""} has at most ${MAX_WEBHOOKS_PER_APP} webhook endpoints; remove one first.`);
    }
    const created = await tx.webhookEndpoint.create({
      data: { id: newPublicId("wh"), clientId: owner, url, events, secrets: secrets as object[], createdById: actor.kind === "user" ? actor.id : null },
    });
    await recordAudit({ actor, action: "app.webhook.add", targetType: "app", targetId: clientId, detail: { webhook: created.id, url, events, sandbox } }, tx);
    return created;
  });
  return { ...toView(row), secret };
}

export async function removeWebhook(clientId: string, webhookId: string, actor: Actor, world: WebhookWorld = {}): Promise<{ id: string; removed: true }> {
  const { owner } = await loadTarget(clientId, actor, "handleSecrets", "app.webhook.remove", world);
  const row = await loadEndpoint(owner, webhookId);
  await db.$transaction(async (tx) => {
    await tx.webhookEndpoint.delete({ where: { id: row.id } });
    await recordAudit({ actor, action: "app.webhook.remove", targetType: "app", targetId: clientId, detail: { webhook: row.id, url: row.url } }, tx);
  });
  return { id: row.id, removed: true };
}

export async function setWebhookEnabled(clientId: string, webhookId: string, enabled: boolean, actor: Actor, world: WebhookWorld = {}): Promise<WebhookView> {
  const action = enabled ? "app.webhook.enable" : "app.webhook.disable";
  const { owner } = await loadTarget(clientId, actor, "handleSecrets", action, world);
  const row = await loadEndpoint(owner, webhookId);
  const updated = await db.$transaction(async (tx) => {
    const next = await tx.webhookEndpoint.update({
      where: { id: row.id },
      // Enabling starts a fresh count of failing days.
      data: enabled ? { enabled: true, disabledReason: null, failingSince: null } : { enabled: false, disabledReason: "owner" },
    });
    await recordAudit({ actor, action, targetType: "app", targetId: clientId, detail: { webhook: row.id } }, tx);
    return next;
  });
  return toView(updated);
}

/** A new signing secret, shown once; the previous one keeps signing alongside for 24 hours. */
export async function rotateWebhookSecret(clientId: string, webhookId: string, actor: Actor, world: WebhookWorld = {}): Promise<{ id: string; secret: string }> {
  const { owner } = await loadTarget(clientId, actor, "handleSecrets", "app.webhook.rotate", world);
  const row = await loadEndpoint(owner, webhookId);
  const secret = generateWebhookSecret();
  const now = Date.now();
  const previous = (row.secrets as unknown as StoredSecret[])
    .filter((s) => !s.expiresAt || Date.parse(s.expiresAt) > now)
    .slice(0, 1)
    .map((s) => ({ ...s, expiresAt: s.expiresAt ?? new Date(now + ROTATION_OVERLAP_MS).toISOString() }));
  const secrets: StoredSecret[] = [{ box: await sealSecret(secret), createdAt: new Date(now).toISOString() }, ...previous];
  await db.$transaction(async (tx) => {
    await tx.webhookEndpoint.update({ where: { id: row.id }, data: { secrets: secrets as object[] } });
    await recordAudit({ actor, action: "app.webhook.rotate", targetType: "app", targetId: clientId, detail: { webhook: row.id } }, tx);
  });
  return { id: row.id, secret };
}

/** A first attempt of `eventSeq` to one endpoint, queued in `tx` (a test event, a redelivery). */
async function queueDelivery(tx: Tx, endpoint: { id: string; clientId: string }, event: { seq: bigint; id: string; type: string }, redelivery: boolean): Promise<string> {
  const id = newPublicId("dlv");
  await tx.$executeRaw`
    INSERT INTO "WebhookDelivery" (id, "endpointId", "clientId", "eventSeq", "eventId", "eventType", attempt, redelivery, state, "createdAt")
    VALUES (${id}, ${endpoint.id}, ${endpoint.clientId}, ${event.seq}, ${event.id}, ${event.type}, 1, ${redelivery}, 'pending', timezone('UTC', now()))`;
  // Every process's delivery loop wakes (lib/events/worker.ts takes the pending row).
  await publishChange(tx, { kind: "delivery" });
  return id;
}

/** "Send test event": a `ping` to this endpoint (enabled or not: the owner checks a receiver before enabling it). */
export async function sendTestEvent(clientId: string, webhookId: string, actor: Actor, world: WebhookWorld = {}): Promise<{ event_id: string; delivery_id: string }> {
  const { app, owner } = await loadTarget(clientId, actor, "handleSecrets", "app.webhook.test", world);
  const endpoint = await loadEndpoint(owner, webhookId);
  if (!endpoint.enabled) throw new AppError("conflict", `Webhook ${webhookId} is disabled; enable it to send a test event.`);
  return db.$transaction(async (tx) => {
    // A sandbox endpoint's ping is an event of the sandbox's world (recordEvent, by its sbx_ client id).
    const eventId = await recordEvent(tx, {
      type: "ping",
      clientId: owner,
      data: { message: `Test event from the developer portal for ${app.name}.`, webhook_id: endpoint.id },
    });
    // Event is partitioned by day, its id indexed but not unique-constrained (random, 120 bits).
    const event = await tx.event.findFirstOrThrow({ where: { id: eventId }, select: { seq: true, id: true, type: true } });
    // Its one attempt: fan-out passes pings by (lib/events/worker.ts).
    const deliveryId = await queueDelivery(tx, endpoint, event, false);
    await recordAudit({ actor, action: "app.webhook.test", targetType: "app", targetId: clientId, detail: { webhook: endpoint.id, event: eventId } }, tx);
    return { event_id: eventId, delivery_id: deliveryId };
  });
}

function toDeliveryView(d: {
  id: string; endpointId: string; eventId: string; eventType: string; attempt: number; redelivery: boolean; state: string;
  statusCode: number | null; error: string | null; latencyMs: number | null; response: string | null; createdAt: Date; nextAttemptAt: Date | null;
}): DeliveryView {
  return {
    id: d.id,
    webhook_id: d.endpointId,
    event_id: d.eventId,
    event_type: d.eventType,
    attempt: d.attempt,
    redelivery: d.redelivery,
    state: d.state,
    status_code: d.statusCode,
    ok: d.state === "delivered",
    error: d.error,
    latency_ms: d.latencyMs,
    response: d.response,
    created_at: seconds(d.createdAt),
    next_attempt_at: d.nextAttemptAt ? seconds(d.nextAttemptAt) : null,
  };
}

/** The delivery log, newest first: every attempt (kept 7 days). */
export async function listDeliveries(clientId: string, filter: DeliveryFilter, actor: Actor, world: WebhookWorld = {}): Promise<DeliveryView[]> {
  const { owner } = await loadTarget(clientId, actor, "view", "app.webhook.deliveries", world);
  const parsed = deliveryFilterSchema.safeParse(filter);
  if (!parsed.success) throw new AppError("invalid_request", parsed.error.issues[0]!.message);
  const { webhook, status, limit } = parsed.data;
  const rows = await db.webhookDelivery.findMany({
    where: { clientId: owner, ...(webhook ? { endpointId: webhook } : {}), ...(status ? { state: status } : {}) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
  });
  return rows.map(toDeliveryView);
}

/**
 * The backlog of the app's endpoints, shown with the delivery log: what waits now and since when
 * (WebhookBacklogView). Read on the (clientId, createdAt) index: the app's pending attempts only.
 */
export async function getWebhookBacklog(clientId: string, actor: Actor, world: WebhookWorld = {}): Promise<WebhookBacklogView> {
  const { owner } = await loadTarget(clientId, actor, "view", "app.webhook.deliveries", world);
  const [row] = await db.$queryRaw<{ waiting: number; events: number; oldest: number | null; scheduled: number }[]>`
    SELECT count(*) FILTER (WHERE d."createdAt" <= n.at)::int AS waiting,
           count(DISTINCT d."eventSeq") FILTER (WHERE d."createdAt" <= n.at)::int AS events,
           extract(epoch FROM n.at - min(d."createdAt") FILTER (WHERE d."createdAt" <= n.at))::float8 AS oldest,
           count(*) FILTER (WHERE d."createdAt" > n.at)::int AS scheduled
    FROM (SELECT timezone('UTC', now()) AS at) n
    LEFT JOIN "WebhookDelivery" d ON d."clientId" = ${owner} AND d.state = 'pending'
    GROUP BY n.at`;
  return {
    waiting: row?.waiting ?? 0,
    events: row?.events ?? 0,
    oldest_waiting_seconds: row?.oldest === null || row?.oldest === undefined ? null : Math.floor(row.oldest),
    retries_scheduled: row?.scheduled ?? 0,
  };
}

const REFUSAL_TEXT: Record<AudienceRefusal | "event_gone", string> = {
  other_world: "it happened in another world",
  webhook_only: "it goes to webhooks only",
  portal_only: "it is shown in the portal only",
  app_not_approved: "the app is not approved",
  app_suspended: "the app is suspended",
  not_own: "it is about another app",
  other_person: "it is about another person",
  scope_missing: "the app no longer has the scope it needs",
  consent_revoked: "the person no longer authorizes the app",
  event_gone: "the event is no longer kept",
};

/**
 * Why the event of `delivery` may not go to `owner` now (lib/events/audience.ts, the rule the
 * delivery loop asks again before the attempt), or null. A redelivery is refused up front with it.
 */
async function redeliveryRefusal(app: AppRow, owner: string, eventSeq: bigint, world: WebhookWorld): Promise<AudienceRefusal | "event_gone" | null> {
  const event = await db.event.findFirst({ where: { seq: eventSeq }, select: { type: true, clientId: true, userId: true, worldId: true, data: true } });
  if (!event) return "event_gone";
  const sandbox = world.sandbox ? await db.sandbox.findUnique({ where: { clientId: owner }, select: { id: true } }) : null;
  const consent =
    event.userId !== null ? await db.consent.findUnique({ where: { userId_clientId: { userId: event.userId, clientId: owner } }, select: { scopes: true, user: { select: { disabled: true } } } }) : null;
  return audienceRefusal(
    {
      clientId: owner,
      worldId: sandbox?.id ?? LIVE_WORLD_ID,
      status: app.status,
      // The scopes its endpoints may receive with: for a sandbox, its pending change's.
      scopes: receivableScopes(app, world),
      userId: null,
      via: "webhook",
      granted: (_userId, scope) => consent !== null && !consent.user.disabled && consent.scopes.includes(scope),
    },
    { type: event.type as EventType, clientId: event.clientId, userId: event.userId, worldId: event.worldId, data: event.data as Record<string, unknown> },
  );
}

/** Sends the event of a delivery again, as a new first attempt (same event id: receivers deduplicate). */
export async function redeliver(clientId: string, deliveryId: string, actor: Actor, world: WebhookWorld = {}): Promise<{ delivery_id: string }> {
  const { app, owner } = await loadTarget(clientId, actor, "handleSecrets", "app.webhook.redeliver", world);
  const delivery = DELIVERY_ID_PATTERN.test(deliveryId) ? await db.webhookDelivery.findFirst({ where: { id: deliveryId } }) : null;
  if (!delivery || delivery.clientId !== owner) throw new AppError("not_found", `No delivery ${deliveryId} on ${owner}.`);
  const endpoint = await loadEndpoint(owner, delivery.endpointId);
  if (!endpoint.enabled) throw new AppError("conflict", `Webhook ${endpoint.id} is disabled; enable it to redeliver.`);
  const refusal = await redeliveryRefusal(app, owner, delivery.eventSeq, world);
  if (refusal) throw new AppError("conflict", `Event ${delivery.eventId} may no longer be sent to this endpoint: ${REFUSAL_TEXT[refusal]}.`);
  return db.$transaction(async (tx) => {
    const id = await queueDelivery(tx, endpoint, { seq: delivery.eventSeq, id: delivery.eventId, type: delivery.eventType }, true);
    await recordAudit({ actor, action: "app.webhook.redeliver", targetType: "app", targetId: clientId, detail: { delivery: deliveryId, redelivery: id } }, tx);
    return { delivery_id: id };
  });
}
