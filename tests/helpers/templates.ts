import { spawn } from "node:child_process";
import path from "node:path";
import pg from "pg";
import { migrate } from "../../lib/database/migrate";

export const TEMPLATE_MIGRATED = "template_migrated";
export const TEMPLATE_SEEDED = "template_seeded";

export function databaseUrl(serverUrl: string, name: string): string {
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

async function admin<T>(serverUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Runs the real seed in a child process (the same code path as `npm start`). */
function runSeed(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", path.resolve("scripts/seed.ts")], {
      env: { ...process.env, DATABASE_URL: url, NODE_ENV: "test" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`seed failed (${code}):\n${output}`))));
  });
}

export async function prepareTemplates(serverUrl: string): Promise<void> {
  await admin(serverUrl, (c) => c.query(`CREATE DATABASE ${TEMPLATE_MIGRATED}`));
  await migrate(databaseUrl(serverUrl, TEMPLATE_MIGRATED));
  await admin(serverUrl, (c) => c.query(`CREATE DATABASE ${TEMPLATE_SEEDED} TEMPLATE ${TEMPLATE_MIGRATED}`));
  await runSeed(databaseUrl(serverUrl, TEMPLATE_SEEDED));
}

let counter = 0;

/** A fresh database for one test file: a clone of the migrated (or seeded) template. */
export async function createTestDatabase(serverUrl: string, options: { seed?: boolean } = {}): Promise<string> {
  const name = `t_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  const template = options.seed ? TEMPLATE_SEEDED : TEMPLATE_MIGRATED;
  await admin(serverUrl, (c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${template}`));
  return databaseUrl(serverUrl, name);
}
