import pg from "pg";
import { onChange, pgTransactionWithChanges } from "../database/changes";
import { pool } from "../database/client";
import { env } from "../env";
import { dropDayPartitions, ensureDayPartitions, type DayPartitioned } from "../queries/partitions";
import { logger } from "../logger";
import { countWebhookDelivery, countWebhookQueueTransaction, watchWebhookQueue } from "../metrics";
import { EVENT_AUDIENCE, EVENT_TYPES, type EventEnvelope, type EventType } from "../schemas/events";
import { appLiveSql, isSandboxClientId, LIVE_WORLD_ID, SANDBOX_CLIENT_PREFIX } from "../schemas/sandboxes";
import { audienceRefusal, PORTAL_ONLY_NOTIFICATION_TYPES, type Audience } from "./audience";
import { deliverWebhook, type DeliveryResult } from "./deliver-http";
import { openSecret } from "./secret-box";
import { webhookSigner, type WebhookSigner } from "./signing";

/**
 * Fan-out and webhook delivery, in batches, with PostgreSQL as the queue:
 *
 * - **Fan-out.** The Event table is read from a cursor (EventCursor "webhooks") in (txid, seq)
 *   order, only below the oldest transaction still running (as the event stream reads it: an event
 *   committed late with a lower seq is never skipped). One statement writes the delivery rows
 *   (attempt 1) of up to FANOUT_BATCH events — each enabled endpoint, subscribed to the type, of an
 *   app that may read the event (EVENT_AUDIENCE; a ping's one attempt is written with it) — and moves
 *   the cursor, in the transaction that holds the cursor's row lock: one process at a time fans
 *   out, and an event is fanned out once. Every later attempt (retry, redelivery, test event) asks
 *   the same rule again just before it is sent (lib/events/audience.ts): what may no longer go is
 *   dropped, and the log says why (its error: consent_revoked, scope_missing, app_not_approved…). An event reaches the endpoints of its own world
 *   only. Live events (worldId 0) go to live apps' endpoints as above; a sandbox's events go to the
 *   endpoints registered for its sandbox client (`sbx_…`), under the sandbox's rules: its app's
 *   current scopes (pending change included), any review status but suspended, and every synthetic
 *   person counts as having authorized it. Sandbox endpoints have no Application row of their own,
 *   so the live join never meets them.
 * - **Taking work.** A pending attempt is taken by setting its lease (lockedUntil): the fan-out
 *   takes the rows it writes, up to what this process has room for and each app up to its share
 *   (its batch ends where that room is full, so it seldom writes rows nobody takes); the rest,
 *   retries that fall due, test events and redeliveries are taken by any process with `FOR UPDATE
 *   SKIP LOCKED`. A process renews the leases it holds while at least half of each is left; a
 *   process killed mid-delivery stops renewing, and its attempts are taken by another once their
 *   leases pass (at-least-once: a delivery cut short may arrive twice, with the same webhook-id).
 *   A step runs only when it may find work (an event announced, a retry due, rows left free, the
 *   poll), not at every refill.
 * - **Delivering.** EVENT_WORKER_CONCURRENCY attempts run at once per process, at most
 *   PER_ENDPOINT_IN_FLIGHT per endpoint and a quarter of the slots per app (its live and sandbox
 *   endpoints together), apps served in rotation and each app's endpoints in turn: slow receivers
 *   hold their own app's share, never the slots another app's deliveries need. An app also holds at
 *   most an eighth of what a process may hold; the rest of its attempts wait in the table. Each
 *   attempt is signed (Standard Webhooks, each endpoint's keys decoded once) and sent by
 *   deliverWebhook (SSRF rules, 10 s, no redirects, kept-alive connections); an event's body is
 *   rendered once for all its endpoints, and read from the database once per batch.
 * - **Recording.** Successes are written in batches (one statement per flush). Any 2xx is
 *   delivered; `410 Gone` disables the endpoint; any other failure schedules the next attempt
 *   (WEBHOOK_RETRY_SCHEDULE, with jitter) as a new pending row due then, so the log shows every
 *   attempt. Three days of failures disable the endpoint and tell the owner.
 *
 * Every process wakes on the Event trigger's NOTIFY (the change channel, kind "event") and on
 * "delivery" (a test event, a redelivery, work another process had no room for), and polls every
 * POLL_MS for retries that fell due and leases that ran out.
 */
export type EventRenderer = (event: StoredEvent) => EventEnvelope;

export interface StoredEvent {
  seq: string;
  id: string;
  type: EventType;
  clientId: string | null;
  userId: number | null;
  /** 0 live, else the sandbox (Sandbox.id) whose world it happened in. */
  worldId: number;
  data: Record<string, unknown>;
  createdAt: number;
}

const PER_ENDPOINT_IN_FLIGHT = 8;
/** An app's share of a process's slots and of the attempts it holds (its live and sandbox endpoints together). */
const APP_SHARE_OF_SLOTS = 1 / 4;
const APP_SHARE_OF_HELD = 1 / 8;
const FAILING_DISABLE_AFTER_MS = 3 * 24 * 3600 * 1000;
const FANOUT_BATCH = 500;
const CLAIM_BATCH = 500;
/** Attempts a process holds at most (queued, running, or waiting to be recorded), per slot. */
/**
 * Attempts a process holds at most (queued, running, or waiting to be recorded), per slot: enough
 * to keep every slot busy between two refills (a refill when half is left), and few enough that the
 * claim's scan past what is held, the lease renewals and the heap stay small.
 */
const HELD_PER_SLOT = 16;
const POLL_MS = 1000;
/** Results are recorded at most this long after they came in, or at once when this many wait. */
const FLUSH_MS = 25;
const FLUSH_AT = 500;
const CURSOR = "webhooks";
/** How soon fan-out looks again when committed events wait behind an older transaction (nothing announces its end). */
const HELD_RETRY_MS = 20;

/**
 * The event horizon: events are read in (txid, seq) order and only below the oldest
 * transaction that may still write one, so an event whose transaction commits after a later one's
 * is never skipped. pg_snapshot_xmin alone is the oldest transaction running anywhere in the
 * cluster: a transaction left open in another database (which can never write our events) held
 * every webhook and stream back for as long as it ran. So the transactions that pg_stat_activity
 * places in another database are left out; one it cannot place (another role's session without
 * pg_read_all_stats, a prepared transaction, one that ended meanwhile) still counts, which only
 * delays. A long transaction in this database still holds events back while it runs.
 */
export const EVENT_HORIZON_SQL = `coalesce(
  (SELECT min(x) FROM pg_snapshot_xip(pg_current_snapshot()) AS x
    WHERE x::xid NOT IN (SELECT backend_xid FROM pg_stat_activity WHERE datname <> current_database() AND backend_xid IS NOT NULL)),
  pg_snapshot_xmax(pg_current_snapshot()))`;

