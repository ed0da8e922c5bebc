/**
 * Cases M and P: the API mix on one app process straight to the single database (M), and
 * on two app processes (WEB_CONCURRENCY=2) through PgBouncer in transaction mode with one streaming
 * replica taking the lag-tolerant reads (P), measured interleaved in one group. Their ratio, and
 * the database columns of both (bench/database-stats.ts), feed the capacity model of
 * docs/operations.md.
 *
 * PgBouncer and the replica are made with the reliability suite's helpers (tests/helpers/): the
 * replica from a copy of the bench database's data directory taken between pg_backup_start() and
 * pg_backup_stop() (the embedded binaries have no pg_basebackup), which is why case P needs the
 * bench's embedded PostgreSQL rather than a DATABASE_URL.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import type { EmbeddedDatabase } from "../lib/database/embedded";
import { pgbouncerBinary, startPgBouncer, type PgBouncer } from "../tests/helpers/pgbouncer";
import { startReplicaOf } from "../tests/helpers/replica";
import type { LoadResult, LoadScenario, MixEntry } from "./load";
import { postmasterPid, STATEMENT_STATS_SETTINGS } from "./database-stats";
import { readCpuSeconds, readTreeCpuSeconds, readTreeRss } from "./processes";
import { benchHandle, type SeedInfo } from "./seed-large";

interface CapacityContext {
  config: { connections: number; duration: number; warmup: number; statementStats: "on" | "off" };
  databaseUrl: string;
  primary?: { embedded: EmbeddedDatabase; dir: string };
  seed: SeedInfo;
}

interface AppProcess {
  pid: number;
  origin: string;
  stop(): Promise<void>;
}

interface Deps<C extends CapacityContext> {
  needUserTokens(ctx: C): string[];
  needAppToken(ctx: C): string;
  /** The signed-in users' ids (the poke targets are the users after them). */
  tokenUserIds(ctx: C): { first: number; last: number };
  /** An app process started like the twins (METERING=on, production flags) with `workers` and the environment overrides. */
  startApp(ctx: C, name: string, workers: number, env: Record<string, string>): Promise<AppProcess>;
  probe(url: string, init: RequestInit, expected: number[]): Promise<unknown>;
  query<T extends pg.QueryResultRow>(url: string, sql: string, params?: unknown[]): Promise<T[]>;
  Unavailable: new (message: string) => Error;
}

/** The replication slot of case P's replica on the bench database (dropped after the case). */
const SLOT = "platform_bench_replica";
/** PgBouncer's server connections per database (its default_pool_size; the app's own pools sit in front). */
const PGBOUNCER_POOL = 20;

/**
 * The API mix, 20 requests in turn: 14 reads, 3 of them app-only (directory, chat history), and 6
 * token-checked writes or reads of the signed-in user. Reads of profiles, the directory, chat
 * history and notifications are the ones a replica may serve (SPEC-tolerant lag); /me and the
 * writes stay on the primary.
 */
function apiMix(chatSlice: [number, number], pokeTargets: { from: number; count: number }): MixEntry[] {
  const profile: MixEntry = { path: "/api/v1/users/{handle}", token: "user", mode: "random" };
  const me: MixEntry = { path: "/api/v1/me", token: "user", mode: "random" };
  const notifications: MixEntry = { path: "/api/v1/me/notifications", token: "user", mode: "random" };
  const directory: MixEntry = { path: "/api/v1/users", token: "app", mode: "random" };
  const history: MixEntry = { path: "/api/v1/global-chat/messages", token: "app", mode: "random" };
  const post: MixEntry = {
    method: "POST",
    path: "/api/v1/global-chat/messages",
    headers: { "content-type": "application/json" },
    body: '{"text":"mix post {i}: hello from the load generator"}',
    token: "user",
    mode: "roundRobin",
    tokenSlice: chatSlice,
  };
  const poke: MixEntry = {
    method: "POST",
    path: "/api/v1/users/{handle}/poke",
    token: "user",
    mode: "roundRobin",
    handlesFrom: pokeTargets.from,
    handlesCount: pokeTargets.count,
  };
  return [profile, notifications, history, profile, me, post, profile, directory, notifications, profile, poke, history, profile, me, notifications, profile, directory, history, poke, profile];
}

