import { EventEmitter } from "node:events";
import type { Runner, Task, WorkerEvents } from "graphile-worker";
import pg from "pg";
import { z } from "zod";
import { pgTransactionWithChanges } from "../database/changes";
import { pool } from "../database/client";
import { graphileLogFactory } from "../database/migrate";
import { env } from "../env";
import { logger } from "../logger";
import { EVENT_AUDIENCE, type EventEnvelope, type EventType } from "../schemas/events";
import { deliverWebhook } from "./deliver-http";
import { openSecret } from "./secret-box";
import { webhookHeaders } from "./signing";

/**
 * Fan-out and webhook delivery (issue 25) on graphile-worker: jobs live in PostgreSQL (schema
 * graphile_worker), so they survive restarts and crashes and run in whichever process takes them
 * first; LISTEN/NOTIFY wakes a worker the moment a job commits, so delivery starts in milliseconds,
 * not at the next poll.
 *
 * - `event_fanout` (queued by the Event trigger): the event's recipients — each enabled endpoint of
 *   each app that may read it (EVENT_AUDIENCE) — get a delivery row (attempt 1) and a
 *   `webhook_deliver` job, in one statement. A rerun of the job adds nothing twice (dedupeKey).
 * - `webhook_deliver`: one attempt, signed (Standard Webhooks), through deliverWebhook (SSRF rules,
 *   10 s, no redirects). Any 2xx is delivered; `410 Gone` disables the endpoint; any other failure
 *   schedules the next attempt (WEBHOOK_RETRY_SCHEDULE, with jitter) as a new delivery row, so the
 *   log shows every attempt. Three days of failures disable the endpoint and tell the owner.
 * - At most PER_ENDPOINT_IN_FLIGHT attempts per endpoint run at once in a process: a slow receiver
 *   holds that many of the worker's slots, never all of them, so other apps' deliveries go on.
 */
export type EventRenderer = (event: StoredEvent) => EventEnvelope;

export interface StoredEvent {
  seq: string;
  id: string;
  type: EventType;
  clientId: string | null;
  userId: number | null;
  data: Record<string, unknown>;
  createdAt: number;
}

const PER_ENDPOINT_IN_FLIGHT = 4;
const FAILING_DISABLE_AFTER_MS = 3 * 24 * 3600 * 1000;
const inFlight = new Map<string, number>();

const fanoutPayload = z.object({ seq: z.string().regex(/^\d{1,19}$/) });
const deliverPayload = z.object({ delivery: z.string().min(1).max(64) });

const EVENT_COLUMNS = `e.seq::text AS seq, e.id, e.type, e."clientId" AS "clientId", e."userId" AS "userId", e.data,
  floor(extract(epoch FROM e."createdAt"))::int8 AS "createdAt"`;

function toStoredEvent(row: Record<string, unknown>): StoredEvent {
  return {
    seq: String(row.seq),
    id: String(row.id),
    type: row.type as EventType,
    clientId: (row.clientId as string | null) ?? null,
    userId: (row.userId as number | null) ?? null,
    data: row.data as Record<string, unknown>,
    createdAt: Number(row.createdAt),
  };
}

/**
 * The endpoints that receive an event: enabled, subscribed to its type (or to every type), of an
 * app that may read it. ping goes to the one endpoint it names. One statement inserts their
 * delivery rows and queues their jobs.
 */
