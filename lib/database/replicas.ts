import type pg from "pg";
import { env } from "../env";
import { logger } from "../logger";
import { changeChannelState, replicaMetrics, watchDatabasePool } from "../metrics";
import { applyChange, CHANGES_CHANNEL, onChange, type ChangeEvent } from "./changes";
import { createPgPool, pool } from "./client";

/**
 * Read replicas (part 2): DATABASE_REPLICA_URLS names streaming standbys of the primary.
 * Only the API reads that tolerate seconds of lag ask for a reader here (profiles by handle, stats,
 * the directory, chat history, notifications: lib/api/routes); everything that decides access
 * (token and grant state, app and user status, watermarks, quotas, rate limits, consents) and every
 * write use `pool`, the primary, as before.
 *
 * Health: every CHECK_INTERVAL_MS this process reads the primary's `pg_current_wal_lsn()` (kept as
 * a short history of (time, LSN) samples) and each replica's `pg_last_wal_replay_lsn()`. A replica
 * has everything the primary had at the newest sample whose LSN its replay reached, so its lag is
 * the age of that sample, and 0 when it has replayed the primary's current LSN: an idle primary does
 * not make a replica look lagged (as `now() - pg_last_xact_replay_timestamp()` would). A replica is
 * used only while it answers within CHECK_TIMEOUT_MS, is in recovery, and lags at most
 * REPLICA_MAX_LAG_SECONDS; a read that fails on it is answered by the primary (and marks it down
 * until the next check).
 *
 * Read-your-writes: after a chat post or a poke the route calls `noteWrite`, which reads the
 * primary's WAL position once the write has committed and announces it on the change channel
 * (`wrote`: the user, the client, the LSN). Every process records it, and routes that user's and that
 * client's reads to the primary until a replica has replayed that LSN (compared with the replay LSN
 * the health check already reads), so a post is visible to its author at once on every process.
 * The NOTIFY is sent before the write's response, and PostgreSQL delivers it to the listening
 * connections as it commits, so it reaches the other processes before the author's next request
 * can. While the change channel is not up (or deaf behind a pooler), and for one lag window after
 * it reconnects (notifications may have been missed), every read goes to the primary. Nothing in
 * the API's answers changes (SPEC.md); no hint travels with the client.
 *
 * Without DATABASE_REPLICA_URLS nothing here starts: `readerFor` returns `pool` itself after one
 * property read, and `noteWrite` returns at once, so the hot paths run exactly as before.
 */
export interface Reader {
  query<R extends pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<R>>;
}

/** Who reads or wrote: the API caller's user (user-delegated tokens) and client. */
export interface ReadCaller {
  kind: string;
  userId?: number;
  clientId?: string;
}

const CHECK_INTERVAL_MS = 1000;
const CHECK_TIMEOUT_MS = 1000;

interface Sample {
  at: number;
  lsn: bigint;
}

/** "16/B374D848" → its position as one number. */
function parseLsn(text: string): bigint {
  const [high, low] = text.split("/");
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

/** A replica's lag in seconds from the primary's samples (oldest first) and its replay position. */
export function lagSeconds(samples: readonly Sample[], replay: bigint, now: number): number {
  const latest = samples[samples.length - 1];
  if (!latest) return Infinity;
  if (replay >= latest.lsn) return 0;
  for (let i = samples.length - 1; i >= 0; i--) if (samples[i]!.lsn <= replay) return (now - samples[i]!.at) / 1000;
  return Infinity;
}

type Metrics = ReturnType<typeof replicaMetrics>;

class Replica implements Reader {
  healthy = false;
  /** The replay position the last check read (0 until one did). */
  replay = 0n;
  private lag = Infinity;
  private readonly reads: ReturnType<Metrics["reads"]>;
  private readonly gauges: ReturnType<Metrics["replica"]>;

  constructor(
    readonly name: string,
    readonly pool: pg.Pool,
    private readonly set: ReplicaSet,
    metrics: Metrics,
  ) {
    this.reads = metrics.reads(name);
    this.gauges = metrics.replica(name);
  }

  async query<R extends pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<R>> {
    if (this.healthy) {
      try {
        const result = await this.pool.query<R>(config);
        this.reads.inc();
        return result;
      } catch (error) {
        this.markDown((error as Error).message);
      }
    }
    this.gauges.fallback();
    return this.set.primary.query<R>(config);
  }

  markDown(reason: string): void {
    if (this.healthy) logger.warn("read replica down: its reads go to the primary", { replica: this.name, reason });
    this.healthy = false;
    this.gauges.state(false, this.lag);
  }

  async check(samples: readonly Sample[], maxLagSeconds: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const { rows } = await Promise.race([
        this.pool.query<{ standby: boolean; replay: string | null }>(
          "SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS replay",
        ),
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("health check timed out")), CHECK_TIMEOUT_MS))),
      ]);
      const row = rows[0];
      if (!row?.standby || row.replay === null) {
        this.lag = Infinity;
        this.markDown("not a standby in recovery");
        return;
      }
      this.replay = parseLsn(row.replay);
      this.lag = lagSeconds(samples, this.replay, Date.now());
      if (this.lag > maxLagSeconds) {
        this.markDown(`${this.lag === Infinity ? "more than the samples kept" : `${this.lag.toFixed(1)} s`} behind the primary`);
        return;
      }
      if (!this.healthy) logger.info("read replica up: API reads that tolerate lag go to it", { replica: this.name, lag_seconds: this.lag });
      this.healthy = true;
      this.gauges.state(true, this.lag);
    } catch (error) {
      this.lag = Infinity;
      this.markDown((error as Error).message);
    } finally {
      clearTimeout(timer);
    }
  }
}

