import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { env } from "../env";
import { PrismaClient } from "../generated/prisma/client";
import { logger } from "../logger";

/**
 * One pg pool and one PrismaClient per process, cached on globalThis: server.ts and Next's bundled
 * route modules are two module graphs in one process (STYLE: Database). Hot paths may use `pool`
 * directly (raw pg is ~5x faster than Prisma's per-query planning for single reads).
 */
/**
 * DATABASE_PGBOUNCER: behind PgBouncer in transaction mode each transaction may run on
 * another server connection, and PgBouncer 1.18 keeps no prepared statements across them, so a
 * named statement prepared on one would be missing on the next ("prepared statement … does not
 * exist"). This client drops the `name` of every query: pg then sends an unnamed statement
 * (Parse/Bind/Execute in one round trip), which the server plans each time. Prisma's adapter-pg
 * sends unnamed statements already. The direct case keeps pg's own Client (named statements, no
 * wrapper on the hot paths).
 */
class UnnamedStatementClient extends pg.Client {}
const namedQuery = pg.Client.prototype.query as (this: pg.Client, ...args: unknown[]) => unknown;
UnnamedStatementClient.prototype.query = function (this: pg.Client, config: unknown, ...rest: unknown[]) {
  if (config && typeof config === "object" && "name" in config && typeof (config as { submit?: unknown }).submit !== "function") {
    const { name: _name, ...unnamed } = config as { name?: string };
    return namedQuery.call(this, unnamed, ...rest);
  }
  return namedQuery.call(this, config, ...rest);
} as typeof pg.Client.prototype.query;

function createPool(): pg.Pool {
  const { DATABASE_URL: url } = env();
  if (!url) throw new Error("DATABASE_URL is not set (the server sets it after starting the embedded PostgreSQL)");
  return createPgPool(url, "primary");
}

/**
 * A pg pool on `url` with the platform's settings: the primary's, and each read replica's
 * (lib/database/replicas.ts; `timeouts` shorter there, so a replica that went away fails over to
 * the primary promptly).
 */
export function createPgPool(url: string, name: string, timeouts: { connectMs: number; queryMs: number } = { connectMs: 3000, queryMs: 15_000 }): pg.Pool {
  const { DATABASE_POOL_SIZE, DATABASE_PGBOUNCER } = env();
  const created = new pg.Pool({
    ...(DATABASE_PGBOUNCER ? { Client: UnnamedStatementClient as unknown as new () => pg.ClientBase } : {}),
    connectionString: url,
    max: DATABASE_POOL_SIZE,
    connectionTimeoutMillis: timeouts.connectMs,
    idleTimeoutMillis: 30_000,
    // A query that cannot reach the server must fail promptly, not hang a request.
    query_timeout: timeouts.queryMs,
  });
  // An idle client losing its connection (database restart) must not crash the process.
  created.on("error", (error) => logger.warn("database pool error", { pool: name, error: error.message }));
  // Nor one that is checked out between two queries (a transaction waiting on other work): pg-pool
  // listens for errors on idle clients only, and an 'error' event without a listener kills the
  // process (seen in tests/reliability/database-outage: "read ECONNRESET" on a Client). The next
  // query on that client fails, and its caller answers the request with an error as usual.
  created.on("connect", (client) => client.on("error", (error) => logger.warn("database client error", { pool: name, error: error.message })));
  return created;
}

function createClient(p: pg.Pool) {
  return new PrismaClient({
    adapter: new PrismaPg(p, { disposeExternalPool: false }),
    omit: { user: { passwordHash: true }, clientSecret: { hash: true }, sandbox: { secretHash: true } },
  });
}

type Db = ReturnType<typeof createClient>;
const store = globalThis as unknown as { __platformPool?: pg.Pool; __platformDb?: Db };

export function getPool(): pg.Pool {
  store.__platformPool ??= createPool();
  return store.__platformPool;
}

export function getDb(): Db {
  store.__platformDb ??= createClient(getPool());
  return store.__platformDb;
}

/** Lazily connected so importing this module never needs a database (CLI --help, env tests). */
export const db: Db = new Proxy({} as Db, {
  get: (_target, key) => Reflect.get(getDb(), key, getDb()),
});

export const pool: pg.Pool = new Proxy({} as pg.Pool, {
  get: (_target, key) => {
    const value = Reflect.get(getPool(), key, getPool());
    return typeof value === "function" ? value.bind(getPool()) : value;
  },
});

export type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

export async function closeDb(): Promise<void> {
  const { __platformDb, __platformPool } = store;
  store.__platformDb = undefined;
  store.__platformPool = undefined;
  await __platformDb?.$disconnect().catch(() => {});
  await __platformPool?.end().catch(() => {});
}

export { Prisma } from "../generated/prisma/client";