const EVENT_COLUMNS = `e.seq::text AS seq, e.id, e.type, e."clientId" AS "clientId", e."userId" AS "userId", e."worldId" AS "worldId", e.data,
  floor(extract(epoch FROM e."createdAt"))::int8 AS "createdAt"`;

function toStoredEvent(row: Record<string, unknown>): StoredEvent {
  return {
    seq: String(row.seq),
    id: String(row.id),
    type: row.type as EventType,
    clientId: (row.clientId as string | null) ?? null,
    userId: (row.userId as number | null) ?? null,
    worldId: Number(row.worldId ?? 0),
    data: row.data as Record<string, unknown>,
    createdAt: Number(row.createdAt),
  };
}

/** A constant of the catalog as an SQL literal (the catalog is code, never input). */
const sqlLiteral = (value: string | null) => (value === null ? "NULL::text" : `'${value.replace(/'/g, "''")}'`);

/** EVENT_AUDIENCE as rows (type, own, scope, grant), written into the fan-out's SQL from the catalog. */
const AUDIENCE_ROWS_SQL = `(VALUES ${EVENT_TYPES.map((type) => {
  const a = EVENT_AUDIENCE[type];
  return `(${sqlLiteral(type)}, ${a.own}, ${sqlLiteral(a.scope)}, ${a.grant})`;
}).join(", ")}) AS aud(type, own, scope, "grant")`;

/** Event types that need the person's consent (the attempt's load reads it for these only). */
const GRANT_TYPES_SQL = EVENT_TYPES.filter((t) => EVENT_AUDIENCE[t].grant).map(sqlLiteral).join(", ") || "NULL";

/** A notification of a portal-only kind (lib/events/audience.ts): for no app. */
const PORTAL_ONLY_SQL = `(ev.type = 'notification.created' AND coalesce(ev.data->>'type' IN (${PORTAL_ONLY_NOTIFICATION_TYPES.map(sqlLiteral).join(", ")}), false))`;

/**
 * The attempts of the events in `ev` (txid, seq, id, type, clientId, userId, worldId, data): the
 * audience rule of lib/events/audience.ts for a batch, per world. tests/events/audience.test.ts runs
 * it against that predicate over every type of the catalog.
 */
export const FANOUT_TARGETS_SQL = `
    SELECT w.id AS endpoint_id, w."clientId" AS client_id, ev.seq, ev.id AS event_id, ev.type, ev.txid
    FROM ev
    JOIN ${AUDIENCE_ROWS_SQL} ON aud.type = ev.type
    JOIN "WebhookEndpoint" w ON w.enabled AND (cardinality(w.events) = 0 OR ev.type = ANY (w.events))
    JOIN "Application" a ON a."clientId" = w."clientId"
    -- A ping's one attempt is written with it (lib/services/webhooks.ts sendTestEvent).
    WHERE ev."worldId" = 0 AND ev.type <> 'ping' AND NOT ${PORTAL_ONLY_SQL} AND CASE
      WHEN aud.own THEN w."clientId" = ev."clientId"
      ELSE ${appLiveSql("a.status", "live")} AND aud.scope = ANY (a.scopes)
        AND (NOT aud."grant" OR EXISTS (
          SELECT 1 FROM "Consent" c JOIN "User" u ON u.id = c."userId"
          WHERE c."userId" = ev."userId" AND c."clientId" = a."clientId" AND aud.scope = ANY (c.scopes) AND NOT u.disabled))
    END
    UNION ALL
    -- A sandbox's events, to its own endpoints only.
    SELECT w.id, w."clientId", ev.seq, ev.id, ev.type, ev.txid
    FROM ev
    JOIN ${AUDIENCE_ROWS_SQL} ON aud.type = ev.type
    JOIN "Sandbox" s ON s.id = ev."worldId"
    JOIN "Application" a ON a.id = s."applicationId"
    JOIN "WebhookEndpoint" w ON w."clientId" = s."clientId" AND w.enabled AND (cardinality(w.events) = 0 OR ev.type = ANY (w.events))
    WHERE ev."worldId" <> 0 AND ev.type <> 'ping' AND NOT ${PORTAL_ONLY_SQL} AND ${appLiveSql("a.status", "sandbox")} AND CASE
      WHEN aud.own THEN w."clientId" = ev."clientId"
      WHEN a."pendingChange" ? 'scopes' THEN a."pendingChange"->'scopes' ? aud.scope
      ELSE aud.scope = ANY (a.scopes)
    END
    ORDER BY txid, seq`;

/** An attempt's app (appKey in SQL): a sandbox client's attempts count against its app's share. */
const APP_KEY_SQL = (column: string) =>
  `CASE WHEN left(${column}, ${SANDBOX_CLIENT_PREFIX.length}) = '${SANDBOX_CLIENT_PREFIX}' THEN substr(${column}, ${SANDBOX_CLIENT_PREFIX.length + 1}) ELSE ${column} END`;

/**
 * $1/$2 the cursor, $3 the batch size (events), $4 how many of the new rows this process takes,
 * $5 their lease in seconds, $6/$7 the apps this process holds attempts of and the room left in
 * their share, $8 an app's whole share. It takes new rows in order, each app's up to the room in its
 * share, so an app's pile-up is never taken past its share (and never handed back); the rest stay
 * free for any process. The batch ends with the event whose attempts fill the room, so it writes
 * few attempts that no process holds (each would cost a claim, a second write). Runs in the
 * transaction holding the cursor.
 */
