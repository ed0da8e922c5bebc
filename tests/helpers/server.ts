import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { inject } from "vitest";
import { findFreePort } from "../../lib/database/embedded";
import { ensureNextBuild as ensureBuildUnderLock } from "../../lib/server/build";
import { PRODUCTION_NODE_FLAGS, withProductionEnv } from "../../lib/server/node-flags";
import { randomBytes } from "node:crypto";
import { parseMetrics } from "./prometheus";
import { createTestDatabase } from "./templates";

export interface TestServer {
  /** e.g. http://localhost:41234 */
  url: string;
  port: number;
  issuer: string;
  apiUrl: string;
  databaseUrl: string;
  /** Every line the server printed on stdout and stderr, in order. */
  logs: string[];
  process: ChildProcess;
  /** SIGTERM and wait for exit and for its output to be read to the end; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** The process's counters from `GET /metrics` (lib/metrics.ts): `name{labels}` → value. */
  metrics(): Promise<Map<string, number>>;
}

export interface StartServerOptions {
  /** Clone the seeded template (demo world) rather than the bare migrated one. Default true. */
  seed?: boolean;
  /** Serve pages through Next (needs a production build; built once, under a lock). Default false. */
  next?: boolean;
  /** Use this database instead of a fresh clone (e.g. two processes on one database). */
  databaseUrl?: string;
  /** Extra environment (ACCESS_TOKEN_TTL, ISSUER, …). */
  env?: Record<string, string>;
  port?: number;
  /**
   * Start it with `npm start` itself (package.json's script, the runtime it pins, npm's own
   * environment) rather than the same command line run directly. `process` is then npm's.
   */
  npmStart?: boolean;
}

const ROOT = path.resolve(import.meta.dirname, "..", "..");

/** Builds Next once per source change, safe when several test files (or runs) ask at once. */
export function ensureNextBuild(): Promise<void> {
  return ensureBuildUnderLock(ROOT);
}

export async function newDatabase(options: { seed?: boolean } = {}): Promise<string> {
  return createTestDatabase(inject("pgServerUrl"), options);
}