const FANOUT_SQL = `
  WITH ev AS (SELECT seq, id, type, "clientId", "userId", data FROM "Event" WHERE seq = $1::int8),
  targets AS (
    SELECT w.id AS endpoint_id, w."clientId" AS client_id, ev.seq, ev.id AS event_id, ev.type
    FROM ev
    JOIN "WebhookEndpoint" w ON w.enabled AND (cardinality(w.events) = 0 OR ev.type = ANY (w.events))
    JOIN "Application" a ON a."clientId" = w."clientId"
    WHERE CASE
      WHEN ev.type = 'ping' THEN w.id = ev.data->>'webhook_id' AND w."clientId" = ev."clientId"
      WHEN $2::boolean THEN w."clientId" = ev."clientId"
      ELSE a.status = 'approved' AND $3::text = ANY (a.scopes)
        AND (NOT $4::boolean OR EXISTS (
          SELECT 1 FROM "Consent" c JOIN "User" u ON u.id = c."userId"
          WHERE c."userId" = ev."userId" AND c."clientId" = a."clientId" AND $3::text = ANY (c.scopes) AND NOT u.disabled))
    END
  ),
  inserted AS (
    INSERT INTO "WebhookDelivery" (id, "endpointId", "clientId", "eventSeq", "eventId", "eventType", attempt, state, "dedupeKey", "createdAt")
    SELECT platform_public_id('dlv'), endpoint_id, client_id, seq, event_id, type, 1, 'pending', endpoint_id || ':' || seq, timezone('UTC', now()) FROM targets
    ON CONFLICT ("dedupeKey") DO NOTHING
    RETURNING id
  )
  SELECT count(graphile_worker.add_job('webhook_deliver', json_build_object('delivery', id), max_attempts := 5))::int AS queued FROM inserted`;

const fanout: Task = async (payload) => {
  const { seq } = fanoutPayload.parse(payload);
  const { rows: [event] } = await pool.query<{ type: EventType }>(`SELECT type FROM "Event" WHERE seq = $1::int8`, [seq]);
  if (!event) return;
  const audience = EVENT_AUDIENCE[event.type];
  await pool.query(FANOUT_SQL, [seq, audience.own, audience.scope ?? "", audience.grant]);
};

interface DeliveryRow {
  delivery_id: string;
  endpoint_id: string;
  attempt: number;
  redelivery: boolean;
  state: string;
  url: string | null;
  enabled: boolean | null;
  secrets: { box: string; expiresAt?: string }[] | null;
  failing_since: Date | null;
  client_id: string;
}

function nextDelay(attempt: number): number | null {
  const schedule = env().WEBHOOK_RETRY_SCHEDULE;
  const seconds = schedule[attempt - 1];
  if (seconds === undefined) return null;
  return seconds * 1000 * (0.8 + Math.random() * 0.4);
}

async function activeSecrets(boxes: { box: string; expiresAt?: string }[]): Promise<string[]> {
  const now = Date.now();
  const live = boxes.filter((s) => !s.expiresAt || Date.parse(s.expiresAt) > now);
  return Promise.all(live.map((s) => openSecret(s.box)));
}

function makeDeliver(render: EventRenderer): Task {
  return async (payload, helpers) => {
    const { delivery: deliveryId } = deliverPayload.parse(payload);
    const { rows: [row] } = await pool.query<DeliveryRow & Record<string, unknown>>(
      `SELECT d.id AS delivery_id, d."endpointId" AS endpoint_id, d.attempt, d.redelivery, d.state, d."clientId" AS client_id,
              w.url, w.enabled, w.secrets, w."failingSince" AS failing_since, ${EVENT_COLUMNS}
       FROM "WebhookDelivery" d JOIN "Event" e ON e.seq = d."eventSeq" LEFT JOIN "WebhookEndpoint" w ON w.id = d."endpointId"
       WHERE d.id = $1`,
      [deliveryId],
    );
    // Done already (a job run twice), or its event or endpoint is gone.
    if (!row || row.state !== "pending") return;
    if (!row.url || !row.enabled) {
      await pool.query(`UPDATE "WebhookDelivery" SET state = 'failed', error = 'disabled' WHERE id = $1 AND state = 'pending'`, [row.delivery_id]);
      return;
    }
    const running = inFlight.get(row.endpoint_id) ?? 0;
    if (running >= PER_ENDPOINT_IN_FLIGHT) {
      // This endpoint has its share of the slots: try again in a moment, leaving the slot to others.
      await helpers.addJob("webhook_deliver", { delivery: row.delivery_id }, { runAt: new Date(Date.now() + 250), maxAttempts: 5 });
      return;
    }
    inFlight.set(row.endpoint_id, running + 1);
    try {
      await attempt(row, render);
    } finally {
      const left = (inFlight.get(row.endpoint_id) ?? 1) - 1;
      if (left > 0) inFlight.set(row.endpoint_id, left);
      else inFlight.delete(row.endpoint_id);
    }
  };
}

