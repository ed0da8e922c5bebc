/**
 * `npm run bench`: the performance benchmark of docs/performance.md, end to end.
 *
 * 1. PostgreSQL: a temporary embedded one (never the developer's .data), or DATABASE_URL.
 * 2. Migrations, then the large data set (bench/seed-large.ts), separate from the demo world.
 * 3. An approved API client and a login client, through the operator CLI (bin/platform.mjs).
 * 4. The real server (server.mjs, started as `npm start` starts it, SEED_DEMO=0) as a child process whose RSS
 *    is sampled from /proc; with Next when a production build exists or can be made (--next).
 * 5. Real tokens from its sign-in service: client credentials, and the authorization-code flow
 *    through the login form for the signed-in users.
 * 6. The cases, each driven by autocannon from a separate process (bench/load-worker.ts), with the
 *    three baselines (bench/baselines/) started by the bench itself in the same run.
 * 7. A table on stdout, bench/results/latest.{json,md}, and the results section of
 *    docs/performance.md.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { spawn } from "node:child_process";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { encodeUsersCursor } from "../lib/api/pagination";
import { CHAT_MESSAGES_BEFORE_STATEMENT, NEWEST_CHAT_MESSAGES_STATEMENT } from "../lib/queries/chat";
import { LIST_DIRECTORY_USERS_STATEMENT } from "../lib/queries/directory";
import { CHAT_DEFAULT_LIMIT } from "../lib/schemas/chat";
import { USERS_DEFAULT_LIMIT } from "../lib/schemas/directory";
import { LIVE_WORLD_ID } from "../lib/schemas/sandboxes";
import { SVC_SCOPE_NAMES, USER_ONLY_SCOPES } from "../lib/scopes";
import { ensureDatabase, findFreePort, startEmbeddedPostgres, type EmbeddedDatabase } from "../lib/database/embedded";
import { hashPassword } from "../lib/crypto/passwords";
import { migrate } from "../lib/database/migrate";
import { PRODUCTION_NODE_FLAGS, withProductionEnv } from "../lib/server/node-flags";
import { ensureNextBuild as ensureBuildUnderLock } from "../lib/server/build";
import { parseConfig, USAGE, type BenchConfig } from "./config";
import { explainStatement, type QueryPlan, type Statement } from "./explain";
import { DPOP_POOL_FRESH_MS, runLoad, type LoadResult, type LoadScenario } from "./load";
import { listeningPort, readCpuSeconds, readRss, readTreeCpuSeconds, readTreeRss, ROOT, RssSampler, startChild, type Child } from "./processes";
import { eventsCase } from "./events";
import { deliveryCostCase } from "./deliveries";
import { capacityCases } from "./capacity";
import { STATEMENT_STATS_SETTINGS } from "./database-stats";
import { accessTokenHash, createDpopKey, DpopSigner } from "./dpop";
import {
  buildRatiosAndTargets,
  machineInfo,
  PASSWORD_HASH_NAME,
  ok,
  readCommittedResults,
  toConsoleTable,
  writeResults,
  type BenchReport,
  type CaseResult,
  type DatabasePerRequest,
  type DeliveryCostResult,
  type EventsResult,
} from "./report";
import { BENCH_PASSWORD, benchHandle, seedLarge, type SeedInfo } from "./seed-large";
import { clientCredentialsBody, clientCredentialsToken, discover, signIn, signInMany, type Discovery, type LoginClient } from "./tokens";

const say = (line: string) => process.stdout.write(`${line}\n`);
const seconds = (since: number) => ((Date.now() - since) / 1000).toFixed(1);

/** Scopes of the bench's API client: every app-level scope (SPEC: chat read, directory). */
const API_CLIENT_SCOPES = SVC_SCOPE_NAMES.filter((s) => !USER_ONLY_SCOPES.includes(s));

interface Context {
  config: BenchConfig;
  workDir: string;
  databaseUrl: string;
  /** The embedded PostgreSQL and its directory (absent with DATABASE_URL): case P makes its replica from them. */
  primary?: { embedded: EmbeddedDatabase; dir: string };
  seed: SeedInfo;
  origin: string;
  issuer: string;
  server?: Child;
  /**
   * Two more app processes on the same database, started alike after the sign-in phase,
   * one with METERING=on and one with METERING=off (the switch is read once at start, so each takes
   * its own process), for cases 4on/4off and 5on/5off. Twins, not the main server against a twin:
   * the main server, which ran the sign-ins and every other case, measured ~15 % more CPU per
   * profile read than a fresh process with metering on both (JIT and heap history), which would be
   * charged to metering.
   */
  twins: Partial<Record<Twin, { child: Child; origin: string }>>;
  /**
   * One more app process started like the twins, with WEB_CONCURRENCY=config.workers (a
   * cluster primary and its workers, METERING=on as in production), for cases 4w and 5w. Its
   * 1-process reference is the METERING=on twin, started alike, rather than the main server (whose
   * history costs it ~16 % more CPU per read, above).
   */
  workers?: { child: Child; origin: string };
  /** When the server was spawned (ms): case windows for `--profile` are relative to it. */
  serverSpawnedAt?: number;
  sampler?: RssSampler;
  discovery?: Discovery;
  apiClient?: { clientId: string; clientSecret: string };
  appToken?: string;
  userTokens?: string[];
  /** The signed-in users' refresh tokens (login clients get one), for the refresh case R. */
  refreshTokens?: string[];
  /** Whether the server serves Next (the flow case then fetches the hosted login page too). */
  withNext: boolean;
  loginClient?: LoginClient;
  /**
   * An AI agent's client (issue 40): its client ID is the URL of its metadata document, served by
   * the bench itself (CLIENT_METADATA_ALLOW_PRIVATE), cached by the server after the first sign-in.
   */
  agentClient?: LoginClient;
  /** The users of the sign-in flow case, whose password hash has production parameters. */
  flowUsers?: { handles: string[]; storedHash: string };
  /** Why user tokens are missing, for the cases that need them. */
  userTokensError?: string;
  appTokenError?: string;
  cases: CaseResult[];
  notes: string[];
  /** EXPLAIN (ANALYZE, BUFFERS) of the list statements, first and deep page (bench/explain.ts). */
  plans: QueryPlan[];
}

class Unavailable extends Error {}

type Twin = "on" | "off";
/** The app process a case runs against: the main server, a metering twin, or the workers process. */
type AppProcess = Twin | "main" | "workers" | "own";
/** The cases on the WEB_CONCURRENCY process; none when --workers is 0 or 1. */
const WORKER_CASES = ["4w", "5w"];

// ---------------------------------------------------------------------------------------------
// Setup

/**
 * The same lock as the tests and `npm start` (lib/server/build.ts). One build is enough: sources
 * edited while it ran (a shared checkout) do not start another.
 */
function ensureNextBuild(): Promise<void> {
  return ensureBuildUnderLock(ROOT, say, { once: true });
}

async function resolveNext(config: BenchConfig, notes: string[]): Promise<boolean> {
  if (config.next === "off") return false;
  const started = Date.now();
  try {
    await ensureNextBuild();
    if (Date.now() - started > 5000) say(`Next build ready in ${seconds(started)} s.`);
    return true;
  } catch (error) {
    if (config.next === "on") throw error;
    const message = `Next build failed (${(error as Error).message}); serving without Next (--no-next).`;
    say(message);
    notes.push(message);
    return false;
  }
}

/** The extension's views in the bench database; without it (a DATABASE_URL server that does not preload it) the columns show CPU and transactions only. */
async function enableStatementStats(url: string, notes: string[]): Promise<void> {
  try {
    await query(url, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    await query(url, "SELECT count(*) FROM pg_stat_statements");
  } catch (error) {
    notes.push(`pg_stat_statements unavailable (${(error as Error).message}): no database queries or time per request.`);
  }
}

async function prepareDatabase(config: BenchConfig): Promise<{ url: string; dir?: string; embedded?: EmbeddedDatabase }> {
  if (config.databaseUrl) return { url: config.databaseUrl };
  const started = Date.now();
  // Its own directory: PostgreSQL runs as another system user and must traverse into it, while
  // workDir (scenario files with tokens) stays private.
  const dir = await mkdtemp(path.join(os.tmpdir(), "platform-bench-pg-"));
  // Pg_stat_statements, whose counts of top-level statements and their execution time give
  // each case's database columns (bench/database-stats.ts), unless --statement-stats off.
  const settings = config.statementStats === "on" ? STATEMENT_STATS_SETTINGS : {};
  const embedded = await startEmbeddedPostgres({ dir, port: await findFreePort(), settings });
  await ensureDatabase(embedded.serverUrl, "bench");
  say(`Embedded PostgreSQL ready in ${seconds(started)} s.`);
  return { url: embedded.url("bench"), dir, embedded };
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

async function count(url: string, sql: string, params: unknown[] = []): Promise<number> {
  const rows = await query<{ n: string }>(url, sql, params);
  return Number(rows[0]?.n ?? 0);
}

/** The operator CLI, as an operator would run it; returns its --json output. */
async function platformCli(databaseUrl: string, args: string[], extraEnv: Record<string, string> = {}): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, "bin", "platform.mjs"), ...args, "--json"], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, NODE_ENV: "production", LOG_LEVEL: "warn", ...extraEnv },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`platform ${args.slice(0, 2).join(" ")} failed: ${err.trim().split("\n").pop()}`));
      try {
        resolve(JSON.parse(out) as Record<string, unknown>);
      } catch {
        reject(new Error(`platform ${args.slice(0, 2).join(" ")} printed no JSON`));
      }
    });
  });
}

function tokenUserIds(ctx: Pick<Context, "seed" | "config">): { first: number; last: number } {
  const first = ctx.seed.firstUserId;
  return { first, last: first + Math.min(ctx.config.signedIn, ctx.seed.users) - 1 };
}

