import { randomUUID } from "node:crypto";
import pg from "pg";
import { z } from "zod";
import { db, pool, type Tx } from "./client";
import { pgTransaction } from "./transaction";
import { env } from "../env";
import { logger } from "../logger";
import { changeChannelMetrics } from "../metrics";

/**
 * The change channel (STYLE: "Changes that must reach every process"). A service that
 * changes what a cache holds announces it with PostgreSQL NOTIFY in the same transaction as the
 * change, so the message is delivered exactly when the change commits (and never when it rolls
 * back). Every server process LISTENs on one dedicated connection and drops the affected cache
 * entries on receipt; the acting process applies the change to its own caches right after the
 * commit, without waiting for the round trip. Caches keep their TTLs as the bound for when the
 * channel is down, and a reconnect drops every cache (messages may have been missed meanwhile).
 *
 * The LISTEN connection goes to DATABASE_DIRECT_URL (a transaction pooler such as PgBouncer
 * at DATABASE_URL would hand its session to others between statements and lose the LISTEN). At
 * start and on every reconnect the process sends itself a probe notification over the ordinary
 * pool; if it does not arrive, the channel is deaf: the log says so, and every cache the channel
 * invalidates is dropped every DEAF_CACHE_LIFETIME_MS (short lifetimes rather than stale control)
 * until a later probe is heard.
 */
export const CHANGES_CHANNEL = "platform_changes";

const changeSchema = z.discriminatedUnion("kind", [
  /** An application's status, metadata, secrets or token watermark. */
  z.object({ kind: z.literal("app"), clientId: z.string().min(1).max(2048) }),
  /** A user's flags (disabled, muted). */
  z.object({ kind: z.literal("user"), userId: z.number().int().positive() }),
  /** One person's grant for one app (consent revoked, tokens voided). */
  z.object({ kind: z.literal("grant"), userId: z.number().int().positive(), clientId: z.string().min(1).max(2048) }),
  /** Some of a person's sign-in sessions ended (portal sessions tied to them end too). */
  z.object({ kind: z.literal("session"), userId: z.number().int().positive() }),
  /** The admins' rules for AI agents' clients (a domain trusted, sent to review or blocked; issue 40). */
  z.object({ kind: z.literal("agents") }),
  /** The signing keys (rotation). */
  z.object({ kind: z.literal("keys") }),
  /** An Event row committed (its trigger announces it); the event streams read what is new. */
  z.object({ kind: z.literal("event"), seq: z.string().regex(/^\d{1,19}$/) }),
  /**
   * An MCP session's subscriptions changed (lib/services/mcp-sessions.ts): the resource URIs it is
   * subscribed to now, or null when the client ended the session (its stream closes).
   */
  z.object({ kind: z.literal("mcp_session"), sessionId: z.string().min(1).max(64), uris: z.array(z.string().max(200)).max(20).nullable() }),
  /** A webhook attempt is pending (a test event, a redelivery, work another process had no room for). */
  z.object({ kind: z.literal("delivery") }),
  /**
   * A caller wrote (a chat post, a poke); its replica-routed reads go to the primary until
   * the replicas have replayed `lsn` (lib/database/replicas.ts, read-your-writes).
   */
  z.object({
    kind: z.literal("wrote"),
    userId: z.number().int().positive().nullable(),
    clientId: z.string().min(1).max(2048).nullable(),
    lsn: z.string().regex(/^[0-9A-F]{1,8}\/[0-9A-F]{1,8}$/),
  }),
]);

/** The health probe a process sends itself; every other process ignores it. */
const probeSchema = z.object({ kind: z.literal("probe"), id: z.string().uuid() });

export type Change = z.infer<typeof changeSchema>;
/** What listeners receive: a change, or "all" after the channel was interrupted. */
export type ChangeEvent = Change | { kind: "all" };
export type ChangeListener = (event: ChangeEvent) => void;

/**
 * What this process knows of its channel: `connected` while its LISTEN connection is up, `deaf` once
 * a probe went unheard (until one is heard again).
 */
interface ChangeChannelHealth {
  connected: boolean;
  deaf: boolean;
}

// On globalThis: server.ts and Next's bundled server code are two module graphs in one process;
// both subscribe, one listener connection serves both.
const store = globalThis as unknown as { __platformChangeListeners?: Set<ChangeListener>; __platformChangeHealth?: ChangeChannelHealth };
const listeners = (store.__platformChangeListeners ??= new Set());
const health = (store.__platformChangeHealth ??= { connected: false, deaf: false });