const FANOUT_SQL = `
  WITH horizon AS MATERIALIZED (SELECT ${EVENT_HORIZON_SQL} AS txid),
  ev AS (
    SELECT e.txid, e.seq, e.id, e.type, e."clientId", e."userId", e."worldId", e.data FROM "Event" e
    WHERE (e.txid, e.seq) > ($1::xid8, $2::int8) AND e.txid < (SELECT txid FROM horizon)
    ORDER BY e.txid, e.seq LIMIT $3
  ),
  targets AS (${FANOUT_TARGETS_SQL}
  ),
  shared AS (
    SELECT t.*, row_number() OVER (PARTITION BY t.app ORDER BY t.txid, t.seq, t.endpoint_id) <= coalesce(s.room, $8) AS in_share
    FROM (SELECT targets.*, ${APP_KEY_SQL("targets.client_id")} AS app FROM targets) t
    LEFT JOIN unnest($6::text[], $7::int[]) AS s(app, room) ON s.app = t.app
  ),
  counted AS (
    -- the attempts this process takes, counted in event order
    SELECT shared.*, count(*) FILTER (WHERE in_share) OVER (ORDER BY txid, seq, endpoint_id ROWS UNBOUNDED PRECEDING) AS n
    FROM shared
  ),
  -- what this process can take of the batch's apps: the room in their shares, at most the room
  capacity AS (
    SELECT least($4, coalesce(sum(coalesce(s.room, $8)), 0)) AS n
    FROM (SELECT DISTINCT app FROM shared) a LEFT JOIN unnest($6::text[], $7::int[]) AS s(app, room) ON s.app = a.app
  ),
  -- the batch ends with the event whose attempts fill that: what follows waits for the next one
  cut AS (SELECT txid, seq FROM counted WHERE n >= greatest(1, (SELECT n FROM capacity)) ORDER BY txid, seq LIMIT 1),
  kept AS (SELECT txid, seq FROM ev WHERE NOT EXISTS (SELECT 1 FROM cut) OR (txid, seq) <= (SELECT txid, seq FROM cut)),
  inserted AS (
    INSERT INTO "WebhookDelivery" (id, "endpointId", "clientId", "eventSeq", "eventId", "eventType", attempt, state, "lockedUntil", "createdAt")
    SELECT platform_public_id('dlv'), endpoint_id, client_id, seq, event_id, type, 1, 'pending',
           CASE WHEN in_share AND n <= $4 THEN timezone('UTC', now()) + make_interval(secs => $5) END, timezone('UTC', now())
    FROM counted WHERE (txid, seq) IN (SELECT txid, seq FROM kept)
    RETURNING id, "createdAt", "lockedUntil" IS NOT NULL AS taken
  ),
  last AS (SELECT txid, seq FROM kept ORDER BY txid DESC, seq DESC LIMIT 1),
  moved AS (UPDATE "EventCursor" c SET txid = last.txid, seq = last.seq FROM last WHERE c.name = '${CURSOR}' RETURNING 1)
  SELECT (SELECT count(*) FROM ev)::int AS events,
         (SELECT count(*) FROM kept)::int AS kept,
         -- committed events behind a transaction older than theirs: read at the next round
         EXISTS (SELECT 1 FROM "Event" e WHERE (e.txid, e.seq) > ($1::xid8, $2::int8) AND e.txid >= (SELECT txid FROM horizon)) AS held,
         coalesce((SELECT array_agg(id) FROM inserted WHERE taken), '{}') AS taken,
         -- one statement: every row it wrote has the same createdAt
         (SELECT min("createdAt")::text FROM inserted) AS taken_at,
         (SELECT count(*) FROM inserted WHERE NOT taken)::int AS left,
         (SELECT count(*) FROM inserted)::int AS written,
         (SELECT count(*) FROM moved)::int AS moved`;

/**
 * An event's columns and an endpoint's secrets come with the first of a batch's attempts that need
 * them (null on the others): a fan-out batch is many endpoints × many events, and the rows the
 * process parses and holds stay the size of an attempt, not of its event.
 */
const ONCE_PER_EVENT = (column: string) => `CASE WHEN row_number() OVER (PARTITION BY d."eventSeq" ORDER BY d.id) = 1 THEN ${column} END`;
const ONCE_PER_ENDPOINT = (column: string) => `CASE WHEN row_number() OVER (PARTITION BY d."endpointId" ORDER BY d.id) = 1 THEN ${column} END`;

/**
 * What an attempt needs: the delivery, its endpoint (null when deleted) and its event. The
 * delivery's createdAt (its partition key, as text: exact) comes along, and every later update of
 * the row names it with the id, so that update reads one partition.
 */
const ATTEMPT_COLUMNS = `d.id AS delivery_id, d."createdAt"::text AS created_at, d."endpointId" AS endpoint_id, d.attempt, d."clientId" AS client_id,
  w.url, w.enabled, ${ONCE_PER_ENDPOINT("w.secrets")} AS secrets, w."failingSince" AS failing_since, e.seq IS NOT NULL AS has_event,
  e.seq::text AS seq, ${ONCE_PER_EVENT("e.id")} AS id, ${ONCE_PER_EVENT("e.type")} AS type, ${ONCE_PER_EVENT('e."clientId"')} AS "clientId",
  ${ONCE_PER_EVENT('e."userId"')} AS "userId", ${ONCE_PER_EVENT('e."worldId"')} AS "worldId", ${ONCE_PER_EVENT("e.data")} AS data,
  ${ONCE_PER_EVENT('floor(extract(epoch FROM e."createdAt"))::int8')} AS "createdAt",
  coalesce(la.status, sa.status)::text AS app_status, coalesce(s.id, ${LIVE_WORLD_ID}) AS app_world,
  CASE WHEN sa."pendingChange" ? 'scopes' THEN ARRAY(SELECT jsonb_array_elements_text(sa."pendingChange"->'scopes')) ELSE coalesce(la.scopes, sa.scopes) END AS app_scopes,
  CASE WHEN cu.disabled THEN NULL ELSE c.scopes END AS consent_scopes`;

/**
 * What the audience rule needs of an attempt's receiver, read with it (no statement of its own): the
 * app (a sandbox endpoint's through its Sandbox row), and the consent of the event's person where
 * the type needs one.
 */
const AUDIENCE_JOINS = `
  LEFT JOIN "Application" la ON la."clientId" = d."clientId"
  LEFT JOIN "Sandbox" s ON s."clientId" = d."clientId"
  LEFT JOIN "Application" sa ON sa.id = s."applicationId"
  LEFT JOIN "Consent" c ON e.type IN (${GRANT_TYPES_SQL}) AND c."userId" = e."userId" AND c."clientId" = d."clientId"
  LEFT JOIN "User" cu ON cu.id = c."userId"`;

const LOAD_SQL = `
  SELECT ${ATTEMPT_COLUMNS}
  FROM "WebhookDelivery" d LEFT JOIN "Event" e ON e.seq = d."eventSeq" LEFT JOIN "WebhookEndpoint" w ON w.id = d."endpointId" ${AUDIENCE_JOINS}
  WHERE d.id = ANY ($1::text[]) AND d."createdAt" = $2::timestamp AND d.state = 'pending'`;

/**
 * Takes up to $1 pending attempts that are due and not held (or whose holder's lease ran out), for
 * $2 seconds, leaving those of the clients in $3 (apps holding their share in this process).
 */
const CLAIM_SQL = `
  WITH due AS (
    SELECT id, "createdAt", "lockedUntil" IS NOT NULL AS taken_over FROM "WebhookDelivery"
    WHERE state = 'pending' AND "createdAt" <= timezone('UTC', now())
      AND ("lockedUntil" IS NULL OR "lockedUntil" < timezone('UTC', now()))
      AND NOT ("clientId" = ANY ($3::text[]))
    ORDER BY "createdAt" LIMIT $1 FOR UPDATE SKIP LOCKED
  ),
  d AS (
    UPDATE "WebhookDelivery" x SET "lockedUntil" = timezone('UTC', now()) + make_interval(secs => $2)
    FROM due WHERE x.id = due.id AND x."createdAt" = due."createdAt" RETURNING x.*, due.taken_over
  )
  SELECT ${ATTEMPT_COLUMNS}, d.taken_over
  FROM d LEFT JOIN "Event" e ON e.seq = d."eventSeq" LEFT JOIN "WebhookEndpoint" w ON w.id = d."endpointId" ${AUDIENCE_JOINS}`;