/** Users of the sign-in flow case (F): the ones after the signed-in users. */
const FLOW_USERS = 200;

function flowUserIds(ctx: Pick<Context, "seed" | "config">): { first: number; last: number } | null {
  const { last: signedInLast } = tokenUserIds(ctx);
  const last = Math.min(signedInLast + FLOW_USERS, ctx.seed.firstUserId + ctx.seed.users - 1);
  return last > signedInLast ? { first: signedInLast + 1, last } : null;
}

/**
 * `count` pending API clients with built sandbox worlds (bench/sandboxes.ts, the product's
 * own world builder, in a child process since its database client reads DATABASE_URL at import).
 */
async function seedSandboxes(databaseUrl: string, count: number, ownerId: number): Promise<void> {
  const started = Date.now();
  say(`Building the sandboxes of ${count} apps (50 people, 300 chat messages each)…`);
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "bench", "sandboxes.ts"), "--count", String(count), "--owner-id", String(ownerId)], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, NODE_ENV: "production", LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`bench/sandboxes.ts failed: ${stderr.trim().split("\n").pop()}`)),
    );
  });
  const result = JSON.parse(out.trim().split("\n").pop()!) as { built: number; people: number; messages: number };
  say(
    `Sandboxes: ${count} apps, ${result.built} worlds built now; ${result.people} sandbox people and ${result.messages} sandbox messages in the database (${seconds(started)} s).`,
  );
}

/** The bench apps' API quota: the most an admin may set (far above what this machine can serve). */
const BENCH_REQUESTS_PER_MINUTE = 10_000_000;

async function createClients(ctx: Context): Promise<{ loginClientId: string; redirectUri: string }> {
  const owner = benchHandle(1, ctx.seed.handleWidth);
  // The redirect target never has to answer: the bench reads the code from the Location header.
  const redirectUri = `${ctx.origin}/bench/callback`;
  const [api, login] = await Promise.all([
    platformCli(ctx.databaseUrl, [
      "apps", "create", "--name", "Bench API client", "--type", "api", "--owner", owner,
      ...API_CLIENT_SCOPES.flatMap((s) => ["--scope", s]), "--approve",
    ]),
    platformCli(ctx.databaseUrl, [
      "apps", "create", "--name", "Bench login client", "--type", "login", "--owner", owner,
      "--redirect-uri", redirectUri, ...SVC_SCOPE_NAMES.flatMap((s) => ["--scope", s]), "--approve",
    ]),
  ]);
  if (typeof api.client_id !== "string" || typeof api.client_secret !== "string") {
    throw new Error("apps create --approve printed no client_secret");
  }
  ctx.apiClient = { clientId: api.client_id, clientSecret: api.client_secret };
  if (typeof login.client_id !== "string") throw new Error("apps create printed no client_id");
  // Each app may make 6,000 API requests a minute by default; the bench makes tens of
  // thousands a second, so it raises its apps' quotas the way an operator would.
  await Promise.all(
    [api.client_id, login.client_id].map((clientId) =>
      platformCli(ctx.databaseUrl, ["apps", "limit", clientId, "--per-minute", String(BENCH_REQUESTS_PER_MINUTE)]),
    ),
  );
  // The signed-in users are returning users: they consented to this app before (Consent rows),
  // so the flow is authorize → login form → code, as for anyone signing in a second time.
  const { first, last } = tokenUserIds(ctx);
  const flow = flowUserIds(ctx);
  await query(
    ctx.databaseUrl,
    `INSERT INTO "Consent" ("userId", "clientId", scopes, "createdAt", "updatedAt")
     SELECT id, $1, $2, now(), now() FROM generate_series($3::int, $4::int) AS id ON CONFLICT DO NOTHING`,
    [login.client_id, ["openid", "profile", "offline_access", ...SVC_SCOPE_NAMES], first, flow?.last ?? last],
  );
  if (flow) {
    // The flow case's users sign in as anyone would: their password hash has today's production
    // parameters (one hash shared by all of them: each check costs the same as with their own salt).
    const storedHash = await hashPassword(BENCH_PASSWORD);
    await query(ctx.databaseUrl, `UPDATE "User" SET "passwordHash" = $1 WHERE id BETWEEN $2 AND $3`, [storedHash, flow.first, flow.last]);
    const handles = Array.from({ length: flow.last - flow.first + 1 }, (_, i) =>
      benchHandle(flow.first - ctx.seed.firstUserId + 1 + i, ctx.seed.handleWidth),
    );
    ctx.flowUsers = { handles, storedHash };
  }
  ctx.agentClient = { clientId: await serveAgentDocument(redirectUri), redirectUri };
  // The flow users allowed the agent before, as they did the login client: returning users.
  if (flow) {
    await query(
      ctx.databaseUrl,
      `INSERT INTO "Consent" ("userId", "clientId", scopes, "createdAt", "updatedAt")
       SELECT id, $1, $2, now(), now() FROM generate_series($3::int, $4::int) AS id ON CONFLICT DO NOTHING`,
      [ctx.agentClient.clientId, ["openid", "profile", "offline_access"], flow.first, flow.last],
    );
  }
  return { loginClientId: login.client_id, redirectUri };
}

/**
 * Serves an agent's Client ID Metadata Document from the bench process (one per run, kept for an
 * hour by the server, as its Cache-Control says) and returns its URL, the agent's client ID.
 */