/** Share of each request kind in the mix, for notes and docs/operations.md. */
const MIX_DESCRIPTION =
  "per 20 requests: 7 GET /users/{handle}, 3 GET /me/notifications, 3 GET /global-chat/messages, 2 GET /users, 2 GET /me, 2 POST /users/{handle}/poke, 1 POST /global-chat/messages";

async function statementsOn(url: string): Promise<number | undefined> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ calls: string | null }>(
      `SELECT sum(calls) AS calls FROM pg_stat_statements WHERE toplevel AND dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    return Number(rows[0]?.calls ?? 0);
  } catch {
    return undefined;
  } finally {
    await client.end();
  }
}

/** Drops the replica's slot once its WAL sender is gone (it stays active for a moment after the replica stopped). */
async function dropSlot<C extends CapacityContext>(deps: Deps<C>, serverUrl: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const rows = await deps.query<{ active: boolean }>(serverUrl, "SELECT active FROM pg_replication_slots WHERE slot_name = $1", [SLOT]);
    if (!rows.length) return;
    if (!rows[0]!.active) {
      await deps.query(serverUrl, "SELECT pg_drop_replication_slot($1)", [SLOT]);
      return;
    }
    if (Date.now() > deadline) throw new Error(`the replication slot ${SLOT} is still active`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export function capacityCases<C extends CapacityContext>(deps: Deps<C>) {
  /** What both cases share: the mix over the signed-in users, from sequence `start`, chat posts by their half of the users. */
  const mixScenario = async (ctx: C, origin: string, half: 0 | 1): Promise<LoadScenario> => {
    const tokens = deps.needUserTokens(ctx);
    const appToken = deps.needAppToken(ctx);
    const handles = Array.from({ length: ctx.seed.users }, (_, i) => benchHandle(i + 1, ctx.seed.handleWidth));
    const { last } = deps.tokenUserIds(ctx);
    const targetsFrom = last - ctx.seed.firstUserId + 1;

    const halfSize = Math.floor(tokens.length / 2);
    if (halfSize < 1) throw new deps.Unavailable("needs at least 2 signed-in users");
    // Pokes take distinct (caller, target) pairs among targets of their own: M the second third of
    // the users after the signed-in ones, P the last third; case 8b starts at the first.
    const third = Math.floor((handles.length - targetsFrom) / 3);
    if (third < 1) throw new deps.Unavailable("no users left to poke (raise --users or lower --signed-in)");
    await deps.probe(`${origin}/api/v1/users/${handles[1]}`, { headers: { authorization: `Bearer ${tokens[0]}` } }, [200]);
    await deps.probe(`${origin}/api/v1/users`, { headers: { authorization: `Bearer ${appToken}` } }, [200]);
    return {
      url: origin,
      connections: ctx.config.connections,
      duration: ctx.config.duration,
      warmup: ctx.config.warmup,
      path: "/api/v1/me",
      mode: "mix",
      mix: apiMix([half * halfSize, (half + 1) * halfSize], { from: targetsFrom + (half + 1) * third, count: third }),
      tokens,
      handles,
      appToken,
    };
  };

  /** The app process's RSS (a cluster primary and its workers) for the note. */
  const rssNote = async (app: AppProcess) => {
    const rss = await readTreeRss(app.pid);
    return `RSS ${rss.map((mb) => mb.toFixed(0)).join(" + ")} MB`;
  };

  const direct = {
    id: "M",
    name: "API mix, 1 process, straight to the single database",
    app: true,
    own: true,
    async prepare(ctx: C) {
      const app = await deps.startApp(ctx, "server-mix-direct", 1, {});
      try {
        const scenario = await mixScenario(ctx, app.origin, 0);
        scenario.cpu = { pid: app.pid };
        scenario.database = [{ url: ctx.databaseUrl }];
        return {
          scenario,
          note: MIX_DESCRIPTION,
          finish: async () => rssNote(app),
          cleanup: () => app.stop(),
        };
      } catch (error) {
        await app.stop();
        throw error;
      }
    },
  };

  const pooled = {
    id: "P",
    name: "API mix, 2 processes through PgBouncer (transaction mode) + 1 streaming replica",
    app: true,
    own: true,
    async prepare(ctx: C) {
      if (!ctx.primary) throw new deps.Unavailable("needs the bench's embedded PostgreSQL to make a replica of (DATABASE_URL given)");
      if (!pgbouncerBinary()) throw new deps.Unavailable("pgbouncer is not installed (apt-get install -y pgbouncer; .ci/run does)");
      const { embedded, dir } = ctx.primary;
      const cleanups: (() => Promise<unknown>)[] = [];
      const cleanup = async () => {
        for (const step of cleanups.reverse()) await step().catch(() => {});
      };
      try {
        const started = Date.now();
        const replicaDir = await mkdtemp(path.join(os.tmpdir(), "platform-bench-replica-"));
        cleanups.push(() => rm(replicaDir, { recursive: true, force: true }));
        // The slot keeps WAL for the replica: dropped once it is stopped (the cleanups run in reverse).
        cleanups.push(() => dropSlot(deps, embedded.serverUrl));
        // The replica's settings are the primary's (pg_stat_statements for the database columns).
        const settings = ctx.config.statementStats === "on" ? STATEMENT_STATS_SETTINGS : {};
        const replica = await startReplicaOf(embedded, dir, replicaDir, { slot: SLOT, settings });
        cleanups.push(() => replica.stop());
        const copySeconds = (Date.now() - started) / 1000;
        const bouncer: PgBouncer = await startPgBouncer(embedded.serverUrl, { poolSize: PGBOUNCER_POOL });
        cleanups.push(() => bouncer.stop());
        const replicaUrl = replica.url(new URL(ctx.databaseUrl).pathname.slice(1));
        const app = await deps.startApp(ctx, "server-mix-pgbouncer", 2, {
          DATABASE_URL: bouncer.urlFor(ctx.databaseUrl),
          DATABASE_DIRECT_URL: ctx.databaseUrl,
          DATABASE_REPLICA_URLS: replicaUrl,
        });
        cleanups.push(() => app.stop());
        const scenario = await mixScenario(ctx, app.origin, 1);
        scenario.cpu = { pid: app.pid, tree: true };
        scenario.database = [{ url: ctx.databaseUrl }, { url: replicaUrl }];
        // PgBouncer's CPU, the replica's CPU and statements over the case, warm-up included.
        const replicaPid = await postmasterPid(replicaUrl);
        const replicaCpu = async () => (replicaPid ? (await readTreeCpuSeconds(replicaPid))?.total : undefined) ?? NaN;
        const bouncerCpu = await readCpuSeconds(bouncer.pid);
        const replicaCpuBefore = await replicaCpu();
        const replicaStatements = await statementsOn(replicaUrl);
        return {
          scenario,
          note: `${MIX_DESCRIPTION}; replica made in ${copySeconds.toFixed(0)} s; PgBouncer pool ${PGBOUNCER_POOL}, replica direct`,
          async finish(load: LoadResult) {
            const requests = load.requests + (load.warmupRequests ?? 0);
            const cpu = (await readCpuSeconds(bouncer.pid)) ?? NaN;
            const onReplica = ((await statementsOn(replicaUrl)) ?? NaN) - (replicaStatements ?? NaN);
            const replicaUsed = (await replicaCpu()) - replicaCpuBefore;
            const perRequest = (n: number) => (Number.isFinite(n) && requests > 0 ? (n / requests).toFixed(3) : "?");
            return (
              `PgBouncer CPU ${perRequest((cpu - (bouncerCpu ?? NaN)) * 1000)} ms/request; ` +
              `replica ${perRequest(onReplica)} statements and ${perRequest(replicaUsed * 1000)} ms CPU per request (replay included); ` +
              `${await rssNote(app)} (primary + workers)`
            );
          },
          cleanup,
        };
      } catch (error) {
        await cleanup();
        throw error;
      }
    },
  };
  return [direct, pooled];
}