/** Successes, in one statement: the attempts delivered, and their endpoints' failing marks cleared. */
const DELIVERED_SQL = `
  WITH r AS (SELECT * FROM unnest($1::text[], $2::timestamp[], $3::int[], $4::int[], $5::text[]) AS r(id, created_at, status, latency, response)),
  done AS (
    UPDATE "WebhookDelivery" d SET state = 'delivered', "statusCode" = r.status, error = NULL, "latencyMs" = r.latency,
           response = r.response, "lockedUntil" = NULL
    FROM r WHERE d.id = r.id AND d."createdAt" = r.created_at AND d.state = 'pending'
    RETURNING d."endpointId"
  )
  UPDATE "WebhookEndpoint" w SET "failingSince" = NULL WHERE w."failingSince" IS NOT NULL AND w.id IN (SELECT "endpointId" FROM done)`;

interface AttemptRow {
  delivery_id: string;
  /** The delivery's createdAt as PostgreSQL writes it (its partition key). */
  created_at: string;
  endpoint_id: string;
  attempt: number;
  client_id: string;
  url: string | null;
  enabled: boolean | null;
  /** The endpoint's secrets, on the first of a batch's attempts to it only (ONCE_PER_ENDPOINT). */
  secrets: SecretBox[] | null;
  failing_since: Date | null;
  has_event: boolean;
  seq: string | null;
  /** The receiving app's review status; null when the app is gone. */
  app_status: string | null;
  /** 0 for a live endpoint, else its sandbox's world. */
  app_world: number;
  /** Its approved scopes (a sandbox's: its pending change's, if any). */
  app_scopes: string[] | null;
  /** The event's person's consent to this client, for types that need one; null when none or the person is disabled. */
  consent_scopes: string[] | null;
}

/** A signing secret as the endpoint stores it: sealed, and when it stops signing (a rotated-out one). */
interface SecretBox {
  box: string;
  expiresAt?: string;
}

interface Attempt {
  row: AttemptRow;
  /** One object for all the attempts of a batch to the same event. */
  event: StoredEvent | null;
  /** The endpoint's secrets, one array for all the attempts of a batch to the same endpoint. */
  secrets: readonly SecretBox[];
  /** The app whose share it counts against (appKey). */
  app: string;
}

interface Outcome {
  attempt: Attempt;
  /** Null: not sent, for `skipped`. */
  result: DeliveryResult | null;
  /** Why it was not sent: `disabled` (the endpoint is disabled or gone, or the event is), or the audience rule's refusal. */
  skipped?: string;
}

/** An app's live and sandbox endpoints share one share of the slots. */
function appKey(clientId: string): string {
  return isSandboxClientId(clientId) ? clientId.slice(SANDBOX_CLIENT_PREFIX.length) : clientId;
}

/** The attempt's receiver as the audience rule sees it. */
function audienceOf(row: AttemptRow): Audience {
  return {
    clientId: row.client_id,
    worldId: row.app_world,
    status: row.app_status,
    scopes: row.app_scopes ?? [],
    userId: null,
    via: "webhook",
    granted: (_userId, scope) => row.consent_scopes?.includes(scope) ?? false,
  };
}

/** Why this attempt may not be sent now, or null. */
function refusalOf({ row, event }: Attempt): string | null {
  if (!event) return null;
  if (row.app_status === null) return "app_deleted";
  return audienceRefusal(audienceOf(row), event);
}


function nextDelay(attempt: number): number | null {
  const schedule = env().WEBHOOK_RETRY_SCHEDULE;
  const seconds = schedule[attempt - 1];
  if (seconds === undefined) return null;
  return seconds * 1000 * (0.8 + Math.random() * 0.4);
}

/** Small caches of what every attempt of an event or endpoint shares; cleared when they grow. */
class Memo<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(key: string, make: () => V): V {
    let value = this.map.get(key);
    if (value === undefined) {
      if (this.map.size >= this.max) this.map.clear();
      value = make();
      this.map.set(key, value);
    }
    return value;
  }
}

/** One process's share of webhook delivery. */
class DeliveryLoop {
  private readonly concurrency: number;
  private readonly leaseSeconds: number;
  private readonly maxHeld: number;
  private readonly perAppSlots: number;
  private readonly perAppHeld: number;
  /**
   * Attempts waiting for a slot, per app (appKey) and endpoint. The apps are served in rotation: one
   * that got a slot goes to the back (a Map keeps insertion order), as does its endpoint.
   */
  private readonly queues = new Map<string, Map<string, Attempt[]>>();
  /** Attempts running, per endpoint and per app. */
  private readonly running = new Map<string, number>();
  private readonly appRunning = new Map<string, number>();
  private inFlight = 0;
  /** Every attempt this process has taken and not yet recorded (id → createdAt, app): its lease is renewed. */
  private readonly held = new Map<string, { createdAt: string; app: string; leasedAt: number }>();
  private readonly appHeld = new Map<string, number>();
  private outcomes: Outcome[] = [];
  private flushTimer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private cycling: Promise<void> | null = null;
  private again = false;
  /**
   * What may have work: the fan-out (an event was announced, the last batch was full or held back)
   * and the claim (attempts wait free in the table: a retry due, a redelivery, rows a fan-out did not
   * take, an app at its share here). The poll sets both. A cycle runs only the steps that may find
   * something, so a recorded batch's refill is not a fan-out transaction and a claim every time.
   */
  private readonly due = { fanout: true, claim: true };
  /** Attempts per event in the last fan-outs: the next batch's events are sized to the room left. */
  private attemptsPerEvent = 1;
  private stopping = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private dueTimer: { at: number; timer: NodeJS.Timeout } | null = null;
  private readonly idle = new Set<() => void>();
  /** An event's body as sent (UTF-8), made once for every endpoint and attempt. */
  private readonly bodies = new Memo<Buffer>(2048);
  private readonly secrets = new Memo<Promise<string>>(1024);
  /** Signers by the secrets array a batch shares between an endpoint's attempts; made again once a secret in it expires. */
  private readonly signers = new WeakMap<readonly SecretBox[], { validUntil: number; made: Promise<WebhookSigner>; ready: WebhookSigner | null }>();