/** Subscribes a cache to changes; returns the unsubscribe function. */
export function onChange(listener: ChangeListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Applies a change to this process's caches (on receipt, and after the acting transaction). */
export function applyChange(event: ChangeEvent): void {
  for (const listener of listeners) {
    try {
      listener(event);
    } catch (error) {
      logger.error("change listener failed", { kind: event.kind, error: (error as Error).message });
    }
  }
}

/** NOTIFY inside a Prisma transaction: delivered to every listener when (and only if) it commits. */
export async function publishChange(tx: Tx, change: Change): Promise<void> {
  await tx.$executeRaw`SELECT pg_notify(${CHANGES_CHANNEL}, ${JSON.stringify(change)})`;
}

/** NOTIFY on a raw pg client, inside its transaction. */
async function publishChangeWith(client: Pick<pg.ClientBase, "query">, change: Change): Promise<void> {
  await client.query("SELECT pg_notify($1, $2)", [CHANGES_CHANNEL, JSON.stringify(change)]);
}

/**
 * A Prisma transaction whose changes are announced: `announce` publishes inside the transaction,
 * and after the commit this process applies them at once (the NOTIFY echo arrives a moment later
 * and is harmless).
 */
export async function transactionWithChanges<T>(
  work: (tx: Tx, announce: (change: Change) => Promise<void>) => Promise<T>,
): Promise<T> {
  const changes: Change[] = [];
  const result = await db.$transaction(async (tx) =>
    work(tx, async (change) => {
      changes.push(change);
      await publishChange(tx, change);
    }),
  );
  for (const change of changes) applyChange(change);
  return result;
}

/**
 * The same on one raw pg connection of the pool (for the paths that stay on `pg`: the sign-in
 * service's storage, the signing keys): pgTransaction, then the announced changes are applied in
 * this process.
 */
export async function pgTransactionWithChanges<T>(
  work: (client: pg.PoolClient, announce: (change: Change) => Promise<void>) => Promise<T>,
): Promise<T> {
  const changes: Change[] = [];
  const result = await pgTransaction(pool, (client) =>
    work(client, async (change) => {
      changes.push(change);
      await publishChangeWith(client, change);
    }),
  );
  for (const change of changes) applyChange(change);
  return result;
}

export interface ChangeListenerHandle {
  /** Resolves once the first LISTEN succeeded (or immediately if already connected). */
  ready: Promise<void>;
  stop(): Promise<void>;
}

const BACKOFF_START_MS = 100;
const BACKOFF_MAX_MS = 5_000;
/** A silent network drops no connection by itself: a periodic round trip finds out. */
const HEARTBEAT_MS = 10_000;
const HEARTBEAT_TIMEOUT_MS = 5_000;
/** How long a probe notification may take to come back before the channel is called deaf. */
const PROBE_TIMEOUT_MS = 2_000;
/**
 * While the channel is deaf, every cache it would invalidate (access statuses, sign-in clients,
 * signing keys; the event streams' and webhook worker's wake-ups) is dropped this often, so a
 * control action taken elsewhere holds here within this bound instead of the caches' TTLs.
 */
export const DEAF_CACHE_LIFETIME_MS = 500;

/**
 * LISTENs on one dedicated connection (application_name `platform-changes`, so operators can see
 * it in pg_stat_activity), reconnecting with exponential backoff. After every reconnect all caches
 * are dropped, since changes may have been committed while nobody listened.
 */
export function startChangeListener(): ChangeListenerHandle {
  let client: pg.Client | undefined;
  let stopped = false;
  let delay = BACKOFF_START_MS;
  let connectedOnce = false;
  let retry: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  /** Probes this process sent and waits for, by id. */
  const probes = new Map<string, () => void>();
  let deafTicker: NodeJS.Timeout | undefined;

  const setDeaf = (deaf: boolean, detail: Record<string, unknown>) => {
    if (deaf === health.deaf) return;
    health.deaf = deaf;
    changeChannelMetrics.deaf(deaf);
    if (deaf) {
      logger.error(
        `change channel is deaf: LISTEN did not hear this process's own notification within ${PROBE_TIMEOUT_MS} ms. ` +
          `Is DATABASE_URL a transaction pooler (PgBouncer) without DATABASE_DIRECT_URL? ` +
          `Falling back to short cache lifetimes: caches are dropped every ${DEAF_CACHE_LIFETIME_MS} ms`,
        detail,
      );
      applyChange({ kind: "all" });
      deafTicker = setInterval(() => applyChange({ kind: "all" }), DEAF_CACHE_LIFETIME_MS);
      deafTicker.unref();
    } else {
      logger.info("change channel hears notifications again: caches keep their usual lifetimes", detail);
      if (deafTicker) clearInterval(deafTicker);
      deafTicker = undefined;
    }
  };

  /** Sends a probe over the ordinary pool (the way changes travel) and waits for it on `current`. */
  const probe = async (current: pg.Client, when: "start" | "reconnect" | "recheck") => {
    const id = randomUUID();
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const heard = new Promise<boolean>((resolve) => {
      probes.set(id, () => resolve(true));
      timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS);
      timer.unref();
    });
    try {
      await pool.query("SELECT pg_notify($1, $2)", [CHANGES_CHANNEL, JSON.stringify({ kind: "probe", id })]);
    } catch (error) {
      // The database is away: the heartbeat and the reconnect deal with that; probe again then.
      probes.delete(id);
      clearTimeout(timer);
      logger.warn("change channel: probe not sent", { when, error: (error as Error).message });
      return;
    }
    const ok = await heard;
    probes.delete(id);
    clearTimeout(timer);
    if (stopped || client !== current) return;
    if (ok && when !== "recheck") logger.info("change channel: probe heard", { when, ms: Date.now() - started });
    setDeaf(!ok, { when });
  };

  const scheduleReconnect = () => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, delay);
    retry.unref();
    delay = Math.min(delay * 2, BACKOFF_MAX_MS);
  };

  const drop = (current: pg.Client, reason: string) => {
    if (client !== current) return;
    client = undefined;
    health.connected = false;
    changeChannelMetrics.lost();
    if (heartbeat) clearInterval(heartbeat);
    heartbeat = undefined;
    current.removeAllListeners("notification");
    current.end().catch(() => {});
    if (!stopped) {
      logger.warn("change channel lost: reconnecting", { reason });
      scheduleReconnect();
    }
  };

  async function connect(): Promise<void> {
    if (stopped) return;
    const current = new pg.Client({
      connectionString: env().DATABASE_DIRECT_URL,
      application_name: "platform-changes",
      connectionTimeoutMillis: 3_000,
      keepAlive: true,
    });
    client = current;
    current.on("error", (error) => drop(current, error.message));
    current.on("end", () => drop(current, "connection ended"));
    current.on("notification", (message) => {
      if (message.channel !== CHANGES_CHANNEL || !message.payload) return;
      let parsed;
      try {
        const json: unknown = JSON.parse(message.payload);
        const isProbe = probeSchema.safeParse(json);
        if (isProbe.success) {
          probes.get(isProbe.data.id)?.();
          return;
        }
        parsed = changeSchema.safeParse(json);
      } catch {
        parsed = undefined;
      }
      if (!parsed?.success) {
        logger.warn("change channel: message ignored", { payload: message.payload.slice(0, 200) });
        return;
      }
      applyChange(parsed.data);
    });
    try {
      await current.connect();
      await current.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (error) {
      drop(current, (error as Error).message);
      return;
    }
    if (client !== current) return;
    health.connected = true;
    delay = BACKOFF_START_MS;
    // Whatever changed while nobody listened (before the first connection too) was not heard:
    // forget everything cached.
    applyChange({ kind: "all" });
    if (connectedOnce) logger.info("change channel reconnected: caches dropped");
    void probe(current, connectedOnce ? "reconnect" : "start");
    changeChannelMetrics.listening(connectedOnce);
    connectedOnce = true;
    heartbeat = setInterval(() => {
      // A deaf channel is probed again on each heartbeat: it recovers once notifications arrive.
      if (health.deaf) void probe(current, "recheck");
      const timer = setTimeout(() => drop(current, "heartbeat timed out"), HEARTBEAT_TIMEOUT_MS);
      const sentMs = performance.now();
      current
        .query("SELECT 1")
        .then(() => changeChannelMetrics.heartbeat((performance.now() - sentMs) / 1000))
        .catch((error: Error) => drop(current, error.message))
        .finally(() => clearTimeout(timer));
    }, HEARTBEAT_MS);
    heartbeat.unref();
    markReady();
  }

  void connect();
  return {
    ready,
    async stop() {
      stopped = true;
      changeChannelMetrics.lost();
      if (retry) clearTimeout(retry);
      if (heartbeat) clearInterval(heartbeat);
      if (deafTicker) clearInterval(deafTicker);
      health.connected = false;
      const current = client;
      client = undefined;
      await current?.end().catch(() => {});
    },
  };
}
