import cluster, { type Worker } from "node:cluster";
import os from "node:os";
import pg from "pg";
import type { Env } from "../env";

/**
 * `WEB_CONCURRENCY=N`: N worker processes share the port (node:cluster; the primary
 * accepts and hands connections round robin). The primary owns what must happen once: the
 * embedded PostgreSQL, migrations and the Next build (server.ts, before it gets here). Workers
 * start one after the other for the first (it seeds the demo world and ensures settings, keys and
 * the portal client) and then all at once; each has its own database pool, sized so that all of
 * them together stay within PostgreSQL's connections. Everything that must hold across processes
 * already lives in PostgreSQL (sessions, limits, quotas, caches' change channel), so a worker is
 * just another process of a multi-instance deployment.
 *
 * SIGTERM (or SIGINT) on the primary is passed to every worker, which finishes its in-flight
 * requests (server.ts shutdown); the primary exits when all have, then stops the database.
 */
export type WorkerMessage = { type: "listening"; port: number };

/** WEB_CONCURRENCY's value: `auto` is the cores this process may use. */
export function workerCount(setting: Env["WEB_CONCURRENCY"]): number {
  return setting === "auto" ? Math.max(1, os.availableParallelism()) : setting;
}

/** Connections a worker's pool may hold: its share of PostgreSQL's, less its LISTEN connection. */
async function poolSizePerWorker(databaseUrl: string, workers: number, wanted: number): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
  client.on("error", () => {});
  try {
    await client.connect();
    const { rows } = await client.query<{ max: number; reserved: number }>(
      `SELECT current_setting('max_connections')::int AS max, current_setting('superuser_reserved_connections')::int AS reserved`,
    );
    // Room for the CLI, migrations, backups and an operator's psql.
    const budget = rows[0]!.max - rows[0]!.reserved - 10;
    return Math.max(2, Math.min(wanted, Math.floor(budget / workers) - 1));
  } finally {
    await client.end().catch(() => {});
  }
}

export async function runPrimary(options: {
  config: Env;
  workers: number;
  say: (line: string) => void;
  /** Stops what the primary started (the embedded PostgreSQL), after every worker exited. */
  stop: () => Promise<void>;
}): Promise<void> {
  const { config, workers, say, stop } = options;
  // Behind PgBouncer the pooler shares out PostgreSQL's connections: each worker keeps DATABASE_POOL_SIZE.
  const poolSize = config.DATABASE_PGBOUNCER
    ? config.DATABASE_POOL_SIZE
    : await poolSizePerWorker(config.DATABASE_URL!, workers, config.DATABASE_POOL_SIZE);
  const workerEnv = { DATABASE_POOL_SIZE: String(poolSize) };
  let shuttingDown = false;
  const crashes: number[] = [];

  function fork(id: number): Promise<number> {
    const worker = cluster.fork({ ...workerEnv, PLATFORM_WORKER_INDEX: String(id) });
    return new Promise((resolve, reject) => {
      worker.on("message", (message: WorkerMessage) => {
        if (message?.type === "listening") resolve(message.port);
      });
      worker.once("exit", (code, signal) => {
        reject(new Error(`worker ${id} exited during start-up (${signal ?? `code ${code}`})`));
        if (shuttingDown) return;
        if (started) restart(id, worker, code, signal);
      });
    });
  }

  let started = false;
  function restart(id: number, worker: Worker, code: number | null, signal: string | null): void {
    const now = Date.now();
    crashes.push(now);
    while (crashes.length && crashes[0]! < now - 60_000) crashes.shift();
    say(`Worker ${id} (pid ${worker.process.pid}) exited (${signal ?? `code ${code}`}): starting a new one.`);
    if (crashes.length > 5) {
      say("Workers keep exiting (more than 5 in a minute): stopping.");
      void shutdown("crash loop", 1);
      return;
    }
    fork(id).then(
      () => say(`Worker ${id} is serving again.`),
      (error: unknown) => say(`Restarting worker ${id} failed: ${(error as Error).message}`),
    );
  }

  async function shutdown(signal: string, exitCode = 0): Promise<void> {
    if (shuttingDown) return;
    shuttingDown = true;
    say(`${signal} received: every worker finishes its in-flight requests…`);
    const alive = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
    await Promise.all(
      alive.map(
        (worker) =>
          new Promise<void>((resolve) => {
            const kill = setTimeout(() => worker.process.kill("SIGKILL"), 20_000);
            worker.once("exit", () => {
              clearTimeout(kill);
              resolve();
            });
            worker.process.kill("SIGTERM");
          }),
      ),
    );
    await stop().catch(() => {});
    say("Stopped.");
    process.exit(exitCode);
  }
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));

  say(`Starting ${workers} workers (pool of ${poolSize} database connections each)…`);
  let port: number;
  try {
    // The first alone (seeding, keys, settings), then the rest together.
    port = await fork(1);
    await Promise.all(Array.from({ length: workers - 1 }, (_, i) => fork(i + 2)));
  } catch (error) {
    say(`Error: ${(error as Error).message}`);
    await shutdown("start-up failure", 1);
    return;
  }
  started = true;
  say(`${workers} workers are serving port ${port}.`);
  // The machine-readable line for tests and process managers, once every worker listens.
  say(`listening on port ${port}`);
}