  constructor(private readonly render: EventRenderer) {
    this.concurrency = env().EVENT_WORKER_CONCURRENCY;
    this.leaseSeconds = env().EVENT_WORKER_STALE_SECONDS;
    this.maxHeld = this.concurrency * HELD_PER_SLOT;
    this.perAppSlots = Math.max(1, Math.floor(this.concurrency * APP_SHARE_OF_SLOTS));
    this.perAppHeld = Math.max(this.perAppSlots, Math.floor(this.maxHeld * APP_SHARE_OF_HELD));
  }

  start(): () => void {
    const unsubscribe = onChange((change) => {
      if (change.kind === "event") this.kick({ fanout: true });
      else if (change.kind === "delivery") this.kick({ claim: true });
      else if (change.kind === "all") this.kick({ fanout: true, claim: true });
    });
    const poll = setInterval(() => this.kick({ fanout: true, claim: true }), POLL_MS);
    const renew = setInterval(() => void this.renew(), (this.leaseSeconds * 1000) / 3);
    poll.unref();
    renew.unref();
    this.timers.push(poll, renew);
    this.kick();
    return unsubscribe;
  }

  /** Fans out and takes work, now or right after the cycle running now; `work` says which steps may find some. */
  kick(work: { fanout?: boolean; claim?: boolean } = {}): void {
    if (work.fanout) this.due.fanout = true;
    if (work.claim) this.due.claim = true;
    if (this.stopping) return;
    if (this.cycling) {
      this.again = true;
      return;
    }
    this.cycling = this.cycle()
      .catch((error: Error) => logger.warn("webhook delivery: taking work failed", { error: error.message }))
      .finally(() => {
        this.cycling = null;
        this.settleIdle();
      });
  }

  private async cycle(): Promise<void> {
    do {
      this.again = false;
      let room = this.maxHeld - this.held.size;
      if (room <= 0) return; // a recorded outcome kicks again, the steps still due
      if (this.due.fanout) {
        this.due.fanout = false;
        const fanned = await this.fanout(room);
        room -= fanned.taken;
        if (fanned.more) this.due.fanout = this.again = true;
        if (fanned.left) this.due.claim = true;
      }
      if (room > 0 && this.due.claim && !this.stopping) {
        this.due.claim = false;
        const full = this.fullApps();
        const limit = Math.min(room, CLAIM_BATCH);
        // Named: planned once per connection (its tables are partitioned, ~12 partitions each), not at every poll.
        countWebhookQueueTransaction("claim");
        const leasedAt = Date.now();
        const { rows } = await pool.query<AttemptRow & { taken_over: boolean } & Record<string, unknown>>({
          name: "webhook-claim-v3",
          text: CLAIM_SQL,
          values: [limit, this.leaseSeconds, full],
        });
        // A lease that ran out: its holder stopped (killed mid-delivery) and this process takes over.
        const takenOver = rows.filter((r) => r.taken_over).length;
        if (takenOver) logger.warn("webhook delivery: attempts of a stopped process taken over", { attempts: takenOver });
        await this.enqueue(rows, leasedAt);
        if (rows.length === limit) this.due.claim = this.again = true;
        // Apps left out at their share: their attempts are taken once they have room (a recorded batch kicks).
        else if (full.length) this.due.claim = true;
      }
    } while (this.again && !this.stopping);
  }