class ReplicaSet {
  readonly replicas: Replica[];
  /** Replica-routable reads that go to the primary, counted. */
  readonly primary: Reader;
  /** The callers (u:ID, c:CLIENT) whose writes a replica may not have replayed yet: LSN and when. */
  private readonly writers = new Map<string, { lsn: bigint; at: number }>();
  private samples: Sample[] = [];
  /** Every read goes to the primary until then: after the change channel reconnected (writes may have gone unheard). */
  private primaryOnlyUntil = 0;
  private next = 0;
  private readonly maxLagMs: number;

  constructor(
    urls: readonly string[],
    private readonly maxLagSeconds: number,
  ) {
    this.maxLagMs = maxLagSeconds * 1000;
    const names = urls.map((_, i) => `replica${i + 1}`);
    const metrics = replicaMetrics(names);
    const primaryReads = metrics.reads("primary");
    this.primary = {
      query<R extends pg.QueryResultRow>(config: pg.QueryConfig) {
        primaryReads.inc();
        return pool.query<R>(config);
      },
    };
    this.replicas = urls.map((url, i) => new Replica(names[i]!, createPgPool(url, names[i]!, { connectMs: 1000, queryMs: 5000 }), this, metrics));
  }

  route(caller: ReadCaller): Reader {
    const now = Date.now();
    if (now < this.primaryOnlyUntil || changeChannelState() !== "up") return this.primary;
    let need = 0n;
    if (this.writers.size > 0) {
      for (const key of [caller.userId === undefined ? undefined : `u:${caller.userId}`, caller.clientId && `c:${caller.clientId}`]) {
        const wrote = key ? this.writers.get(key) : undefined;
        if (wrote && wrote.lsn > need) need = wrote.lsn;
      }
    }
    const count = this.replicas.length;
    for (let i = 0; i < count; i++) {
      const replica = this.replicas[(this.next + i) % count]!;
      if (replica.healthy && replica.replay >= need) {
        this.next = (this.next + i + 1) % count;
        return replica;
      }
    }
    return this.primary;
  }

  /** Every read to the primary for one lag window (and the checks' staleness). */
  holdPrimary(): void {
    this.primaryOnlyUntil = Date.now() + this.maxLagMs + 2 * CHECK_INTERVAL_MS;
  }

  onChange(event: ChangeEvent): void {
    if (event.kind === "all") {
      this.holdPrimary();
    } else if (event.kind === "wrote") {
      const lsn = parseLsn(event.lsn);
      const at = Date.now();
      for (const key of [event.userId === null ? null : `u:${event.userId}`, event.clientId === null ? null : `c:${event.clientId}`]) {
        if (!key) continue;
        const known = this.writers.get(key);
        if (!known || known.lsn < lsn) this.writers.set(key, { lsn, at });
      }
    }
  }