export async function startServer(options: StartServerOptions = {}): Promise<TestServer> {
  const withNext = options.next ?? false;
  if (withNext) await ensureNextBuild();
  const databaseUrl = options.databaseUrl ?? (await newDatabase({ seed: options.seed ?? true }));
  const port = options.port ?? (await findFreePort());
  const url = `http://localhost:${port}`;
  // No NODE_ENV of the test run's own (Vitest sets "test"): the server is started as a person's shell
  // starts `npm start`, and decides NODE_ENV itself (lib/server/node-env.ts).
  const { NODE_ENV: _testRunMode, ...inherited } = process.env as Record<string, string>;
  const env: Record<string, string> = withProductionEnv({
    ...inherited,
    PORT: String(port),
    HOST: "127.0.0.1",
    APP_URL: url,
    DATABASE_URL: databaseUrl,
    SEED_DEMO: "0",
    // Tests set DATABASE_URL (REQUIRE_MFA would default to admins); the ones about the
    // requirement set it themselves.
    REQUIRE_MFA: "off",
    NEXT_TELEMETRY_DISABLED: "1",
    // Tests read which path answered from GET /metrics.
    METRICS_TOKEN: randomBytes(24).toString("base64url"),
    ...options.env,
  });
  // The Node flags and environment of `npm start` (lib/server/node-flags.ts): the soak's memory is production's.
  const args = [...PRODUCTION_NODE_FLAGS, path.join(ROOT, "server.mjs")];
  if (!withNext) args.push("--no-next");
  // npm does not pass SIGTERM on to the script it runs (the server would outlive the test): npm and
  // the server get a process group of their own, and signals go to the group.
  const child = options.npmStart
    ? spawn("npm", ["start", "--silent", "--", ...(withNext ? [] : ["--no-next"])], { cwd: ROOT, env: env as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"], detached: true })
    : spawn(process.execPath, args, { cwd: ROOT, env: env as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] });
  const signal = (name: NodeJS.Signals) => {
    if (!options.npmStart) return void child.kill(name);
    try {
      process.kill(-child.pid!, name);
    } catch {
      // The group is gone already.
    }
  };
  const logs: string[] = [];
  let buffered = "";
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      let i;
      while ((i = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, i);
        buffered = buffered.slice(i + 1);
        logs.push(line);
        if (line.startsWith("listening on port ")) resolve();
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`server exited with ${code} before listening:\n${logs.join("\n")}`)));
  });
  const timeout = setTimeout(() => signal("SIGKILL"), 120_000);
  try {
    await ready;
  } finally {
    clearTimeout(timeout);
  }
  // "close", not "exit": stdout and stderr are then read to the end, so `logs` holds every line
  // (a last one without a newline too).
  child.once("close", () => {
    if (buffered) logs.push(buffered);
    buffered = "";
  });
  // At most 5 s after the exit, though: a pipe held open by a process it left behind must not hang a test.
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      const late = setTimeout(() => resolve(code), 5_000);
      child.once("close", () => {
        clearTimeout(late);
        resolve(code);
      });
    }),
  );
  const issuer = env.ISSUER ?? `${url}/realms/platform`;
  return {
    url,
    port,
    issuer,
    apiUrl: `${url}/api/v1`,
    databaseUrl,
    logs,
    process: child,
    async metrics() {
      const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${env.METRICS_TOKEN}` } });
      if (!response.ok) throw new Error(`GET /metrics answered ${response.status}`);
      return parseMetrics(await response.text());
    },
    async stop() {
      if (child.exitCode !== null) {
        await exited;
        return child.exitCode;
      }
      signal("SIGTERM");
      const killer = setTimeout(() => signal("SIGKILL"), 20_000);
      const code = await exited;
      clearTimeout(killer);
      return code;
    },
  };
}

const TOKEN_PATHS = ["client_credentials_fast", "refresh_fast", "oidc_provider"] as const;

/**
 * Runs `request` (token requests, nothing else on `server` meanwhile) and says which path answered
 * them, from platform_token_requests_total (lib/metrics.ts): e.g. `{ refresh_fast: 1 }`. A fast
 * path switched off shows as `{ oidc_provider: 1 }`.
 */
export async function answeredBy<T>(server: TestServer, request: () => Promise<T>): Promise<{ answer: T; paths: Record<string, number> }> {
  const read = async () => {
    const metrics = await server.metrics();
    return TOKEN_PATHS.map((path) => metrics.get(`platform_token_requests_total{path="${path}"}`) ?? NaN);
  };
  const before = await read();
  const answer = await request();
  const after = await read();
  const paths: Record<string, number> = {};
  TOKEN_PATHS.forEach((path, i) => {
    if (after[i] !== before[i]) paths[path] = after[i]! - before[i]!;
  });
  return { answer, paths };
}

const HOSTED_PAGE_PATHS = ["fast", "next"] as const;

/**
 * Runs `request` (GETs of the hosted login and consent page, nothing else on `server` meanwhile)
 * and says which path answered them, from platform_hosted_page_requests_total (lib/metrics.ts):
 * `{ fast: 1 }` for the server's own renderer (lib/server/hosted-page.ts), `{ next: 1 }` for Next.
 */
export async function pageAnsweredBy<T>(server: TestServer, request: () => Promise<T>): Promise<{ answer: T; paths: Record<string, number> }> {
  const read = async () => {
    const metrics = await server.metrics();
    return HOSTED_PAGE_PATHS.map((path) => metrics.get(`platform_hosted_page_requests_total{path="${path}"}`) ?? NaN);
  };
  const before = await read();
  const answer = await request();
  const after = await read();
  const paths: Record<string, number> = {};
  HOSTED_PAGE_PATHS.forEach((path, i) => {
    if (after[i] !== before[i]) paths[path] = after[i]! - before[i]!;
  });
  return { answer, paths };
}

/**
 * For tests that run the app's own modules in this process (services, the verifier, the adapter):
 * points DATABASE_URL, plus `env`, at `databaseUrl` and re-reads the environment. Call it before
 * importing those modules; the returned `closeDb` ends the process's pool (afterAll).
 */
export async function pointAppAt(databaseUrl: string, env: Record<string, string> = {}): Promise<() => Promise<void>> {
  Object.assign(process.env, { DATABASE_URL: databaseUrl, ...env });
  (await import("../../lib/env")).resetEnv();
  return (await import("../../lib/database/client")).closeDb;
}
