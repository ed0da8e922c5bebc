import { spawn } from "node:child_process";
import path from "node:path";
import { inject } from "vitest";
import { describe, expect, it } from "vitest";
import { findFreePort } from "../../lib/database/embedded";
import { query } from "../helpers/db";
import { newDatabase, startServer } from "../helpers/server";

const ROOT = path.resolve(import.meta.dirname, "..", "..");

/** Runs the server as `npm start` does (server.mjs) expecting it to fail; returns its exit code and output. */
function runServerExpectingFailure(env: Record<string, string>): Promise<{ code: number | null; output: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, "server.mjs"), "--no-next"], {
      cwd: ROOT,
      env: { ...(process.env as Record<string, string>), NODE_ENV: "production", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output, ms: Date.now() - started });
    });
  });
}

describe("start-up", () => {
  it("stops with one clear line on a bad environment variable", async () => {
    const result = await runServerExpectingFailure({ PORT: "not-a-port", DATABASE_URL: "postgres://x@127.0.0.1:1/x" });
    expect(result.code).toBe(1);
    expect(result.output.trim()).toBe("Error: Invalid environment variable PORT: Invalid input: expected number, received NaN");
  });

  it("fails fast with one line when the database is unreachable", async () => {
    const port = await findFreePort();
    const result = await runServerExpectingFailure({ DATABASE_URL: `postgres://u:p@127.0.0.1:${port}/x`, PORT: "0" });
    expect(result.code).toBe(1);
    expect(result.output.trim()).toMatch(/^Error: Cannot connect to PostgreSQL at 127\.0\.0\.1:\d+\/x: connection refused/);
    expect(result.output.trim().split("\n")).toHaveLength(1);
    expect(result.ms).toBeLessThan(20_000);
  });

  it("fails fast with one line on a wrong password, without printing it", async () => {
    const url = new URL(inject("pgServerUrl"));
    url.password = "definitely-wrong";
    const result = await runServerExpectingFailure({ DATABASE_URL: url.toString(), PORT: "0" });
    expect(result.code).toBe(1);
    expect(result.output).toContain("password authentication failed");
    expect(result.output).not.toContain("definitely-wrong");
    expect(result.output.trim().split("\n")).toHaveLength(1);
  });

  it("applies pending migrations to an external DATABASE_URL and does not seed it unless asked", async () => {
    const databaseUrl = await newDatabase({ seed: false });
    // A database with nothing in it: the server migrates it.
    await query(databaseUrl, 'DROP SCHEMA public CASCADE; CREATE SCHEMA public');
    const server = await startServer({ databaseUrl, env: { SEED_DEMO: "" } });
    try {
      const migrations = await query<{ migration_name: string; finished_at: Date | null }>(
        databaseUrl,
        'SELECT migration_name, finished_at FROM "_prisma_migrations"',
      );
      expect(migrations.length).toBeGreaterThan(0);
      expect(migrations.every((m) => m.finished_at !== null)).toBe(true);
      // Only the platform's own system user (owner of the portal client) exists: no demo world.
      const [users] = await query<{ n: string }>(databaseUrl, `SELECT count(*)::text AS n FROM "User" WHERE handle <> 'platform'`);
      expect(users!.n).toBe("0");
    } finally {
      expect(await server.stop()).toBe(0);
    }
    // A second start applies nothing and keeps the data.
    await query(databaseUrl, `INSERT INTO "User" (handle, "displayName", "updatedAt") VALUES ('keeper', 'Keeper', now())`);
    const again = await startServer({ databaseUrl });
    try {
      expect(again.logs.join("\n")).not.toContain("Applied migrations");
      const rows = await query(databaseUrl, `SELECT 1 FROM "User" WHERE handle = 'keeper'`);
      expect(rows).toHaveLength(1);
    } finally {
      await again.stop();
    }
  });
});