async function serveAgentDocument(redirectUri: string): Promise<string> {
  const { createServer } = await import("node:http");
  let clientId = "";
  const site = createServer((req, res) => {
    if (req.url !== "/bench/agent/client.json") return res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=3600" }).end(
      JSON.stringify({ client_id: clientId, client_name: "Bench agent", redirect_uris: [redirectUri], token_endpoint_auth_method: "none" }),
    );
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  site.unref();
  clientId = `http://127.0.0.1:${(site.address() as import("node:net").AddressInfo).port}/bench/agent/client.json`;
  return clientId;
}

/** Bench-only state that a previous run on the same database left behind (DATABASE_URL reuse). */
async function resetMutableState(ctx: Context): Promise<void> {
  const { first, last } = tokenUserIds(ctx);
  await query(ctx.databaseUrl, `UPDATE "User" SET "lastChatPostAt" = NULL WHERE id BETWEEN $1 AND $2`, [first, last]);
  await query(ctx.databaseUrl, `DELETE FROM "Poke" WHERE "callerId" BETWEEN $1 AND $2`, [first, last]);
}

function serverEnv(ctx: Context, port: number, metering: boolean, workers = 1, eventWorker = false): Record<string, string | undefined> {
  // `npm start`'s environment (lib/server/node-flags.ts) under the shell's.
  return {
    ...withProductionEnv(process.env),
    // As a person's shell runs `npm start`: the server sets NODE_ENV itself (lib/server/node-env.ts).
    NODE_ENV: undefined,
    PORT: String(port),
    HOST: "127.0.0.1",
    APP_URL: ctx.origin,
    ISSUER: undefined,
    DATABASE_URL: ctx.databaseUrl,
    SEED_DEMO: "0",
    NEXT_TELEMETRY_DISABLED: "1",
    // The seed's hashes are cheap on purpose (bench/seed-large.ts): keep them, do not upgrade them
    // to the production cost at each user's first sign-in.
    PASSWORD_REHASH: "0",
    ...(ctx.config.logLevel ? { LOG_LEVEL: ctx.config.logLevel } : {}),
    // Usage metering is on by default, as in production; the twin process turns it off.
    METERING: metering ? "on" : "off",
    // One process (whose /proc figures are the app's) unless this is the workers process, whatever
    // the shell running the bench says.
    WEB_CONCURRENCY: String(workers),
    // Case E: the webhook receivers are on 127.0.0.1 (a development and test setting).
    WEBHOOKS_ALLOW_PRIVATE: "1",
    // Case Fa: the agent's metadata document is served by the bench on 127.0.0.1.
    CLIENT_METADATA_ALLOW_PRIVATE: "1",
    // Only the main server runs the event jobs (fan-out, webhook deliveries), so case E's CPU per
    // delivery is that process's, and the twins' and workers' cases are not charged with the
    // fan-outs of the chat posts of other cases.
    ...(eventWorker ? {} : { EVENT_WORKER_CONCURRENCY: "0" }),
  };
}

/** The app processes run with production's Node flags (`npm start`), then --server-node-args. */
function serverNodeArgs(ctx: Context): string[] {
  return [...PRODUCTION_NODE_FLAGS, ...(ctx.config.serverNodeArgs?.split(" ").filter(Boolean) ?? [])];
}

async function startServer(ctx: Context, withNext: boolean, port: number): Promise<void> {
  const env = serverEnv(ctx, port, true, 1, true);
  const nodeArgs = [
    ...serverNodeArgs(ctx),
    ...(ctx.config.profile ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(ctx.config.profile)}`] : []),
  ];
  const started = Date.now();
  ctx.serverSpawnedAt = started;
  ctx.server = await startChild({
    name: "server",
    script: path.join(ROOT, "server.mjs"),
    args: withNext ? [] : ["--no-next"],
    nodeArgs,
    env,
    logDir: ctx.workDir,
    timeoutMs: 600_000,
    ready: async (text) => (await listeningPort(text)) !== undefined,
  });
  ctx.sampler = new RssSampler(ctx.server.pid);
  ctx.sampler.start();
  say(`Server (pid ${ctx.server.pid}${withNext ? ", with Next" : ", --no-next"}) listening in ${seconds(started)} s; log: ${ctx.server.logFile}`);
}

/**
 * A metering twin: the same code, database and APP_URL (so the tokens of the run are
 * valid on it), on its own port, with METERING on or off. Only cases 4on/4off and 5on/5off call them.
 */
async function startTwin(ctx: Context, withNext: boolean, metering: Twin): Promise<void> {
  const port = await findFreePort();
  const started = Date.now();
  const child = await startChild({
    name: `server-metering-${metering}`,
    script: path.join(ROOT, "server.mjs"),
    args: withNext ? [] : ["--no-next"],
    nodeArgs: serverNodeArgs(ctx),
    env: serverEnv(ctx, port, metering === "on"),
    logDir: ctx.workDir,
    timeoutMs: 600_000,
    ready: async (text) => (await listeningPort(text)) !== undefined,
  });
  ctx.twins[metering] = { child, origin: `http://127.0.0.1:${port}` };
  say(`Twin server with METERING=${metering} (pid ${child.pid}) listening in ${seconds(started)} s; log: ${child.logFile}`);
}

/**
 * An app process of cases M and P, started like a twin (METERING=on, production flags)
 * with `workers` and its own database settings (PgBouncer, replica); the case stops it.
 */
async function startAppProcess(ctx: Context, name: string, workers: number, env: Record<string, string>): Promise<{ pid: number; origin: string; stop(): Promise<void> }> {
  const port = await findFreePort();
  const started = Date.now();
  const child = await startChild({
    name,
    script: path.join(ROOT, "server.mjs"),
    args: ctx.withNext ? [] : ["--no-next"],
    nodeArgs: serverNodeArgs(ctx),
    env: { ...serverEnv(ctx, port, true, workers), ...env },
    logDir: ctx.workDir,
    timeoutMs: 600_000,
    ready: async (text) => (await listeningPort(text)) !== undefined,
  });
  say(`    ${name} (pid ${child.pid}, WEB_CONCURRENCY=${workers}) listening in ${seconds(started)} s; log: ${child.logFile}`);
  return { pid: child.pid, origin: `http://127.0.0.1:${port}`, stop: () => child.stop() };
}

/**
 * The WEB_CONCURRENCY=N process for cases 4w and 5w, started like a twin (METERING=on);
 * `listening on port` comes from its primary once every worker listens.
 */
async function startWorkers(ctx: Context, withNext: boolean): Promise<void> {
  const port = await findFreePort();
  const started = Date.now();
  const child = await startChild({
    name: `server-workers-${ctx.config.workers}`,
    script: path.join(ROOT, "server.mjs"),
    args: withNext ? [] : ["--no-next"],
    nodeArgs: serverNodeArgs(ctx),
    env: serverEnv(ctx, port, true, ctx.config.workers),
    logDir: ctx.workDir,
    timeoutMs: 600_000,
    ready: async (text) => (await listeningPort(text)) !== undefined,
  });
  ctx.workers = { child, origin: `http://127.0.0.1:${port}` };
  say(`Server with WEB_CONCURRENCY=${ctx.config.workers} (primary pid ${child.pid}) listening in ${seconds(started)} s; log: ${child.logFile}`);
}

/**
 * The sign-ins just filled the sign-in service's tables (OidcModel, RateLimit, sessions, consents…)
 * from nearly empty, within a minute: autovacuum has not analyzed them yet (its first pass waits
 * autovacuum_naptime), so the server's named statements still carry the plans made for empty tables
 * (the batched OidcModel lookup scanned the whole table, ~300 pages a call). A running system's
 * autovacuum has analyzed them long before; so does the bench now, and the plans are made again
 * (ANALYZE invalidates them).
 */
async function analyzeAfterSignIns(ctx: Context): Promise<void> {
  const started = Date.now();
  await query(ctx.databaseUrl, "ANALYZE");
  say(`Statistics of every table updated (ANALYZE) in ${seconds(started)} s.`);
}

async function mintTokens(ctx: Context, loginClient: { loginClientId: string; redirectUri: string }): Promise<number | null> {
  try {
    ctx.discovery = await discover(ctx.issuer);
  } catch (error) {
    ctx.appTokenError = ctx.userTokensError = `sign-in service unavailable (${(error as Error).message})`;
    return null;
  }
  try {
    ctx.appToken = await clientCredentialsToken(ctx.discovery.token_endpoint, ctx.apiClient!.clientId, ctx.apiClient!.clientSecret);
  } catch (error) {
    ctx.appTokenError = (error as Error).message;
  }
  const { first, last } = tokenUserIds(ctx);
  const handles = Array.from({ length: last - first + 1 }, (_, i) => benchHandle(i + 1, ctx.seed.handleWidth));
  const started = Date.now();
  const cpu = process.cpuUsage();
  const serverCpu = await readCpuSeconds(ctx.server!.pid);
  say(`Signing ${handles.length} users in through the login form (${ctx.config.signInConcurrency} at a time)…`);
  try {
    const signedIn = await signInMany(
      ctx.discovery,
      { clientId: loginClient.loginClientId, redirectUri: loginClient.redirectUri },
      ctx.origin,
      handles,
      BENCH_PASSWORD,
      ctx.config.signInConcurrency,
      started + ctx.config.signInBudget * 1000,
      (done) => say(`  ${done} signed in (${seconds(started)} s)`),
    );
    ctx.userTokens = signedIn.map((t) => t.accessToken);
    ctx.refreshTokens = signedIn.flatMap((t) => (t.refreshToken ? [t.refreshToken] : []));
    const used = process.cpuUsage(cpu);
    const serverUsed = ((await readCpuSeconds(ctx.server!.pid)) ?? NaN) - (serverCpu ?? NaN);
    if (ctx.userTokens.length < handles.length) {
      const note =
        `Only ${ctx.userTokens.length} of ${handles.length} users were signed in within the ${ctx.config.signInBudget} s budget ` +
        `(--sign-in-budget); the chat case's ceiling drops to ${Math.floor(ctx.userTokens.length / 2)} posts/s.`;
      say(note);
      ctx.notes.push(note);
    }
    say(
      `Signed in ${ctx.userTokens.length} users in ${seconds(started)} s ` +
        `(CPU: server ${serverUsed.toFixed(1)} s, bench ${((used.user + used.system) / 1e6).toFixed(1)} s).`,
    );
    return (Date.now() - started) / 1000;
  } catch (error) {
    ctx.userTokensError = `sign-in flow failed: ${(error as Error).message}`;
    say(`User tokens unavailable: ${ctx.userTokensError}`);
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// Cases

/**
 * A case prepares one load scenario (probing the endpoint, starting its baseline process, finding
 * a deep cursor…), and may check the outcome afterwards. Cases in one group are measured together,
 * their time interleaved in rounds (bench/load-worker.ts), so their ratio survives a noisy machine.
 */
interface Prepared {
  scenario: LoadScenario;
  note?: string;
  /** After the load: a note on the outcome (e.g. every acknowledged chat post stored). */
  finish?: (load: LoadResult) => Promise<string | undefined>;
  cleanup?: () => Promise<void>;
  /**
   * A case that drives its own load instead of autocannon (case E: chat posts at a steady rate,
   * webhooks and streams listening; case W: a backlog of webhook deliveries): run alone, after the
   * group's autocannon scenarios.
   */
  run?: () => Promise<OwnRun>;
}

/** What a case that drives its own load found (case E: receipts; case W: the cost of a delivery). */
interface OwnRun {
  load: LoadResult;
  events?: EventsResult;
  deliveries?: DeliveryCostResult;
  note?: string;
}

interface CaseSpec {
  id: string;
  name: string;
  /** Baselines run against their own process, the rest against the app (RSS attributed). */
  app: boolean;
  /** Runs against a metering twin rather than the main server. */
  twin?: Twin;
  /** Runs against the WEB_CONCURRENCY process (CPU summed over its primary and workers). */
  workers?: boolean;
  /**
   * Starts its own app process(es) in prepare (cases M and P) and sets its scenario's
   * `cpu` and `database` itself.
   */
  own?: boolean;
  prepare(ctx: Context): Promise<Prepared>;
}

function scenario(ctx: Context, url: string, rest: Omit<LoadScenario, "url" | "connections" | "duration" | "warmup">): LoadScenario {
  return { url, connections: ctx.config.connections, duration: ctx.config.duration, warmup: ctx.config.warmup, ...rest };
}

function needAppToken(ctx: Context): string {
  if (!ctx.appToken) throw new Unavailable(ctx.appTokenError ?? "no app-only token");
  return ctx.appToken;
}

function needTwin(ctx: Context, twin: Twin): string {
  const started = ctx.twins[twin];
  if (!started) throw new Unavailable(`the METERING=${twin} twin server did not start`);
  return started.origin;
}

function needWorkers(ctx: Context): string {
  if (!ctx.workers) throw new Unavailable(`the WEB_CONCURRENCY=${ctx.config.workers} server did not start`);
  return ctx.workers.origin;
}

function processOf(spec: CaseSpec): AppProcess {
  if (spec.own) return "own";
  return spec.workers ? "workers" : (spec.twin ?? "main");
}

function needUserTokens(ctx: Context): string[] {
  if (!ctx.userTokens?.length) throw new Unavailable(ctx.userTokensError ?? "no user tokens");
  return ctx.userTokens;
}

/**
 * One request before the load: a missing endpoint (404 not_found, 501, 503) makes the case
 * "unavailable" instead of measuring error responses.
 */
async function probe(url: string, init: RequestInit, expected: number[]): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    throw new Unavailable(`${new URL(url).pathname}: ${(error as Error).message}`);
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  if (!expected.includes(response.status)) {
    const code = (body as { error?: { code?: string } | string })?.error;
    const detail = typeof code === "string" ? code : (code?.code ?? "");
    const reason = `${init.method ?? "GET"} ${new URL(url).pathname} answers ${response.status} ${detail}`.trim();
    if ([404, 501, 503].includes(response.status)) throw new Unavailable(reason);
    throw new Error(reason);
  }
  return body;
}

/**
 * A baseline's case: starts bench/baselines/<script> in its own process, prepares the case against
 * it (`prepare` gets its origin) and stops it after the load, or at once when preparing fails.
 */
async function onBaseline(
  ctx: Context,
  name: string,
  script: string,
  args: string[],
  prepare: (origin: string) => Promise<Omit<Prepared, "cleanup">>,
): Promise<Prepared> {
  const child = await startChild({
    name,
    script: path.join(ROOT, "bench", "baselines", script),
    args: ["0", ...args],
    env: { ...process.env, NODE_ENV: "production" },
    logDir: ctx.workDir,
    ready: async (text) => (await listeningPort(text)) !== undefined,
  });
  try {
    const port = await listeningPort(() => readFile(child.logFile, "utf8"));
    return { ...(await prepare(`http://127.0.0.1:${port}`)), cleanup: () => child.stop() };
  } catch (error) {
    await child.stop();
    throw error;
  }
}

function allHandles(ctx: Context): string[] {
  return Array.from({ length: ctx.seed.users }, (_, i) => benchHandle(i + 1, ctx.seed.handleWidth));
}

const api = (ctx: Context, p: string) => `${ctx.origin}/api/v1${p}`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * The `next_cursor` after `depth` rows of GET /users. Walking a million rows through the API takes
 * 10,000 requests, so the cursor is built with the app's own encoder (lib/api/pagination.ts) from
 * the id of the depth-th listed user, read with the listing's own condition. Two checks keep that
 * honest: the API's next_cursor after its first 100 rows equals what the encoder gives for the
 * 100th id, and the caller probes the deep page and compares its first user with `firstHandle`.
 */
async function deepUsersCursor(ctx: Context, token: string, depth: number): Promise<{ cursor: string; afterId: number; firstHandle: string }> {
  const listed = (offset: number) =>
    query<{ id: number; handle: string }>(
      ctx.databaseUrl,
      `SELECT id, handle FROM "User" WHERE "directoryVisible" AND NOT disabled AND "worldId" = $2 ORDER BY id OFFSET $1 LIMIT 2`,
      [offset, LIVE_WORLD_ID],
    );
  const response = await fetch(api(ctx, "/users?limit=100"), { headers: bearer(token) });
  if (!response.ok) throw new Error(`GET /users?limit=100: ${response.status}`);
  const first = (await response.json()) as { data: { next_cursor: string | null } };
  const [hundredth] = await listed(99);
  if (!hundredth || first.data.next_cursor !== encodeUsersCursor(hundredth.id)) {
    throw new Error("GET /users's cursor is not encodeUsersCursor(last id) any more: the bench cannot build a deep cursor");
  }
  const [last, next] = await listed(depth - 1);
  if (!last || !next) throw new Error(`GET /users has fewer than ${depth + 1} rows`);
  return { cursor: encodeUsersCursor(last.id), afterId: last.id, firstHandle: next.handle };
}

/** The plan of a list statement for a case; a failure is a note, never a failed case. */
async function recordPlan(ctx: Context, caseId: string, statement: Statement, values: (string | number)[]): Promise<void> {
  try {
    ctx.plans.push(await explainStatement(ctx.databaseUrl, caseId, statement, values));
  } catch (error) {
    ctx.notes.push(`EXPLAIN of ${statement.name} for case ${caseId} failed: ${(error as Error).message}`);
  }
}

function chatIdsNote(stored: number, acked: number): string {
  return stored === acked ? `all ${acked.toLocaleString("en-US")} acknowledged posts stored` : `${acked - stored} acknowledged posts NOT stored`;
}

const FORM = { "content-type": "application/x-www-form-urlencoded" };
/** A Streamable HTTP client's POST (the MCP server answers JSON). */
const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" };
/** Users signed in for the MCP case's tokens (a random one per request, as case 5's); case 5d's DPoP-bound tokens too. */
const MCP_TOKEN_USERS = 50;

/**
 * Cases 4d and 5d: the ready requests (each with its own DPoP proof) the load generator signs
 * before the warm-up, enough for the warm-up and every measured round at `rate` requests/s, an
 * upper estimate of what the case reaches on this kind of machine (bench/load.ts LoadScenario.dpop).
 */
function dpopScenario(ctx: Context, rate: number): { dpop: NonNullable<LoadScenario["dpop"]>; note: string } {
  const pool = Math.ceil((ctx.config.warmup + ctx.config.duration) * rate);
  return {
    dpop: { key: createDpopKey(), pool },
    note:
      `a fresh DPoP proof (ES256, its own jti) per request, precomputed: the load generator signs ${pool.toLocaleString("en-US")} ` +
      `requests before the warm-up (${rate.toLocaleString("en-US")}/s × ${ctx.config.warmup + ctx.config.duration} s), not while measuring`,
  };
}

/** After a DPoP case: how the proof pool was used, and whether the load outran it (then proofs were signed while measuring). */
function dpopPoolNote(load: LoadResult): string | undefined {
  const use = load.dpop;
  if (!use) return undefined;
  const made = `pool signed in ${use.signSeconds.toFixed(1)} s, ${use.sent.toLocaleString("en-US")} requests sent`;
  if (!use.liveAfter) return made;
  const why = use.liveAfter.reason === "exhausted" ? "proof pool exhausted" : `proofs older than ${DPOP_POOL_FRESH_MS / 60_000} minutes`;
  return `${made}; ${why} after ${use.liveAfter.requests.toLocaleString("en-US")} requests: ${use.signedLive.toLocaleString("en-US")} signed while sending`;
}

function buildCases(config: BenchConfig): CaseSpec[] {
  const apiScopes = API_CLIENT_SCOPES.join(" ");
  return [
    {
      id: "A",
      name: "Baseline A: node:http, small JSON",
      app: false,
      async prepare(ctx) {
        return onBaseline(ctx, "baseline-a", "bare-http.ts", [], async (origin) => ({ scenario: scenario(ctx, origin, { path: "/", mode: "fixed" }) }));
      },
    },
    {
      id: "C",
      name: "Baseline C: oidc-provider alone, client credentials (memory, ES256)",
      app: false,
      async prepare(ctx) {
        return onBaseline(ctx, "baseline-c", "oidc-standalone.ts", ["bench-client", "bench-secret"], async (origin) => {
          const body = clientCredentialsBody("bench-client", "bench-secret", apiScopes);
          await probe(`${origin}/token`, { method: "POST", headers: FORM, body }, [200]);
          return { scenario: scenario(ctx, origin, { method: "POST", path: "/token", headers: FORM, body, mode: "fixed" }) };
        });
      },
    },
    {
      id: "4",
      name: "Token endpoint: client credentials (approved API client)",
      app: true,
      async prepare(ctx) {
        if (!ctx.discovery || !ctx.apiClient) throw new Unavailable(ctx.appTokenError ?? "sign-in service unavailable");
        needAppToken(ctx);
        const endpoint = new URL(ctx.discovery.token_endpoint);
        const body = clientCredentialsBody(ctx.apiClient.clientId, ctx.apiClient.clientSecret);
        return { scenario: scenario(ctx, endpoint.origin, { method: "POST", path: endpoint.pathname, headers: FORM, body, mode: "fixed" }) };
      },
    },
    {
      id: "4d",
      name: "Token endpoint: client credentials with a DPoP proof (fast path)",
      app: true,
      async prepare(ctx) {
        if (!ctx.discovery || !ctx.apiClient) throw new Unavailable(ctx.appTokenError ?? "sign-in service unavailable");
        needAppToken(ctx);
        const endpoint = new URL(ctx.discovery.token_endpoint);
        const body = clientCredentialsBody(ctx.apiClient.clientId, ctx.apiClient.clientSecret);
        const { dpop, note } = dpopScenario(ctx, 15_000);
        const proof = new DpopSigner(dpop.key).proof("POST", endpoint.href);
        const answer = (await probe(endpoint.href, { method: "POST", headers: { ...FORM, dpop: proof }, body }, [200])) as { token_type?: string };
        if (answer.token_type !== "DPoP") throw new Error(`client credentials with a DPoP proof answered token_type ${answer.token_type ?? "none"}`);
        return {
          scenario: scenario(ctx, endpoint.origin, { method: "POST", path: endpoint.pathname, headers: FORM, body, mode: "fixed", dpop }),
          note,
          finish: async (load) => dpopPoolNote(load),
        };
      },
    },
    ...(["on", "off"] as const).map(
      (twin): CaseSpec => ({
        id: `4${twin}`,
        name: `Token endpoint, METERING=${twin} twin process`,
        app: true,
        twin,
        async prepare(ctx) {
          if (!ctx.discovery || !ctx.apiClient) throw new Unavailable(ctx.appTokenError ?? "sign-in service unavailable");
          const origin = needTwin(ctx, twin);
          const path = new URL(ctx.discovery.token_endpoint).pathname;
          const body = clientCredentialsBody(ctx.apiClient.clientId, ctx.apiClient.clientSecret);
          await probe(`${origin}${path}`, { method: "POST", headers: FORM, body }, [200]);
          return { scenario: scenario(ctx, origin, { method: "POST", path, headers: FORM, body, mode: "fixed" }) };
        },
      }),
    ),
    {
      id: "4w",
      name: `Token endpoint, ${config.workers} workers (WEB_CONCURRENCY process)`,
      app: true,
      workers: true,
      async prepare(ctx) {
        if (!ctx.discovery || !ctx.apiClient) throw new Unavailable(ctx.appTokenError ?? "sign-in service unavailable");
        const origin = needWorkers(ctx);
        const path = new URL(ctx.discovery.token_endpoint).pathname;
        const body = clientCredentialsBody(ctx.apiClient.clientId, ctx.apiClient.clientSecret);
        await probe(`${origin}${path}`, { method: "POST", headers: FORM, body }, [200]);
        return { scenario: scenario(ctx, origin, { method: "POST", path, headers: FORM, body, mode: "fixed" }) };
      },
    },
    {
      id: "B",
      name: "Baseline B: node:http + pg, user by handle",
      app: false,
      async prepare(ctx) {
        return onBaseline(ctx, "baseline-b", "bare-pg.ts", [ctx.databaseUrl], async (origin) => ({
          scenario: scenario(ctx, origin, { path: "/users/{handle}", mode: "random", handles: allHandles(ctx) }),
        }));
      },
    },
    {
      id: "5",
      name: "GET /users/{username}, user token, random users",
      app: true,
      async prepare(ctx) {
        const tokens = needUserTokens(ctx);
        await probe(api(ctx, `/users/${benchHandle(2, ctx.seed.handleWidth)}`), { headers: bearer(tokens[0]!) }, [200]);
        return { scenario: scenario(ctx, ctx.origin, { path: "/api/v1/users/{handle}", mode: "random", tokens, handles: allHandles(ctx) }) };
      },
    },
    {
      id: "5m",
      name: "MCP tools/call get_user_profile (the same read as case 5), user tokens for /mcp, random users",
      app: true,
      async prepare(ctx) {
        if (!ctx.discovery || !ctx.loginClient) throw new Unavailable(ctx.userTokensError ?? "sign-in service unavailable");
        // Tokens for the MCP server's audience: the same login client and users as case 5's, asked with resource={APP_URL}/mcp.
        const handles = allHandles(ctx).slice(0, MCP_TOKEN_USERS);
        const tokens: string[] = [];
        for (const handle of handles) {
          tokens.push((await signIn(ctx.discovery, ctx.loginClient, ctx.origin, handle, BENCH_PASSWORD, { resource: `${ctx.origin}/mcp` })).accessToken);
        }
        const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_user_profile", arguments: { username: "{handle}" } } });
        const probed = (await probe(`${ctx.origin}/mcp`, { method: "POST", headers: { ...MCP_HEADERS, ...bearer(tokens[0]!) }, body: body.replace("{handle}", benchHandle(2, ctx.seed.handleWidth)) }, [200])) as {
          result?: { isError?: boolean };
        };
        if (!probed.result || probed.result.isError) throw new Error(`POST /mcp tools/call get_user_profile answered ${JSON.stringify(probed).slice(0, 200)}`);
        return { scenario: scenario(ctx, ctx.origin, { method: "POST", path: "/mcp", headers: MCP_HEADERS, body, mode: "random", tokens, handles: allHandles(ctx) }) };
      },
    },
    {
      id: "5d",
      name: "GET /users/{username}, DPoP-bound user tokens, random users",
      app: true,
      async prepare(ctx) {
        if (!ctx.discovery || !ctx.loginClient) throw new Unavailable(ctx.userTokensError ?? "sign-in service unavailable");
        const { dpop, note } = dpopScenario(ctx, 12_000);
        const signer = new DpopSigner(dpop.key);
        // As case 5m's: the first users, signed in again, each code exchange with a proof of the bench's key.
        const tokens: string[] = [];
        for (const handle of allHandles(ctx).slice(0, MCP_TOKEN_USERS)) {
          tokens.push((await signIn(ctx.discovery, ctx.loginClient, ctx.origin, handle, BENCH_PASSWORD, { dpop: signer })).accessToken);
        }
        const url = api(ctx, `/users/${benchHandle(2, ctx.seed.handleWidth)}`);
        await probe(url, { headers: { authorization: `DPoP ${tokens[0]!}`, dpop: signer.proof("GET", url, accessTokenHash(tokens[0]!)) } }, [200]);
        return {
          scenario: scenario(ctx, ctx.origin, { path: "/api/v1/users/{handle}", mode: "random", tokens, handles: allHandles(ctx), dpop }),
          note: `${tokens.length} users' tokens bound to one key; ${note}`,
          finish: async (load) => dpopPoolNote(load),
        };
      },
    },
    ...(["on", "off"] as const).map(
      (twin): CaseSpec => ({
        id: `5${twin}`,
        name: `GET /users/{username}, METERING=${twin} twin process`,
        app: true,
        twin,
        async prepare(ctx) {
          const tokens = needUserTokens(ctx);
          const origin = needTwin(ctx, twin);
          await probe(`${origin}/api/v1/users/${benchHandle(2, ctx.seed.handleWidth)}`, { headers: bearer(tokens[0]!) }, [200]);
          return { scenario: scenario(ctx, origin, { path: "/api/v1/users/{handle}", mode: "random", tokens, handles: allHandles(ctx) }) };
        },
      }),
    ),
    {
      id: "5w",
      name: `GET /users/{username}, ${config.workers} workers (WEB_CONCURRENCY process)`,
      app: true,
      workers: true,
      async prepare(ctx) {
        const tokens = needUserTokens(ctx);
        const origin = needWorkers(ctx);
        await probe(`${origin}/api/v1/users/${benchHandle(2, ctx.seed.handleWidth)}`, { headers: bearer(tokens[0]!) }, [200]);
        return { scenario: scenario(ctx, origin, { path: "/api/v1/users/{handle}", mode: "random", tokens, handles: allHandles(ctx) }) };
      },
    },
    {
      id: "6a",
      name: "GET /me",
      app: true,
      async prepare(ctx) {
        const tokens = needUserTokens(ctx);
        await probe(api(ctx, "/me"), { headers: bearer(tokens[0]!) }, [200]);
        return { scenario: scenario(ctx, ctx.origin, { path: "/api/v1/me", mode: "random", tokens }) };
      },
    },
    {
      id: "6b",
      name: "GET /me/notifications",
      app: true,
      async prepare(ctx) {
        const tokens = needUserTokens(ctx);
        await probe(api(ctx, "/me/notifications"), { headers: bearer(tokens[0]!) }, [200]);
        return { scenario: scenario(ctx, ctx.origin, { path: "/api/v1/me/notifications", mode: "random", tokens }) };
      },
    },
    {
      id: "7a",
      name: "GET /users, first page",
      app: true,
      async prepare(ctx) {
        const token = needAppToken(ctx);
        await probe(api(ctx, "/users"), { headers: bearer(token) }, [200]);
        // The handler asks for one row more than the page, to know whether another page follows.
        await recordPlan(ctx, "7a", LIST_DIRECTORY_USERS_STATEMENT, [0, USERS_DEFAULT_LIMIT + 1, LIVE_WORLD_ID]);
        return { scenario: scenario(ctx, ctx.origin, { path: "/api/v1/users", mode: "fixed", tokens: [token] }) };
      },
    },
    {
      id: "7b",
      name: "GET /users, deep page (two pages before the end)",
      app: true,
      async prepare(ctx) {
        const token = needAppToken(ctx);
        await probe(api(ctx, "/users"), { headers: bearer(token) }, [200]);
        // The live directory: the sandboxes' people are in the same table, never listed.
        const n = await count(ctx.databaseUrl, `SELECT count(*) AS n FROM "User" WHERE "directoryVisible" AND "worldId" = ${LIVE_WORLD_ID}`);
        // As deep as the data allows, leaving at least two default pages after it.
        const depth = Math.floor((n - 2 * USERS_DEFAULT_LIMIT) / 100) * 100;
        if (depth < 100) throw new Unavailable("not enough listed users for a deep page");
        const started = Date.now();
        const { cursor, afterId, firstHandle } = await deepUsersCursor(ctx, token, depth);
        const path = `/api/v1/users?cursor=${encodeURIComponent(cursor)}`;
        const body = (await probe(`${ctx.origin}${path}`, { headers: bearer(token) }, [200])) as { data?: { users?: { handle?: string }[] } };
        const shown = body.data?.users?.[0]?.handle;
        if (shown !== firstHandle) throw new Error(`the deep page starts with ${shown ?? "nothing"}, not ${firstHandle}`);
        await recordPlan(ctx, "7b", LIST_DIRECTORY_USERS_STATEMENT, [afterId, USERS_DEFAULT_LIMIT + 1, LIVE_WORLD_ID]);
        return {
          scenario: scenario(ctx, ctx.origin, { path, mode: "fixed", tokens: [token] }),
          note: `${depth.toLocaleString("en-US")} rows deep (cursor built with lib/api/pagination.ts and checked against the API in ${seconds(started)} s)`,
        };
      },
    },
    {
      id: "7c",
      name: "GET /global-chat/messages, newest page",
      app: true,
      async prepare(ctx) {
        const token = needAppToken(ctx);
        await probe(api(ctx, "/global-chat/messages"), { headers: bearer(token) }, [200]);
        await recordPlan(ctx, "7c", NEWEST_CHAT_MESSAGES_STATEMENT, [CHAT_DEFAULT_LIMIT + 1, LIVE_WORLD_ID]);
        return { scenario: scenario(ctx, ctx.origin, { path: "/api/v1/global-chat/messages", mode: "fixed", tokens: [token] }) };
      },
    },
    {
      id: "7d",
      name: "GET /global-chat/messages, deep page (100 rows before the oldest)",
      app: true,
      async prepare(ctx) {
        const token = needAppToken(ctx);
        await probe(api(ctx, "/global-chat/messages"), { headers: bearer(token) }, [200]);
        const n = await count(ctx.databaseUrl, `SELECT count(*) AS n FROM "ChatMessage" WHERE "worldId" = ${LIVE_WORLD_ID}`);
        // As deep as the data allows, leaving 100 older messages (five default pages).
        const depth = Math.max(0, n - 100);
        // SPEC: `before` is a message id, so the deep cursor is the id `depth` rows from the newest.
        const rows = await query<{ id: string }>(ctx.databaseUrl, `SELECT id FROM "ChatMessage" WHERE "worldId" = $2 ORDER BY id DESC OFFSET $1 LIMIT 1`, [depth, LIVE_WORLD_ID]);
        if (!rows[0]) throw new Unavailable("not enough chat messages for a deep page");
        const path = `/api/v1/global-chat/messages?before=${rows[0].id}`;
        const body = (await probe(`${ctx.origin}${path}`, { headers: bearer(token) }, [200])) as { data?: { messages?: unknown[] } };
        if (!body.data?.messages?.length) throw new Error("the deep page came back empty");
        await recordPlan(ctx, "7d", CHAT_MESSAGES_BEFORE_STATEMENT, [CHAT_DEFAULT_LIMIT + 1, rows[0].id, LIVE_WORLD_ID]);
        return {
          scenario: scenario(ctx, ctx.origin, { path, mode: "fixed", tokens: [token] }),
          note: `${depth.toLocaleString("en-US")} rows deep (before=${rows[0].id})`,
        };
      },
    },
    {
      id: "8a",
      name: "POST /global-chat/messages, round-robin over users",
      app: true,
      async prepare(ctx) {
        const tokens = needUserTokens(ctx);
        const headers = { "content-type": "application/json" };
        // The probe posts as the last user, whose turn in the round-robin comes last.
        await probe(
          api(ctx, "/global-chat/messages"),
          { method: "POST", headers: { ...headers, ...bearer(tokens.at(-1)!) }, body: JSON.stringify({ text: "bench probe" }) },
          [201],
        );
        const { first, last } = tokenUserIds(ctx);
        await query(ctx.databaseUrl, `UPDATE "User" SET "lastChatPostAt" = NULL WHERE id BETWEEN $1 AND $2`, [first, last]);
        const before = await count(ctx.databaseUrl, `SELECT count(*) AS n FROM "ChatMessage"`);
        return {
          scenario: scenario(ctx, ctx.origin, {
            method: "POST",
            path: "/api/v1/global-chat/messages",
            headers,
            body: '{"text":"bench post {i}: hello from the load generator"}',
            mode: "roundRobin",
            tokens,
            collect: "dataId",
          }),
          async finish(load) {
            // Every acknowledged (201) post, warm-up included, must be in the table.
            const ids = load.ackedIds ?? [];
            const stored = await count(ctx.databaseUrl, `SELECT count(*) AS n FROM "ChatMessage" WHERE id = ANY($1::bigint[])`, [ids]);
            const after = await count(ctx.databaseUrl, `SELECT count(*) AS n FROM "ChatMessage"`);
            const ceiling = Math.floor(tokens.length / 2);
            return (
              `${chatIdsNote(stored, ids.length)} (${after - before} new rows); ` +
              `ceiling ${ceiling.toLocaleString("en-US")}/s with ${tokens.length} users at 1 post / 2 s`
            );
          },
        };
      },
    },
    {
      id: "8b",
      name: "POST /users/{handle}/poke, distinct pairs",
      app: true,
      async prepare(ctx) {
        const tokens = needUserTokens(ctx);
        const { last } = tokenUserIds(ctx);
        const firstTarget = last - ctx.seed.firstUserId + 2;
        const targets = Array.from({ length: ctx.seed.users - firstTarget + 1 }, (_, i) => benchHandle(firstTarget + i, ctx.seed.handleWidth));
        if (targets.length < 2) throw new Unavailable("no users left to poke (raise --users or lower --signed-in)");
        // The probe pokes the last target from the last caller: outside the pairs the load uses first.
        await probe(api(ctx, `/users/${targets.at(-1)}/poke`), { method: "POST", headers: bearer(tokens.at(-1)!) }, [200, 201]);
        return {
          scenario: scenario(ctx, ctx.origin, { method: "POST", path: "/api/v1/users/{handle}/poke", mode: "roundRobin", tokens, handles: targets }),
          note: `${tokens.length} callers × ${targets.length.toLocaleString("en-US")} targets`,
        };
      },
    },
    {
      id: "D",
      name: "Baseline D: the password check alone (verifyPassword, production Argon2id)",
      app: false,
      async prepare(ctx) {
        const users = needFlowUsers(ctx);
        return onBaseline(ctx, "baseline-d", "password-hash.ts", [users.storedHash], async (origin) => {
          await probe(origin, { method: "POST", body: BENCH_PASSWORD }, [204]);
          return {
            scenario: signInScenario(ctx, origin, { method: "POST", path: "/", body: BENCH_PASSWORD, mode: "fixed" }),
            note: `${PASSWORD_HASH_NAME}; ${ctx.config.signInConcurrency} at a time`,
          };
        });
      },
    },
    flowCase("F", "Sign-in flow: authorize → login → code → token (returning user, production Argon2id)", (ctx) => ctx.loginClient, (ctx) =>
      ctx.withNext ? "GET authorize, GET login page, POST login, GET resume, POST token" : "GET authorize, POST login, GET resume, POST token (no Next: login page not fetched)",
    ),
    // The first sign-in (flowCase's check) fetches and stores the agent's document; the measured ones find it cached.
    flowCase(
      "Fa",
      "Sign-in flow of an AI agent (its client ID the URL of its metadata document, cached): the same steps as F",
      (ctx) => ctx.agentClient,
      (ctx) => `as F, with client_id ${ctx.agentClient!.clientId}; compare its sign-ins/s with F's (goal: within 10 %)`,
    ),
    refreshCase("R", "Refresh grant: rotation (consume old, issue new), the plain form (fast path)", 0, ""),
    // The same chains with a `scope` parameter, which the fast path leaves to oidc-provider: what
    // the fast path saves, in the same run (report only).
    refreshCase("Rp", "Refresh grant through oidc-provider (the same, with scope=openid)", 1, "&scope=openid"),
    ...capacityCases<Context>({ needUserTokens, needAppToken, tokenUserIds, startApp: startAppProcess, probe, query, Unavailable }),
    deliveryCostCase(config, eventDeps),
    eventsCase(config, eventDeps, "E", config.eventsRate),
    ...config.eventsCurve.map((rate) => eventsCase(config, eventDeps, curveCaseId(rate), rate)),
  ];
}

const eventDeps = {
  needUserTokens,
  platformCli,
  query,
  resetChatStamps: (ctx: Context) =>
    query(ctx.databaseUrl, `UPDATE "User" SET "lastChatPostAt" = NULL WHERE id BETWEEN $1 AND $2`, [tokenUserIds(ctx).first, tokenUserIds(ctx).last]),
  Unavailable,
};

/** A sign-in flow case (F, Fa): returning users through authorize, login and token for `client`. */
function flowCase(id: string, name: string, client: (ctx: Context) => LoginClient | undefined, steps: (ctx: Context) => string): CaseSpec {
  return {
    id,
    name,
    app: true,
    async prepare(ctx) {
      const users = needFlowUsers(ctx);
      const chosen = client(ctx);
      if (!ctx.discovery || !chosen) throw new Unavailable(ctx.userTokensError ?? "sign-in service unavailable");
      const flow = { discovery: ctx.discovery, client: chosen, appOrigin: ctx.origin, usernames: users.handles, password: BENCH_PASSWORD, loginPage: ctx.withNext };
      // One sign-in first: a refusal (wrong hash, throttle, a refused client) makes the case fail with its reason.
      await signIn(flow.discovery, flow.client, flow.appOrigin, users.handles[0]!, BENCH_PASSWORD, { loginPage: flow.loginPage });
      return {
        scenario: signInScenario(ctx, ctx.origin, { path: "/", mode: "flow", flow }),
        note: `${ctx.config.signInConcurrency} sign-ins at a time over ${users.handles.length} users; ${steps(ctx)}`,
      };
    },
  };
}

/** Case E at another rate of --events-curve: E100, E400… */
function curveCaseId(rate: number): string {
  return `E${rate}`;
}

/**
 * R and Rp: rotation chains over the signed-in users' refresh tokens, each case on its own half of
 * them (a token used by both would be a replay, which revokes its grant).
 */
function refreshCase(id: string, name: string, half: 0 | 1, extraForm: string): CaseSpec {
  return {
    id,
    name,
    app: true,
    async prepare(ctx) {
      if (!ctx.discovery || !ctx.loginClient) throw new Unavailable(ctx.userTokensError ?? "sign-in service unavailable");
      const all = ctx.refreshTokens ?? [];
      const tokens = all.slice(half * Math.floor(all.length / 2), (half + 1) * Math.floor(all.length / 2));
      if (tokens.length < ctx.config.connections * (ROUNDS + 2)) {
        throw new Unavailable(`${tokens.length} refresh tokens; needs ${ctx.config.connections * (ROUNDS + 2)} (one per connection per round)`);
      }
      const endpoint = new URL(ctx.discovery.token_endpoint);
      const loginClient = ctx.loginClient;
      const body = `grant_type=refresh_token&client_id=${encodeURIComponent(loginClient.clientId)}&refresh_token={token}${extraForm}`;
      return {
        scenario: scenario(ctx, endpoint.origin, { method: "POST", path: endpoint.pathname, headers: FORM, body, mode: "refreshChain", tokens }),
        ...(half === 0 ? { finish: async () => reuseDetectionNote(ctx, loginClient) } : {}),
      };
    },
  };
}

/**
 * D and F: a sign-in takes about a second at 8 at a time, so each round is followed by a pause for
 * the server to finish what is in flight (a queued hash of D, a flow's last requests) before the
 * other side's round, and the group runs in 2 rounds rather than ROUNDS (fewer round ends, each
 * of which leaves a sign-in's partial work uncounted).
 */
const SIGN_IN_SETTLE = 2;
const SIGN_IN_ROUNDS = 2;

/** D and F alike: `--sign-in-concurrency` at a time, with the pause after each round. */
function signInScenario(ctx: Context, url: string, rest: Omit<LoadScenario, "url" | "connections" | "duration" | "warmup" | "settle">): LoadScenario {
  return { ...scenario(ctx, url, { ...rest, settle: SIGN_IN_SETTLE }), connections: ctx.config.signInConcurrency };
}

function needFlowUsers(ctx: Context): NonNullable<Context["flowUsers"]> {
  if (!ctx.flowUsers) throw new Unavailable("no users left for the sign-in flow (raise --users or lower --signed-in)");
  return ctx.flowUsers;
}

async function refreshGrant(tokenEndpoint: string, clientId: string, refreshToken: string): Promise<{ status: number; body: { refresh_token?: string; error?: string } }> {
  const response = await fetch(tokenEndpoint, {
    method: "POST",
    headers: FORM,
    body: new URLSearchParams({ grant_type: "refresh_token", client_id: clientId, refresh_token: refreshToken }).toString(),
  });
  return { status: response.status, body: (await response.json().catch(() => ({}))) as { refresh_token?: string; error?: string } };
}

/**
 * After case R: rotation still detects reuse. A refresh token is used once (200, a new one), then
 * again: invalid_grant, and the grant is revoked, so the new one fails too (oidc-provider's reuse
 * detection; lib/oidc/adapter.ts consume()). Revoking a grant voids that user's access tokens for
 * the app, so the check signs in a user of the flow case, whose tokens no other case uses.
 */
async function reuseDetectionNote(ctx: Context, client: LoginClient): Promise<string> {
  const users = ctx.flowUsers;
  if (!users || !ctx.discovery) return "reuse check skipped (no flow users)";
  const tokenEndpoint = ctx.discovery.token_endpoint;
  const { refreshToken: first } = await signIn(ctx.discovery, client, ctx.origin, users.handles.at(-1)!, BENCH_PASSWORD);
  if (!first) return "reuse check: the sign-in gave no refresh token (NOT intact)";
  const once = await refreshGrant(tokenEndpoint, client.clientId, first);
  if (once.status !== 200 || !once.body.refresh_token) return `reuse check: first use answered ${once.status} ${once.body.error ?? ""} (NOT intact)`;
  const replay = await refreshGrant(tokenEndpoint, client.clientId, first);
  const successor = await refreshGrant(tokenEndpoint, client.clientId, once.body.refresh_token);
  const intact = replay.status === 400 && replay.body.error === "invalid_grant" && successor.status === 400 && successor.body.error === "invalid_grant";
  return intact
    ? "reuse detection intact: a replayed refresh token answered invalid_grant and revoked its successor"
    : `reuse detection NOT intact: replay ${replay.status} ${replay.body.error ?? ""}, successor ${successor.status} ${successor.body.error ?? ""}`;
}

/** Measured together, interleaved: a case with its baseline, a first page with its deep page. */
const FIXED_GROUPS = [["A"], ["C", "4", "4d", "4on", "4off", "4w", "R", "Rp"], ["B", "5", "5d", "5m", "5on", "5off", "5w"], ["6a"], ["6b"], ["7a", "7b"], ["7c", "7d"], ["8a"], ["8b"], ["M", "P"], ["D", "F", "Fa"], ["W"]];

/**
 * The groups in order; the event cases last, each alone (their own RSS peak), by rate: E at
 * --events-rate among the curve's rates.
 */
function groupsOf(config: BenchConfig): string[][] {
  const rates = [...new Set([config.eventsRate, ...config.eventsCurve])].sort((a, b) => a - b);
  return [...FIXED_GROUPS, ...rates.map((rate) => [rate === config.eventsRate ? "E" : curveCaseId(rate)])];
}
/** Rounds a group's measured time is split into (each member gets duration / ROUNDS per round). */
const ROUNDS = 4;

function describe(load: LoadResult, note?: string): string {
  return (
    `${load.rps.toFixed(0)} req/s (2xx ${load.okRps.toFixed(0)}/s), p50 ${load.latency.p50.toFixed(1)} ms, p99 ${load.latency.p99.toFixed(1)} ms, ` +
    `errors ${load.errors}, non-2xx ${load.non2xx}${note ? `; ${note}` : ""}`
  );
}

/**
 * Where the workers process's CPU went during the group (primary vs each worker, from the two
 * readings of readTreeCpuSeconds), and its RSS now, for the note of case 4w or 5w: peak RSS (case 9)
 * stays the main server's.
 */
async function describeWorkers(primary: number, [before, after]: Map<number, number>[]): Promise<string> {
  const used = (pid: number) => (after!.get(pid) ?? 0) - (before!.get(pid) ?? 0);
  const workers = [...after!.keys()].filter((pid) => pid !== primary);
  const rss = await readTreeRss(primary);
  return (
    `CPU in the group: primary ${used(primary).toFixed(1)} s, workers ${workers.map((pid) => `${used(pid).toFixed(1)} s`).join(" + ")}; ` +
    `RSS ${rss.map((mb) => mb.toFixed(0)).join(" + ")} = ${rss.reduce((a, b) => a + b, 0).toFixed(0)} MB (primary + workers)`
  );
}

/** The database's counters over a case's measured rounds, per measured request. */
function databasePerRequest(load: LoadResult): DatabasePerRequest | undefined {
  const d = load.database;
  if (!d || load.requests === 0) return undefined;
  return {
    ...(d.statements !== undefined ? { queries: d.statements / load.requests } : {}),
    ...(d.execMs !== undefined ? { execMs: d.execMs / load.requests } : {}),
    ...(d.cpuSeconds !== undefined ? { cpuMs: (d.cpuSeconds * 1000) / load.requests } : {}),
    transactions: d.transactions / load.requests,
    ...(d.walBytes !== undefined ? { walBytes: d.walBytes / load.requests } : {}),
  };
}

function describeDatabase(d: DatabasePerRequest): string {
  const parts = [
    d.queries !== undefined ? `${d.queries.toFixed(2)} statements` : undefined,
    `${d.transactions.toFixed(2)} transactions`,
    d.execMs !== undefined ? `${d.execMs.toFixed(3)} ms executing` : undefined,
    d.cpuMs !== undefined ? `CPU ${d.cpuMs.toFixed(2)} ms` : undefined,
    d.walBytes !== undefined ? `WAL ${d.walBytes.toFixed(0)} B` : undefined,
  ];
  return `${parts.filter(Boolean).join(", ")} per request`;
}

async function runGroup(ctx: Context, specs: CaseSpec[]): Promise<CaseResult[]> {
  const started = Date.now();
  const results = new Map<string, CaseResult>();
  const ready: { spec: CaseSpec; prepared: Prepared }[] = [];
  say(`\n${specs.map((s) => `[${s.id}] ${s.name}`).join("\n")}`);
  try {
    for (const spec of specs) {
      try {
        ready.push({ spec, prepared: await spec.prepare(ctx) });
      } catch (error) {
        const status = error instanceof Unavailable ? "unavailable" : "failed";
        say(`    ${spec.id} ${status}: ${(error as Error).message}`);
        results.set(spec.id, { id: spec.id, name: spec.name, status, reason: (error as Error).message.split("\n")[0] });
      }
    }
    if (ready.length) {
      const phase = ready.map((r) => r.spec.id).join("+");
      await ctx.sampler?.setPhase(phase);
      // Each app process's CPU over the group, per request it answered (warm-ups included): the
      // main server for the app cases, each metering twin for its own, the workers
      // process's primary and workers together for theirs.
      const processes: { key: AppProcess; pid: number | undefined }[] = [
        { key: "main", pid: ctx.server?.pid },
        { key: "on", pid: ctx.twins.on?.child.pid },
        { key: "off", pid: ctx.twins.off?.child.pid },
        { key: "workers", pid: ready.some((r) => r.spec.workers) ? ctx.workers?.child.pid : undefined },
      ];
      const workersCpu: Map<number, number>[] = [];
      const readCpu = async (p: (typeof processes)[number]) => {
        if (!p.pid) return undefined;
        if (p.key !== "workers") return readCpuSeconds(p.pid);
        const tree = await readTreeCpuSeconds(p.pid);
        if (tree) workersCpu.push(tree.byPid);
        return tree?.total;
      };
      // Each app case's own CPU: read around its rounds by the load generator (bench/load-worker.ts).
      for (const { spec, prepared } of ready) {
        const target = processes.find((p) => p.key === processOf(spec));
        if (spec.app && target?.pid) prepared.scenario.cpu = { pid: target.pid, tree: target.key === "workers" };
        // The database's side of every app case (case P names its replica too).
        if (spec.app) prepared.scenario.database ??= [{ url: ctx.databaseUrl }];
      }
      const cpuBefore = await Promise.all(processes.map(readCpu));
      const loads: LoadResult[] = [];
      const own = new Map<number, Omit<OwnRun, "load">>();
      try {
        const slow = ready.some((r) => r.prepared.scenario.settle !== undefined);
        const driven = ready.filter((r) => !r.prepared.run);
        const results = driven.length ? await runLoad(driven.map((r) => r.prepared.scenario), slow ? SIGN_IN_ROUNDS : ROUNDS, ctx.workDir) : [];
        for (const [i, r] of ready.entries()) {
          if (!r.prepared.run) {
            loads[i] = results.shift()!;
            continue;
          }
          const { load, ...found } = await r.prepared.run();
          loads[i] = load;
          own.set(i, found);
        }
      } finally {
        await ctx.sampler?.setPhase("between");
      }
      const cpuAfter = await Promise.all(processes.map(readCpu));
      const workersNote = workersCpu.length === 2 && ctx.workers ? await describeWorkers(ctx.workers.child.pid, workersCpu) : undefined;
      const cpuPerRequest = new Map<AppProcess, number | undefined>();
      for (const [i, p] of processes.entries()) {
        const requests = ready.reduce(
          (sum, r, j) => sum + (r.spec.app && processOf(r.spec) === p.key ? loads[j]!.requests + (loads[j]!.warmupRequests ?? 0) : 0),
          0,
        );
        const before = cpuBefore[i];
        const after = cpuAfter[i];
        cpuPerRequest.set(p.key, before !== undefined && after !== undefined && requests > 0 ? ((after - before) * 1000) / requests : undefined);
      }
      if (ctx.config.profile && ctx.serverSpawnedAt) {
        // The measured part is the end of the run; the profile clock starts just after the spawn.
        const end = (Date.now() - ctx.serverSpawnedAt) / 1000;
        const measured = ready.reduce((sum, r) => sum + r.prepared.scenario.duration, 0);
        say(`    profile window: --window ${(end - measured).toFixed(1)},${end.toFixed(1)}`);
      }
      for (const [i, { spec, prepared }] of ready.entries()) {
        const load = loads[i]!;
        const finished = prepared.finish ? await prepared.finish(load) : undefined;
        const note = [prepared.note, own.get(i)?.note, finished, spec.workers ? workersNote : undefined].filter(Boolean).join("; ") || undefined;
        const { ackedIds: _dropped, ...kept } = load;
        const { events, deliveries } = own.get(i) ?? {};
        const result: CaseResult = {
          id: spec.id,
          name: spec.name,
          status: "ok",
          load: kept,
          ...(note ? { note } : {}),
          ...(events ? { events } : {}),
          ...(deliveries ? { deliveries } : {}),
        };
        // Its own rounds' CPU per measured request; the group's figure for its process otherwise.
        const caseCpu =
          load.serverCpuSeconds !== undefined && load.requests > 0 ? (load.serverCpuSeconds * 1000) / load.requests : cpuPerRequest.get(processOf(spec));
        if (spec.app) {
          if (processOf(spec) === "main") result.peakRssMb = ctx.sampler?.peakOf(phase);
          if (caseCpu !== undefined) result.serverCpuMsPerRequest = caseCpu;
          const database = databasePerRequest(load);
          if (database) result.database = database;
        }
        for (const [status, body] of Object.entries(load.samples ?? {})) {
          say(`    ${spec.id}: ${load.statusCounts[status] ?? "?"} × ${status}: ${body.slice(0, 200)}`);
        }
        say(
          `    ${spec.id}: ${describe(load, note)}${spec.app && caseCpu !== undefined ? `; server CPU ${caseCpu.toFixed(2)} ms/request` : ""}` +
            (result.database ? `; database ${describeDatabase(result.database)}` : ""),
        );
        results.set(spec.id, result);
      }
    }
  } catch (error) {
    say(`    failed: ${(error as Error).message}`);
    for (const spec of specs) {
      if (!results.has(spec.id)) results.set(spec.id, { id: spec.id, name: spec.name, status: "failed", reason: (error as Error).message.split("\n")[0] });
    }
  } finally {
    for (const { prepared } of ready) await prepared.cleanup?.().catch(() => {});
  }
  say(`    [${seconds(started)} s]`);
  return specs.map((s) => results.get(s.id)!);
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseConfig(process.argv.slice(2), process.env);
  } catch (error) {
    process.stderr.write(`Error: ${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (parsed === "help") {
    say(USAGE);
    return 0;
  }
  const config = parsed;
  const runStarted = Date.now();
  // Before anything is written: case 8a of the committed run, for the chat target of issue 25.
  const committedChat = await readCommittedResults();
  const workDir = await mkdtemp(path.join(os.tmpdir(), "platform-bench-"));
  let embedded: EmbeddedDatabase | undefined;
  let pgDir: string | undefined;
  let ctx: Context | undefined;
  const notes: string[] = [];
  // A failed run keeps its directory (server log, database) for a look.
  let failed = false;
  try {
    const withNext = await resolveNext(config, notes);
    const database = await prepareDatabase(config);
    embedded = database.embedded;
    pgDir = database.dir;
    const applied = await migrate(database.url);
    if (applied.length) say(`Applied ${applied.length} migration(s).`);
    if (config.statementStats === "on") await enableStatementStats(database.url, notes);
    const seed = await seedLarge(database.url, { users: config.users, messages: config.messages, notifications: config.notifications }, say);
    if (!seed.reused) say(`Seeded in ${seed.seconds.toFixed(1)} s.`);
    if (config.sandboxes > 0) await seedSandboxes(database.url, config.sandboxes, seed.firstUserId);

    const port = await findFreePort();
    const origin = `http://127.0.0.1:${port}`;
    ctx = {
      config,
      workDir,
      databaseUrl: database.url,
      ...(database.embedded && database.dir ? { primary: { embedded: database.embedded, dir: database.dir } } : {}),
      seed,
      origin, issuer: `${origin}/realms/platform`, cases: [], notes, twins: {}, withNext, plans: [] };
    await resetMutableState(ctx);
    const clientsStarted = Date.now();
    // Independent: the server never looks the bench's clients up before the first token request.
    const [loginClient] = await Promise.all([
      createClients(ctx).then((created) => {
        say(`API and login clients created with the operator CLI in ${seconds(clientsStarted)} s.`);
        return created;
      }),
      startServer(ctx, withNext, port),
    ]);
    ctx.loginClient = { clientId: loginClient.loginClientId, redirectUri: loginClient.redirectUri };
    const signInSeconds = await mintTokens(ctx, loginClient);
    await analyzeAfterSignIns(ctx);
    const only = config.only ? new Set(config.only.split(",").map((s) => s.trim().toLowerCase())) : undefined;
    if (!only || ["4on", "4off", "5on", "5off"].some((id) => only.has(id))) {
      for (const twin of ["on", "off"] as const) {
        await startTwin(ctx, withNext, twin).catch((error: Error) => say(`Twin server METERING=${twin} unavailable: ${error.message}`));
      }
    }
    // --workers 0 or 1 leaves the scaling cases out altogether.
    const skipped = new Set(config.workers > 1 ? [] : WORKER_CASES);
    if (skipped.size && (!only || WORKER_CASES.some((id) => only.has(id)))) say(`--workers ${config.workers}: cases ${WORKER_CASES.join(", ")} skipped.`);
    else if (!only || WORKER_CASES.some((id) => only.has(id))) {
      await startWorkers(ctx, withNext).catch((error: Error) => say(`Server WEB_CONCURRENCY=${config.workers} unavailable: ${error.message}`));
    }

    const specs = new Map(buildCases(config).map((c) => [c.id, c]));
    for (const group of groupsOf(config)) {
      const members = group.filter((id) => !skipped.has(id) && (!only || only.has(id.toLowerCase()))).map((id) => specs.get(id)!);
      if (members.length) ctx.cases.push(...(await runGroup(ctx, members)));
    }

    const final = await readRss(ctx.server!.pid);
    await ctx.sampler!.stop();
    const peakRssMb = final ? Math.max(final.hwmMb, ctx.sampler!.hwmMb) : ctx.sampler!.hwmMb || null;
    await ctx.server!.stop();
    ctx.server = undefined;
    for (const twin of Object.values(ctx.twins)) await twin.child.stop();
    ctx.twins = {};
    await ctx.workers?.child.stop();
    ctx.workers = undefined;

    const { ratios, targets } = buildRatiosAndTargets(ctx.cases, peakRssMb, config.workers, machineInfo().cores, committedChat);
    const report: BenchReport = {
      date: new Date().toISOString(),
      machine: machineInfo(),
      config: {
        users: config.users,
        messages: config.messages,
        notifications: config.notifications,
        sandboxes: config.sandboxes,
        duration: config.duration,
        warmup: config.warmup,
        connections: config.connections,
        signedIn: ctx.userTokens?.length ?? 0,
        workers: config.workers,
        next: withNext,
        database: config.databaseUrl ? "DATABASE_URL" : "embedded",
      },
      setup: { seedSeconds: seed.seconds, seedReused: seed.reused, signInSeconds, totalSeconds: 0 },
      cases: ctx.cases,
      ratios,
      targets,
      peakRssMb,
      notes,
      plans: ctx.plans,
    };
    report.setup.totalSeconds = Math.round((Date.now() - runStarted) / 1000);
    if (!ctx.cases.some(ok)) notes.push("No case could be measured.");
    say(`\n${toConsoleTable(report)}\n`);
    say(`Peak RSS of the app's process: ${peakRssMb === null ? "–" : `${peakRssMb.toFixed(0)} MB`}. Total ${report.setup.totalSeconds} s.`);
    // A subset (--only) never replaces the recorded full run.
    if (config.write && !config.only) {
      const written = await writeResults(report);
      say(`Wrote ${written.map((f) => path.relative(ROOT, f)).join(", ")}.`);
    }
    if (config.profile) say(`CPU profiles in ${path.resolve(config.profile)} (summarise: npx tsx bench/profile-summary.ts <file>).`);
    return 0;
  } catch (error) {
    failed = true;
    process.stderr.write(`\nBench failed: ${(error as Error).message}\n`);
    if (ctx?.server) process.stderr.write(`Server log: ${ctx.server.logFile}\n`);
    return 1;
  } finally {
    await ctx?.sampler?.stop();
    await ctx?.server?.stop().catch(() => {});
    for (const twin of Object.values(ctx?.twins ?? {})) await twin.child.stop().catch(() => {});
    await ctx?.workers?.child.stop().catch(() => {});
    await embedded?.stop().catch(() => {});
    if (!config.keep && !failed) {
      for (const dir of [workDir, pgDir]) if (dir && existsSync(dir)) await rm(dir, { recursive: true, force: true });
    } else {
      say(`Kept ${[workDir, pgDir].filter(Boolean).join(" and ")}.`);
    }
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`${(error as Error).stack}\n`);
    process.exit(1);
  },
);
