/**
 * The one Node HTTP server (STYLE: Layout): the issuer path goes to oidc-provider, interaction form
 * posts to lib/oidc, `/api/v1` to the API route table, everything else to Next.
 *
 *   npm start           production (builds first when needed)
 *   npm run dev         Next in development mode with hot reload, same database
 *   tsx server.ts --no-next   API and sign-in service only (integration tests)
 *
 * With WEB_CONCURRENCY=N (N > 1, not in development) this process becomes a cluster primary: it
 * prepares the database and the Next build once, then runs N workers of this same file that share
 * the port (lib/server/cluster.ts).
 */
// Before every other import: it fixes NODE_ENV before anything loads React (lib/server/node-env.ts).
import "./lib/server/node-env";
import cluster from "node:cluster";
import http from "node:http";
import type { Socket } from "node:net";
import v8 from "node:v8";
import { EnvError, env, resetEnv } from "./lib/env";

const args = new Set(process.argv.slice(2));
const dev = args.has("--dev");
const withNext = !args.has("--no-next");

function fail(message: string): never {
  process.stderr.write(`Error: ${message}\n`);
  process.exit(1);
}

/**
 * Peak RSS: tsx turns Node's source-map support on, and Node then reads and keeps the
 * source map of every module it loads, Next's compiled server included (the maps carry Next's own
 * TypeScript sources). A heap snapshot of the idle production server with Next held ~31 MB of them
 * (83 → 52 MB of live heap, 271 → 194 MB RSS). Production turns it off before anything else loads;
 * stack traces in logs then point into tsx's output for our files. `NODE_OPTIONS=--enable-source-maps`
 * keeps them (debugging), as does development.
 */
function sourceMapsWanted(): boolean {
  return dev || [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)].includes("--enable-source-maps");
}

async function main(): Promise<void> {
  if (!sourceMapsWanted()) process.setSourceMapsEnabled(false);
  let config;
  try {
    config = env();
  } catch (error) {
    if (error instanceof EnvError) fail(error.message);
    throw error;
  }
  // Peak RSS: by default V8 lets the old generation grow to about 4x the live heap between
  // major GCs. Measured under the bench: ~80 MB live, ~330 MB of heap, 520 MB RSS with Next loaded;
  // at 1.5x (50%) RSS stays near 310 MB at the same throughput, and 25% (the default) took another
  // 13-16 MB off the events cases (docs/performance.md, Memory). No hard cap, so no out-of-memory
  // risk: the limit follows the live heap. V8 reads the flag at each GC, so setting it here works.
  if (config.HEAP_GROWING_PERCENT > 0) v8.setFlagsFromString(`--heap-growing-percent=${config.HEAP_GROWING_PERCENT}`);
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const { workerCount, runPrimary } = await import("./lib/server/cluster");
  const workers = cluster.isPrimary && !dev ? workerCount(config.WEB_CONCURRENCY) : 1;
  const isWorker = cluster.isWorker;

  const { prepareDatabase } = await import("./lib/database/prepare");
  let prepared;
  try {
    prepared = await prepareDatabase(config, say);
  } catch (error) {
    fail((error as Error).message);
  }
  // Everything below (Prisma, oidc-provider, Next's route modules) reads the resolved URL.
  // SEED_DEMO's default depends on whether DATABASE_URL was given, so it is pinned before re-reading.
  process.env.DATABASE_URL = prepared.url;
  process.env.SEED_DEMO = config.SEED_DEMO ? "1" : "0";
  // REQUIRE_MFA's default too (off on the embedded demo database, admins otherwise).
  process.env.REQUIRE_MFA = config.REQUIRE_MFA ?? "off";
  resetEnv();
  config = env();
  if (prepared.migrationsApplied.length) say(`Applied migrations: ${prepared.migrationsApplied.join(", ")}`);

  let embeddedStopped = false;
  const stopEmbedded = async () => {
    if (embeddedStopped) return;
    embeddedStopped = true;
    await prepared.embedded?.stop();
  };

  if (workers > 1) {
    // The build once, here, rather than racing in every worker.
    if (withNext) {
      const { ensureNextBuild } = await import("./lib/server/build");
      await ensureNextBuild(process.cwd(), say, { once: true });
    }
    await runPrimary({ config, workers, say, stop: stopEmbedded });
    return;
  }

  const { logger } = await import("./lib/logger");
  const { closeDb } = await import("./lib/database/client");
  const { startPlatform } = await import("./lib/server/platform");

  let platform;
  try {
    platform = await startPlatform({ config, dev, withNext, log: say });
  } catch (error) {
    logger.error("start-up failed", { error: (error as Error).message });
    await closeDb();
    await stopEmbedded();
    fail((error as Error).message.split("\n")[0]!);
  }

  const sockets = new Set<Socket>();
  let inFlight = 0;
  let shuttingDown = false;
  const server = http.createServer((req, res) => {
    inFlight++;
    res.on("close", () => inFlight--);
    if (shuttingDown) res.setHeader("Connection", "close");
    platform.handle(req, res);
  });
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 60_000;
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.PORT, config.HOST, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.PORT;
  if (isWorker) {
    // The primary says "listening" once every worker does; the first worker shows the banner.
    if (process.env.PLATFORM_WORKER_INDEX === "1") say(platform.banner(port));
    process.send?.({ type: "listening", port });
  } else {
    say(platform.banner(port));
    // A machine-readable line for tests and process managers.
    say(`listening on port ${port}`);
  }

  const shutdown = async (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    say(`${signal} received: finishing in-flight requests…`);
    server.close();
    server.closeIdleConnections();
    // Event streams never finish on their own: end them, clients reconnect elsewhere (Last-Event-ID).
    platform.closeStreams();
    const deadline = Date.now() + 10_000;
    while (inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    for (const socket of sockets) socket.destroy();
    await platform.stop().catch(() => {});
    await closeDb();
    await stopEmbedded().catch(() => {});
    say("Stopped.");
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("unhandledRejection", (reason) => logger.error("unhandled rejection", { error: String(reason) }));
}

main().catch((error) => fail((error as Error).message.split("\n")[0]!));