  /**
   * One fan-out batch, if no other process holds the cursor; takes up to `room` of the new attempts,
   * each app's up to its share. The batch's events are as many as the room is likely to hold (from
   * the attempts per event of the last ones), so few attempts are written that no process holds.
   * `more`: events may be waiting after it; `left`: it wrote attempts it did not take.
   */
  private async fanout(room: number): Promise<{ taken: number; more: boolean; left: boolean }> {
    const client = await pool.connect();
    countWebhookQueueTransaction("fanout");
    const leasedAt = Date.now();
    let taken: string[] = [];
    let takenAt = "";
    let more = false;
    let left = false;
    const batch = Math.max(1, Math.min(FANOUT_BATCH, Math.ceil(room / this.attemptsPerEvent)));
    const shares = [...this.appHeld].filter(([, n]) => n > 0);
    try {
      await client.query("BEGIN");
      const { rows: [cursor] } = await client.query<{ txid: string; seq: string }>(
        `SELECT txid::text AS txid, seq::text AS seq FROM "EventCursor" WHERE name = $1 FOR UPDATE SKIP LOCKED`,
        [CURSOR],
      );
      if (cursor) {
        const { rows: [result] } = await client.query<{ events: number; kept: number; held: boolean; taken: string[]; taken_at: string | null; left: number; written: number }>(
          FANOUT_SQL,
          [
            cursor.txid, cursor.seq, batch, room, this.leaseSeconds,
            shares.map(([app]) => app), shares.map(([, n]) => Math.max(0, this.perAppHeld - n)), this.perAppHeld,
          ],
        );
        taken = result!.taken;
        takenAt = result!.taken_at ?? "";
        more = result!.events === batch || result!.kept < result!.events;
        left = result!.left > 0;
        if (result!.kept > 0) this.attemptsPerEvent = Math.max(1, (this.attemptsPerEvent + result!.written / result!.kept) / 2);
        if (result!.held) this.wakeAt(Date.now() + HELD_RETRY_MS);
        // What this process has no room for: the other processes take it now.
        if (result!.left > 0) await client.query(`SELECT pg_notify('platform_changes', '{"kind":"delivery"}')`);
      }
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
    if (taken.length) {
      countWebhookQueueTransaction("load");
      const { rows } = await pool.query<AttemptRow & Record<string, unknown>>(LOAD_SQL, [taken, takenAt]);
      // A taken row not found was recorded meanwhile: its lease simply runs out.
      await this.enqueue(rows, leasedAt);
    }
    return { taken: taken.length, more, left };
  }

  /** Client ids (live and sandbox) of the apps that hold their share of attempts here: taking more of theirs waits. */
  private fullApps(): string[] {
    const full: string[] = [];
    for (const [app, n] of this.appHeld) if (n >= this.perAppHeld) full.push(app, SANDBOX_CLIENT_PREFIX + app);
    return full;
  }

  private hold(id: string, createdAt: string, app: string, leasedAt: number): void {
    if (this.held.has(id)) return;
    this.held.set(id, { createdAt, app, leasedAt });
    this.appHeld.set(app, (this.appHeld.get(app) ?? 0) + 1);
  }

  private release(id: string): void {
    const held = this.held.get(id);
    if (!held) return;
    this.held.delete(id);
    const left = (this.appHeld.get(held.app) ?? 1) - 1;
    if (left > 0) this.appHeld.set(held.app, left);
    else this.appHeld.delete(held.app);
  }

  /** Holds and queues what was taken, up to each app's share; the rest is handed back to the table at once. */
  /** `leasedAt`: when the statement that took them started (their lease runs from no earlier). */
  private async enqueue(rows: (AttemptRow & Record<string, unknown>)[], leasedAt: number): Promise<void> {
    // Each event's data and each endpoint's secrets came once (with the first row needing them).
    const events = new Map<string, StoredEvent>();
    const secrets = new Map<string, SecretBox[]>();
    for (const row of rows) {
      if (row.has_event && row.data !== null && !events.has(row.seq!)) events.set(row.seq!, toStoredEvent(row));
      if (row.secrets !== null && !secrets.has(row.endpoint_id)) secrets.set(row.endpoint_id, row.secrets);
    }
    const over: AttemptRow[] = [];
    for (const row of rows) {
      const app = appKey(row.client_id);
      if (!this.held.has(row.delivery_id) && (this.appHeld.get(app) ?? 0) >= this.perAppHeld) {
        over.push(row);
        continue;
      }
      this.hold(row.delivery_id, row.created_at, app, leasedAt);
      const attempt: Attempt = { row, event: row.has_event ? (events.get(row.seq!) ?? null) : null, secrets: secrets.get(row.endpoint_id) ?? [], app };
      let endpoints = this.queues.get(app);
      if (!endpoints) this.queues.set(app, (endpoints = new Map()));
      const queue = endpoints.get(row.endpoint_id);
      if (queue) queue.push(attempt);
      else endpoints.set(row.endpoint_id, [attempt]);
    }
    this.pump();
    if (over.length) await this.unlock(over);
  }

  /** Attempts this process took but will not hold: free for any process at once (this one skips their apps while full). */
  private async unlock(rows: readonly AttemptRow[]): Promise<void> {
    countWebhookQueueTransaction("unlock");
    await pool
      .query(
        `UPDATE "WebhookDelivery" d SET "lockedUntil" = NULL FROM unnest($1::text[], $2::timestamp[]) AS q(id, created_at)
         WHERE d.id = q.id AND d."createdAt" = q.created_at AND d.state = 'pending'`,
        [rows.map((r) => r.delivery_id), rows.map((r) => r.created_at)],
      )
      .catch((error: Error) => logger.warn("webhook delivery: handing back attempts failed", { error: error.message }));
  }

  /**
   * Starts queued attempts while slots are free: apps in rotation, at most perAppSlots each, and
   * each app's endpoints in turn, at most PER_ENDPOINT_IN_FLIGHT each. An app served goes to the
   * back of the rotation, so the loop reaches it again only after every other app had its turn.
   */
  private pump(): void {
    for (const [app, endpoints] of this.queues) {
      if (this.inFlight >= this.concurrency || this.stopping) return;
      if ((this.appRunning.get(app) ?? 0) >= this.perAppSlots) continue;
      let next: [string, Attempt[]] | undefined;
      for (const entry of endpoints) {
        if ((this.running.get(entry[0]) ?? 0) < PER_ENDPOINT_IN_FLIGHT) {
          next = entry;
          break;
        }
      }
      if (!next) continue;
      const [endpointId, queue] = next;
      const attempt = queue.shift()!;
      endpoints.delete(endpointId);
      if (queue.length) endpoints.set(endpointId, queue);
      this.queues.delete(app);
      if (endpoints.size) this.queues.set(app, endpoints);
      this.launch(attempt, endpointId);
    }
  }

  private launch(attempt: Attempt, endpointId: string): void {
    const { app } = attempt;
    this.running.set(endpointId, (this.running.get(endpointId) ?? 0) + 1);
    this.appRunning.set(app, (this.appRunning.get(app) ?? 0) + 1);
    this.inFlight++;
    void this.send(attempt).then((outcome) => {
      this.inFlight--;
      const left = (this.running.get(endpointId) ?? 1) - 1;
      if (left > 0) this.running.set(endpointId, left);
      else this.running.delete(endpointId);
      const appLeft = (this.appRunning.get(app) ?? 1) - 1;
      if (appLeft > 0) this.appRunning.set(app, appLeft);
      else this.appRunning.delete(app);
      this.record(outcome);
      this.pump();
    });
  }

  private async send(attempt: Attempt): Promise<Outcome> {
    const { row, event } = attempt;
    if (!row.url || !row.enabled || !event) return { attempt, result: null, skipped: "disabled" };
    // Asked again before every attempt: a consent revoked, a scope removed or an app suspended since the event stops it here.
    const refusal = refusalOf(attempt);
    if (refusal) return { attempt, result: null, skipped: refusal };
    try {
      const body = this.bodies.get(event.seq, () => Buffer.from(JSON.stringify(this.render(event)), "utf8"));
      const now = Date.now();
      const signer = this.signerOf(attempt.secrets, now);
      // Signed when sent (webhook-timestamp is the attempt's), with keys decoded once per secret set.
      const sign = typeof signer === "function" ? signer : await signer;
      const result = await deliverWebhook({ url: row.url, body, headers: sign(event.id, Math.floor(now / 1000), body) });
      return { attempt, result };
    } catch (error) {
      // deliverWebhook never throws; rendering or a secret that cannot be opened does.
      logger.error("webhook delivery: attempt not sent", { delivery: row.delivery_id, error: (error as Error).message });
      return { attempt, result: { ok: false, statusCode: null, error: "network", latencyMs: 0, responseBody: "" } };
    }
  }

  /** The endpoint's signer: its secrets that have not expired, opened once (a promise the first time). */
  private signerOf(boxes: readonly SecretBox[], now: number): WebhookSigner | Promise<WebhookSigner> {
    let entry = this.signers.get(boxes);
    if (!entry || now >= entry.validUntil) {
      const live = boxes.filter((s) => !s.expiresAt || Date.parse(s.expiresAt) > now);
      const validUntil = Math.min(Infinity, ...live.flatMap((s) => (s.expiresAt ? [Date.parse(s.expiresAt)] : [])));
      const made = Promise.all(live.map((s) => this.secrets.get(s.box, () => openSecret(s.box)))).then(webhookSigner);
      const created: { validUntil: number; made: Promise<WebhookSigner>; ready: WebhookSigner | null } = { validUntil, made, ready: null };
      made.then(
        (signer) => (created.ready = signer),
        () => {},
      );
      this.signers.set(boxes, (entry = created));
    }
    return entry.ready ?? entry.made;
  }

  private record(outcome: Outcome): void {
    this.outcomes.push(outcome);
    if (this.outcomes.length >= FLUSH_AT) this.flush();
    else this.flushTimer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  /** Records the outcomes in hand (one after another: a flush never overtakes the previous one). */
  private flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    const batch = this.outcomes;
    this.outcomes = [];
    if (!batch.length) return;
    this.flushing = this.flushing
      .then(() => this.write(batch))
      .catch((error: Error) => logger.error("webhook delivery: recording outcomes failed", { error: error.message, attempts: batch.length }))
      .finally(() => {
        // Unrecorded ones stay pending; their leases run out and they are taken again.
        for (const { attempt } of batch) this.release(attempt.row.delivery_id);
        if (this.held.size < this.maxHeld / 2) this.kick();
        this.settleIdle();
      });
  }

  private async write(batch: Outcome[]): Promise<void> {
    const delivered = batch.filter((o) => o.result?.ok);
    const skipped = batch.reduce((n, o) => n + (o.result ? 0 : 1), 0);
    countWebhookDelivery("delivered", delivered.length);
    countWebhookDelivery("skipped", skipped);
    countWebhookDelivery("failed", batch.length - delivered.length - skipped);
    if (delivered.length) {
      countWebhookQueueTransaction("record");
      await pool.query(DELIVERED_SQL, [
        delivered.map((o) => o.attempt.row.delivery_id),
        delivered.map((o) => o.attempt.row.created_at),
        delivered.map((o) => o.result!.statusCode),
        delivered.map((o) => Math.round(o.result!.latencyMs)),
        delivered.map((o) => o.result!.responseBody.slice(0, 1024)),
      ]);
    }
    for (const outcome of batch) {
      if (outcome.result?.ok) continue;
      const at = await recordFailure(outcome);
      if (at !== null) this.wakeAt(at);
    }
  }

  /** A retry falls due at `at`: this process looks then (the poll would, up to POLL_MS later). */
  private wakeAt(at: number): void {
    if (this.stopping || (this.dueTimer && this.dueTimer.at <= at)) return;
    if (this.dueTimer) clearTimeout(this.dueTimer.timer);
    const timer = setTimeout(() => {
      this.dueTimer = null;
      this.kick({ fanout: true, claim: true });
    }, Math.max(0, at - Date.now()) + 5);
    timer.unref();
    this.dueTimer = { at, timer };
  }

  /**
   * Renews the leases that need it: those taken or renewed more than a sixth of a lease ago. This
   * runs every third of a lease, so a lease is renewed while at least half of it is left; at
   * saturation most attempts are recorded before their first renewal, which writes nothing for them.
   */
  private async renew(): Promise<void> {
    const started = Date.now();
    const due = [...this.held].filter(([, h]) => started - h.leasedAt >= (this.leaseSeconds * 1000) / 6);
    if (!due.length) return;
    countWebhookQueueTransaction("renew");
    await pool
      .query(
        `UPDATE "WebhookDelivery" d SET "lockedUntil" = timezone('UTC', now()) + make_interval(secs => $3)
         FROM unnest($1::text[], $2::timestamp[]) AS h(id, created_at) WHERE d.id = h.id AND d."createdAt" = h.created_at AND d.state = 'pending'`,
        [due.map(([id]) => id), due.map(([, h]) => h.createdAt), this.leaseSeconds],
      )
      .then(() => {
        for (const [, h] of due) h.leasedAt = started;
      })
      .catch((error: Error) => logger.warn("webhook delivery: renewing leases failed", { error: error.message }));
  }

  private settleIdle(): void {
    if (this.cycling || this.inFlight || this.outcomes.length || this.held.size > this.queuedCount()) return;
    for (const resolve of this.idle) resolve();
    this.idle.clear();
  }

  /** Attempts this process holds: queued, running, or waiting to be recorded (the queue-depth gauge). */
  heldCount(): number {
    return this.held.size;
  }

  private queuedCount(): number {
    let n = 0;
    for (const endpoints of this.queues.values()) for (const queue of endpoints.values()) n += queue.length;
    return n;
  }

  /** Stops taking work, lets running attempts finish and be recorded, and hands back what was queued. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const timer of this.timers) clearInterval(timer);
    if (this.dueTimer) clearTimeout(this.dueTimer.timer);
    await this.cycling;
    const queued = [...this.queues.values()].flatMap((endpoints) => [...endpoints.values()].flat()).map((a) => a.row);
    this.queues.clear();
    for (const row of queued) this.release(row.delivery_id);
    if (queued.length) await this.unlock(queued);
    await new Promise<void>((resolve) => {
      this.idle.add(resolve);
      this.settleIdle();
    });
    this.flush();
    await this.flushing;
  }
}

/**
 * A failed attempt, in one transaction: the attempt marked failed, the next one scheduled (if any
 * are left), and the endpoint's failing mark or disabling. Returns when the next attempt is due.
 */
async function recordFailure({ attempt: { row, event }, result, skipped }: Outcome): Promise<number | null> {
  countWebhookQueueTransaction("record_failure");
  if (!result) {
    // Not sent, and never retried: the log's error says why (disabled, or the audience rule's refusal).
    await pool.query(
      `UPDATE "WebhookDelivery" SET state = 'failed', error = $3, "lockedUntil" = NULL WHERE id = $1 AND "createdAt" = $2::timestamp AND state = 'pending'`,
      [row.delivery_id, row.created_at, skipped ?? "disabled"],
    );
    return null;
  }
  const gone = result.statusCode === 410;
  const delay = gone || !event ? null : nextDelay(row.attempt);
  const nextAt = delay === null ? null : new Date(Date.now() + delay);
  await pgTransactionWithChanges(async (client) => {
    const { rowCount } = await client.query(
      `UPDATE "WebhookDelivery" SET state = 'failed', "statusCode" = $2, error = $3, "latencyMs" = $4, response = $5, "nextAttemptAt" = $6, "lockedUntil" = NULL
       WHERE id = $1 AND "createdAt" = $7::timestamp AND state = 'pending'`,
      [row.delivery_id, result.statusCode, result.error, Math.round(result.latencyMs), result.responseBody.slice(0, 1024), nextAt, row.created_at],
    );
    if (!rowCount) return; // recorded already (its lease ran out and another process took it)
    if (nextAt) {
      await client.query(
        `INSERT INTO "WebhookDelivery" (id, "endpointId", "clientId", "eventSeq", "eventId", "eventType", attempt, redelivery, state, "createdAt")
         SELECT platform_public_id('dlv'), "endpointId", "clientId", "eventSeq", "eventId", "eventType", attempt + 1, redelivery, 'pending', timezone('UTC', $2::timestamptz)
         FROM "WebhookDelivery" WHERE id = $1 AND "createdAt" = $3::timestamp`,
        [row.delivery_id, nextAt, row.created_at],
      );
    }
    await settleFailedEndpoint(client, row, gone);
  });
  return nextAt ? nextAt.getTime() : null;
}

/** 410 or three days of failures disable the endpoint (and tell the owner); otherwise it is marked failing. */
async function settleFailedEndpoint(client: pg.PoolClient, row: AttemptRow, gone: boolean): Promise<void> {
  const failingFor = row.failing_since ? Date.now() - row.failing_since.getTime() : 0;
  const reason = gone ? "gone" : failingFor > FAILING_DISABLE_AFTER_MS ? "failing" : null;
  if (!reason) {
    if (!row.failing_since) {
      await client.query(`UPDATE "WebhookEndpoint" SET "failingSince" = timezone('UTC', now()) WHERE id = $1 AND "failingSince" IS NULL`, [row.endpoint_id]);
    }
    return;
  }
  const { rowCount } = await client.query(
    `UPDATE "WebhookEndpoint" SET enabled = false, "disabledReason" = $2, "updatedAt" = timezone('UTC', now()) WHERE id = $1 AND enabled`,
    [row.endpoint_id, reason],
  );
  if (!rowCount) return;
  const why = reason === "gone" ? "its receiver answered 410 Gone" : "every delivery to it failed for 3 days";
  await client.query(
    // A sandbox endpoint (client sbx_…) tells its app's owner too.
    `INSERT INTO "Notification" ("userId", type, read, message, "createdAt")
     SELECT a."ownerId", 'app_review', false, $2, timezone('UTC', now()) FROM "Application" a
     WHERE a."clientId" = $1 OR a.id = (SELECT s."applicationId" FROM "Sandbox" s WHERE s."clientId" = $1)`,
    [
      row.client_id,
      `A ${isSandboxClientId(row.client_id) ? "sandbox " : ""}webhook endpoint of your app was disabled: ${why} (${row.url}). Fix the receiver, then enable it again on the app's Webhooks tab.`,
    ],
  );
  logger.warn("webhook endpoint disabled", { clientId: row.client_id, endpoint: row.endpoint_id, reason });
}

/** Pending attempts in the database, for the queue-depth gauge: counted up to 100000 (a bounded scan of the (state, createdAt) index). */
const PENDING_COUNT_SQL = `SELECT count(*)::int AS n FROM (SELECT 1 FROM "WebhookDelivery" WHERE state = 'pending' LIMIT 100000) p`;

/**
 * The backlog over all processes: events past the fan-out cursor (not fanned out yet) and the
 * events of attempts due and not recorded, and how long the oldest of that work has waited (an
 * event's time since it was written, an attempt's since it fell due). Each part is counted up to
 * 100000 rows, bounded scans of the cursor's order and the (state, createdAt) index.
 */
const BACKLOG_SQL = `
  WITH n AS (SELECT timezone('UTC', now()) AS at),
  unfanned AS (
    SELECT count(*)::int AS events, min(e."createdAt") AS oldest
    FROM (SELECT e."createdAt" FROM "Event" e, "EventCursor" c WHERE c.name = '${CURSOR}' AND (e.txid, e.seq) > (c.txid, c.seq) LIMIT 100000) e
  ),
  due AS (
    SELECT count(DISTINCT d."eventSeq")::int AS events, min(d."createdAt") AS oldest
    FROM (SELECT "eventSeq", "createdAt" FROM "WebhookDelivery", n WHERE state = 'pending' AND "createdAt" <= n.at LIMIT 100000) d
  )
  SELECT unfanned.events + due.events AS events,
         coalesce(extract(epoch FROM n.at - least(unfanned.oldest, due.oldest)), 0)::float8 AS oldest_seconds
  FROM unfanned, due, n`;

/** The backlog now (BACKLOG_SQL), for the metrics. */
async function readWebhookBacklog(): Promise<{ events: number; oldestSeconds: number }> {
  const { rows } = await pool.query<{ events: number; oldest_seconds: number }>(BACKLOG_SQL);
  return { events: rows[0]!.events, oldestSeconds: Math.max(0, rows[0]!.oldest_seconds) };
}

/** Events and delivery attempts are kept 7 days (the stream resumes from 24 h back, Last-Event-ID reaches 7 days, the log shows a week). */
const RETENTION_DAYS = 7;
const RETENTION_EVERY_MS = 3600 * 1000;
const DAY_MS = 24 * 3600 * 1000;
/** Day partitions kept created ahead (the job runs hourly; each partition is one more index scan for the readers). */
const PARTITIONS_AHEAD_DAYS = 2;
const DELIVERIES: DayPartitioned = { table: "WebhookDelivery", key: "createdAt" };
const EVENTS: DayPartitioned = { table: "Event", key: "createdAt" };

/**
 * Event and WebhookDelivery are range-partitioned by UTC day on "createdAt"
 * (prisma/migrations/…_partitioned_history). The job creates the partitions from yesterday to
 * PARTITIONS_AHEAD_DAYS ahead and drops the days past RETENTION_DAYS whole, carrying over into the
 * default partition what must outlive its day: a pending delivery (it is due and must never be
 * lost), and an event a kept delivery refers to (a retry or redelivery sends it). Deliveries go
 * first, so an event is kept exactly while a delivery still refers to it. Idempotent; safe in every
 * process at once (the partition functions take one advisory lock).
 */
export async function runEventRetention(nowMs = Date.now()): Promise<{ created: number; events: number; deliveries: number }> {
  const created = await ensureDayPartitions([EVENTS, DELIVERIES], new Date(nowMs - DAY_MS), new Date(nowMs + PARTITIONS_AHEAD_DAYS * DAY_MS));
  const before = new Date(nowMs - RETENTION_DAYS * DAY_MS);
  const deliveries = await dropDayPartitions(DELIVERIES, before, { keep: `r.state = 'pending'`, mutable: true });
  const events = await dropDayPartitions(EVENTS, before, { keep: `r.seq IN (SELECT "eventSeq" FROM "WebhookDelivery")` });
  return { created, events, deliveries };
}

/**
 * Starts this process's share of webhook delivery (and the hourly retention, idempotent in every
 * process); `stop()` lets running attempts finish. Concurrency 0: none (tests, the bench's twins).
 */
export function startEventWorker(render: EventRenderer): { stop(): Promise<void> } {
  if (env().EVENT_WORKER_CONCURRENCY === 0) return { async stop() {} };
  const loop = new DeliveryLoop(render);
  const unsubscribe = loop.start();
  watchWebhookQueue(
    () => loop.heldCount(),
    async () => (await pool.query<{ n: number }>(PENDING_COUNT_SQL)).rows[0]!.n,
    readWebhookBacklog,
  );
  let retention: NodeJS.Timeout;
  const runRetention = () => {
    runEventRetention()
      .then(({ events, deliveries }) => {
        if (events || deliveries) logger.info("events retention", { events, deliveries });
      })
      .catch((error: Error) => logger.warn("events retention failed", { error: error.message }))
      .finally(() => {
        retention = setTimeout(runRetention, RETENTION_EVERY_MS);
        retention.unref();
      });
  };
  retention = setTimeout(runRetention, Math.floor(RETENTION_EVERY_MS * Math.random()));
  retention.unref();
  return {
    async stop() {
      clearTimeout(retention);
      unsubscribe();
      await loop.stop();
    },
  };
}

/** A stored event by public id, for the renderer's callers (redelivery, the stream). */
export { toStoredEvent, EVENT_COLUMNS };