  async check(): Promise<void> {
    const now = Date.now();
    try {
      const { rows } = await pool.query<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn");
      this.samples.push({ at: now, lsn: parseLsn(rows[0]!.lsn) });
    } catch (error) {
      // The primary is away: keep the samples (lags grow with their age); reads fail there anyway.
      logger.debug("read replicas: the primary's WAL position is unknown", { error: (error as Error).message });
    }
    const keepFrom = now - this.maxLagMs - 10 * CHECK_INTERVAL_MS;
    const firstKept = this.samples.findIndex((s) => s.at >= keepFrom);
    if (firstKept > 0) this.samples = this.samples.slice(firstKept);
    await Promise.all(this.replicas.map((replica) => replica.check(this.samples, this.maxLagSeconds)));
    // A writer is forgotten once every replica replayed its write, or long after any healthy
    // replica must have (it lags at most REPLICA_MAX_LAG_SECONDS): memory stays bounded.
    const minReplay = this.replicas.reduce((min, r) => (r.replay < min ? r.replay : min), this.replicas[0]!.replay);
    const forgetBefore = now - this.maxLagMs - 60_000;
    for (const [key, wrote] of this.writers) if (wrote.lsn <= minReplay || wrote.at < forgetBefore) this.writers.delete(key);
  }
}

// On globalThis: server.ts and Next's bundled route modules are two module graphs in one process.
const store = globalThis as unknown as { __platformReplicas?: ReplicaSet };

/**
 * What a replica-routable read of `caller` runs on: `pool` when no replica is configured (nothing
 * else happens), else a healthy replica that has replayed the caller's latest write, else the
 * primary.
 */
export function readerFor(caller: ReadCaller): Reader {
  const set = store.__platformReplicas;
  if (set === undefined) return pool;
  return set.route(caller);
}

/**
 * After `caller`'s write committed (chat post, poke): announces the primary's WAL position so every
 * process sends that caller's reads to the primary until a replica has replayed it; the caller
 * awaits the promise before answering. Without replicas: undefined at once (no promise, no tick).
 */
export function noteWrite(caller: ReadCaller): Promise<void> | undefined {
  const set = store.__platformReplicas;
  if (set === undefined) return undefined;
  return announceWrite(set, caller);
}

async function announceWrite(set: ReplicaSet, caller: ReadCaller): Promise<void> {
  const userId = caller.userId ?? null;
  const clientId = caller.clientId ?? null;
  try {
    const { rows } = await pool.query<{ lsn: string }>({
      text: `SELECT w.lsn::text AS lsn,
                    pg_notify($1, json_build_object('kind', 'wrote', 'userId', $2::int, 'clientId', $3::text, 'lsn', w.lsn::text)::text)
             FROM pg_current_wal_lsn() AS w(lsn)`,
      values: [CHANGES_CHANNEL, userId, clientId],
    });
    applyChange({ kind: "wrote", userId, clientId, lsn: rows[0]!.lsn });
  } catch (error) {
    // The write stands; this process at least sends its reads to the primary for a lag window.
    logger.warn("read replicas: a write could not be announced", { error: (error as Error).message });
    set.holdPrimary();
  }
}

/**
 * Start-up (lib/server/platform.ts): the replica pools and their health checks, when
 * DATABASE_REPLICA_URLS names any; null otherwise.
 */
export function startReplicas(): { stop(): Promise<void> } | null {
  const { DATABASE_REPLICA_URLS: urls, REPLICA_MAX_LAG_SECONDS, DATABASE_POOL_SIZE } = env();
  if (!urls?.length || store.__platformReplicas) return null;
  const set = new ReplicaSet(urls, REPLICA_MAX_LAG_SECONDS);
  for (const replica of set.replicas) watchDatabasePool(replica.name, replica.pool, DATABASE_POOL_SIZE);
  const unsubscribe = onChange((event) => set.onChange(event));
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void set.check().finally(() => (running = false));
  }, CHECK_INTERVAL_MS);
  timer.unref();
  store.__platformReplicas = set;
  logger.info("read replicas configured", { replicas: set.replicas.length, max_lag_seconds: REPLICA_MAX_LAG_SECONDS });
  return {
    async stop() {
      clearInterval(timer);
      unsubscribe();
      store.__platformReplicas = undefined;
      await Promise.all(set.replicas.map((replica) => replica.pool.end().catch(() => {})));
    },
  };
}