async function attempt(row: DeliveryRow & Record<string, unknown>, render: EventRenderer): Promise<void> {
  const event = toStoredEvent(row);
  const body = JSON.stringify(render(event));
  const secrets = await activeSecrets(row.secrets ?? []);
  const headers = webhookHeaders(event.id, Math.floor(Date.now() / 1000), body, secrets);
  const result = await deliverWebhook({ url: row.url!, body, headers });
  const gone = result.statusCode === 410;
  const delay = result.ok || gone ? null : nextDelay(row.attempt);
  const nextAt = delay === null ? null : new Date(Date.now() + delay);
  await pgTransactionWithChanges(async (client) => {
    await client.query(
      `UPDATE "WebhookDelivery" SET state = $2, "statusCode" = $3, error = $4, "latencyMs" = $5, response = $6, "nextAttemptAt" = $7
       WHERE id = $1`,
      [row.delivery_id, result.ok ? "delivered" : "failed", result.statusCode, result.error, Math.round(result.latencyMs), result.responseBody.slice(0, 1024), nextAt],
    );
    if (nextAt) {
      await client.query(
        `WITH next AS (
           INSERT INTO "WebhookDelivery" (id, "endpointId", "clientId", "eventSeq", "eventId", "eventType", attempt, redelivery, state, "createdAt")
           SELECT platform_public_id('dlv'), "endpointId", "clientId", "eventSeq", "eventId", "eventType", attempt + 1, redelivery, 'pending', timezone('UTC', $2::timestamptz)
           FROM "WebhookDelivery" WHERE id = $1 RETURNING id)
         SELECT graphile_worker.add_job('webhook_deliver', json_build_object('delivery', id), run_at := $2::timestamptz, max_attempts := 5) FROM next`,
        [row.delivery_id, nextAt],
      );
    }
    await settleEndpoint(client, row, result.ok, gone);
  });
}

/** Success clears the failing mark; 410 or three days of failures disable the endpoint (and tell the owner). */
async function settleEndpoint(client: pg.PoolClient, row: DeliveryRow, ok: boolean, gone: boolean): Promise<void> {
  if (ok) {
    if (row.failing_since) await client.query(`UPDATE "WebhookEndpoint" SET "failingSince" = NULL WHERE id = $1`, [row.endpoint_id]);
    return;
  }
  const failingFor = row.failing_since ? Date.now() - row.failing_since.getTime() : 0;
  const reason = gone ? "gone" : failingFor > FAILING_DISABLE_AFTER_MS ? "failing" : null;
  if (!reason) {
    if (!row.failing_since) await client.query(`UPDATE "WebhookEndpoint" SET "failingSince" = timezone('UTC', now()) WHERE id = $1`, [row.endpoint_id]);
    return;
  }
  const { rowCount } = await client.query(
    `UPDATE "WebhookEndpoint" SET enabled = false, "disabledReason" = $2, "updatedAt" = timezone('UTC', now()) WHERE id = $1 AND enabled`,
    [row.endpoint_id, reason],
  );
  if (!rowCount) return;
  const why = reason === "gone" ? "its receiver answered 410 Gone" : "every delivery to it failed for 3 days";
  await client.query(
    `INSERT INTO "Notification" ("userId", type, read, message, "createdAt")
     SELECT a."ownerId", 'app_review', false, $2, timezone('UTC', now()) FROM "Application" a WHERE a."clientId" = $1`,
    [row.client_id, `A webhook endpoint of your app was disabled: ${why} (${row.url}). Fix the receiver, then enable it again on the app's Webhooks tab.`],
  );
  logger.warn("webhook endpoint disabled", { clientId: row.client_id, endpoint: row.endpoint_id, reason });
}

/** Events and delivery attempts are kept 7 days (the stream resumes from up to 24 h back, the log shows a week). */
const RETENTION_DAYS = 7;

const retention: Task = async () => {
  const cutoff = `timezone('UTC', now()) - interval '${RETENTION_DAYS} days'`;
  const { rowCount: deliveries } = await pool.query(`DELETE FROM "WebhookDelivery" WHERE "createdAt" < ${cutoff}`);
  const { rowCount: events } = await pool.query(
    `DELETE FROM "Event" e WHERE e."createdAt" < ${cutoff} AND NOT EXISTS (SELECT 1 FROM "WebhookDelivery" d WHERE d."eventSeq" = e.seq)`,
  );
  if (deliveries || events) logger.info("events retention", { events, deliveries });
};

