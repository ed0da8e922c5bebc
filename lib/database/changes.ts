import pg from "pg";
import { z } from "zod";
import { db, pool, type Tx } from "./client";
import { env } from "../env";
import { logger } from "../logger";

/**
 * The change channel (issue 12; STYLE: "Changes that must reach every process"). A service that
 * changes what a cache holds announces it with PostgreSQL NOTIFY in the same transaction as the
 * change, so the message is delivered exactly when the change commits (and never when it rolls
 * back). Every server process LISTENs on one dedicated connection and drops the affected cache
 * entries on receipt; the acting process applies the change to its own caches right after the
 * commit, without waiting for the round trip. Caches keep their TTLs as the bound for when the
 * channel is down, and a reconnect drops every cache (messages may have been missed meanwhile).
 */
export const CHANGES_CHANNEL = "platform_changes";

const changeSchema = z.discriminatedUnion("kind", [
  /** An application's status, metadata, secrets or token watermark. */
  z.object({ kind: z.literal("app"), clientId: z.string().min(1).max(128) }),
  /** A user's flags (disabled, muted). */
  z.object({ kind: z.literal("user"), userId: z.number().int().positive() }),
  /** One person's grant for one app (consent revoked, tokens voided). */
  z.object({ kind: z.literal("grant"), userId: z.number().int().positive(), clientId: z.string().min(1).max(128) }),
  /** The signing keys (rotation). */
  z.object({ kind: z.literal("keys") }),
  /** Issue 25: an Event row committed (its trigger announces it); the event streams read what is new. */
  z.object({ kind: z.literal("event"), seq: z.string().regex(/^\d{1,19}$/) }),
  /** Issue 25: a webhook attempt is pending (a test event, a redelivery, work another process had no room for). */
  z.object({ kind: z.literal("delivery") }),
]);

export type Change = z.infer<typeof changeSchema>;
/** What listeners receive: a change, or "all" after the channel was interrupted. */
export type ChangeEvent = Change | { kind: "all" };
export type ChangeListener = (event: ChangeEvent) => void;

// On globalThis: server.ts and Next's bundled server code are two module graphs in one process;
// both subscribe, one listener connection serves both.
const store = globalThis as unknown as { __platformChangeListeners?: Set<ChangeListener> };
const listeners = (store.__platformChangeListeners ??= new Set());

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
 * service's storage, the signing keys): BEGIN, `work`, COMMIT (ROLLBACK on any error), then the
 * announced changes are applied in this process.
 */
export async function pgTransactionWithChanges<T>(
  work: (client: pg.PoolClient, announce: (change: Change) => Promise<void>) => Promise<T>,
): Promise<T> {
  const changes: Change[] = [];
  const client = await pool.connect();
  let result: T;
  try {
    await client.query("BEGIN");
    result = await work(client, async (change) => {
      changes.push(change);
      await publishChangeWith(client, change);
    });
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
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
      connectionString: env().DATABASE_URL,
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
        parsed = changeSchema.safeParse(JSON.parse(message.payload));
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
    delay = BACKOFF_START_MS;
    // Whatever changed while nobody listened (before the first connection too) was not heard:
    // forget everything cached.
    applyChange({ kind: "all" });
    if (connectedOnce) logger.info("change channel reconnected: caches dropped");
    connectedOnce = true;
    heartbeat = setInterval(() => {
      const timer = setTimeout(() => drop(current, "heartbeat timed out"), HEARTBEAT_TIMEOUT_MS);
      current
        .query("SELECT 1")
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
      if (retry) clearTimeout(retry);
      if (heartbeat) clearInterval(heartbeat);
      const current = client;
      client = undefined;
      await current?.end().catch(() => {});
    },
  };
}
