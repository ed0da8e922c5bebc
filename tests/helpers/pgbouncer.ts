import { spawn, spawnSync } from "node:child_process";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { findFreePort } from "../../lib/database/embedded";

/**
 * A real PgBouncer (Debian's package, installed by .ci/run) in transaction mode in front
 * of a test PostgreSQL. As root it drops to the system user the embedded PostgreSQL runs as
 * (`user = postgres`: PgBouncer refuses to run as root); otherwise it runs as the current user.
 */
export interface PgBouncer {
  port: number;
  /** Its process id (the bench reads its CPU from /proc). */
  pid: number;
  /** `databaseUrl` with its host and port replaced by PgBouncer's (same database, same user). */
  urlFor(databaseUrl: string): string;
  /** Every line PgBouncer logged. */
  logs: string[];
  /** The PostgreSQL backend pids of PgBouncer's server connections now (its admin console's SHOW SERVERS). */
  serverPids(): Promise<number[]>;
  stop(): Promise<void>;
}

export function pgbouncerBinary(): string | undefined {
  for (const candidate of ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"]) {
    if (spawnSync(candidate, ["--version"]).status === 0) return candidate;
  }
  return undefined;
}

async function waitForPort(port: number, deadline: number): Promise<void> {
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => {
        socket.end();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`PgBouncer did not listen on ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts PgBouncer for every database of `serverUrl`'s PostgreSQL (its user and password). */
export async function startPgBouncer(serverUrl: string, options: { poolSize?: number } = {}): Promise<PgBouncer> {
  const binary = pgbouncerBinary();
  if (!binary) throw new Error("pgbouncer is not installed (apt-get install -y pgbouncer; .ci/run does)");
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username);
  const password = decodeURIComponent(server.password);
  const dir = await mkdtemp(path.join(os.tmpdir(), "platform-pgbouncer-"));
  // Read by PgBouncer after it dropped to the postgres user.
  await chmod(dir, 0o755);
  const port = await findFreePort();
  const asRoot = process.getuid?.() === 0;
  const config = [
    "[databases]",
    `* = host=${server.hostname} port=${server.port} user=${user} password=${password}`,
    "[pgbouncer]",
    "listen_addr = 127.0.0.1",
    `listen_port = ${port}`,
    "unix_socket_dir =",
    "auth_type = trust",
    `auth_file = ${path.join(dir, "users.txt")}`,
    "pool_mode = transaction",
    `default_pool_size = ${options.poolSize ?? 20}`,
    "max_client_conn = 1000",
    "ignore_startup_parameters = extra_float_digits",
    `admin_users = ${user}`,
    ...(asRoot ? ["user = postgres"] : []),
    "",
  ].join("\n");
  await writeFile(path.join(dir, "users.txt"), `"${user}" ""\n`, { mode: 0o644 });
  await writeFile(path.join(dir, "pgbouncer.ini"), config, { mode: 0o644 });
  const child = spawn(binary, [path.join(dir, "pgbouncer.ini")], { stdio: ["ignore", "pipe", "pipe"] });
  const logs: string[] = [];
  const collect = (chunk: Buffer) => logs.push(...chunk.toString("utf8").split("\n").filter(Boolean));
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    await Promise.race([
      waitForPort(port, Date.now() + 10_000),
      exited.then(() => {
        throw new Error(`pgbouncer exited at start:\n${logs.join("\n")}`);
      }),
    ]);
  } catch (error) {
    child.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    port,
    pid: child.pid!,
    logs,
    urlFor(databaseUrl) {
      const u = new URL(databaseUrl);
      u.hostname = "127.0.0.1";
      u.port = String(port);
      return u.toString();
    },
    async serverPids() {
      const admin = new URL(serverUrl);
      admin.hostname = "127.0.0.1";
      admin.port = String(port);
      admin.pathname = "/pgbouncer";
      const client = new pg.Client({ connectionString: admin.toString() });
      await client.connect();
      try {
        const { rows } = await client.query<{ remote_pid: string | number }>("SHOW SERVERS");
        return rows.map((r) => Number(r.remote_pid)).filter((pid) => pid > 0);
      } finally {
        await client.end();
      }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        // SIGTERM: PgBouncer's immediate shutdown (its clients are gone by now); SIGKILL after 5 s.
        child.kill("SIGTERM");
        const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
        await exited;
        clearTimeout(killer);
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