/**
 * Crash recovery: every process keeps a heartbeat row for each of its job workers. A job locked by
 * a worker whose heartbeat is older than EVENT_WORKER_STALE_SECONDS (its process was killed in the
 * middle of a delivery or a fan-out) is unlocked for the others to take, at once, rather than after
 * graphile-worker's own 4-hour lock timeout. Every process checks every few seconds; the work is
 * at-least-once, so an event delivered just before the kill may arrive twice (same event id).
 */
async function heartbeat(ids: readonly string[]): Promise<void> {
  if (!ids.length) return;
  await pool.query(
    `INSERT INTO "EventWorker" (id, "seenAt") SELECT unnest($1::text[]), timezone('UTC', now())
     ON CONFLICT (id) DO UPDATE SET "seenAt" = EXCLUDED."seenAt"`,
    [ids],
  );
}

export async function unlockDeadWorkers(staleSeconds: number): Promise<number> {
  const { rows: [row] } = await pool.query<{ unlocked: number }>(
    `WITH dead AS (
       SELECT DISTINCT j.locked_by FROM graphile_worker._private_jobs j
       WHERE j.locked_by IS NOT NULL AND j.locked_at < now() - make_interval(secs => $1)
         AND NOT EXISTS (SELECT 1 FROM "EventWorker" w WHERE w.id = j.locked_by AND w."seenAt" > timezone('UTC', now()) - make_interval(secs => $1))
     ), unlocked AS (
       SELECT graphile_worker.force_unlock_workers(array_agg(locked_by)) FROM dead HAVING count(*) > 0
     ), forgotten AS (
       DELETE FROM "EventWorker" WHERE "seenAt" < timezone('UTC', now()) - make_interval(secs => $1 * 10)
     )
     SELECT (SELECT count(*) FROM dead)::int AS unlocked, (SELECT count(*) FROM unlocked) AS _`,
    [staleSeconds],
  );
  if (row!.unlocked) logger.warn("job queue: jobs of stopped workers unlocked", { workers: row!.unlocked });
  return row!.unlocked;
}

/** Starts this process's job worker; `stop()` lets running jobs finish. Concurrency 0: none (tests). */
export async function startEventWorker(render: EventRenderer): Promise<{ stop(): Promise<void> }> {
  const concurrency = env().EVENT_WORKER_CONCURRENCY;
  if (concurrency === 0) return { async stop() {} };
  const { run, Logger } = await import("graphile-worker");
  const staleSeconds = env().EVENT_WORKER_STALE_SECONDS;
  const workerIds = new Set<string>();
  const events = new EventEmitter() as WorkerEvents;
  events.on("worker:create", ({ worker }) => workerIds.add(worker.workerId));
  events.on("worker:stop", ({ worker }) => workerIds.delete(worker.workerId));
  const beat = () =>
    heartbeat([...workerIds])
      .then(() => unlockDeadWorkers(staleSeconds))
      .catch((error: Error) => logger.warn("job queue: heartbeat failed", { error: error.message }));
  const runner: Runner = await run({
    events,
    connectionString: env().DATABASE_URL,
    concurrency,
    // One connection per running job, one to LISTEN, one spare.
    maxPoolSize: concurrency + 2,
    noHandleSignals: true,
    pollInterval: 2000,
    logger: new Logger(graphileLogFactory),
    taskList: { event_fanout: fanout, webhook_deliver: makeDeliver(render), events_retention: retention },
    // Hourly, once across every process (graphile-worker's cron keeps one schedule in the database).
    crontab: "23 * * * * events_retention",
  });
  await beat();
  const timer = setInterval(() => void beat(), (staleSeconds * 1000) / 3);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      const ids = [...workerIds];
      await runner.stop().catch((error: Error) => logger.warn("job worker stop failed", { error: error.message }));
      await pool.query(`DELETE FROM "EventWorker" WHERE id = ANY($1::text[])`, [ids]).catch(() => {});
    },
  };
}

/** A stored event by public id, for the renderer's callers (redelivery, the stream). */
export { toStoredEvent, EVENT_COLUMNS };
