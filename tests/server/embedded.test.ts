import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findFreePort } from "../../lib/database/embedded";
import { query } from "../helpers/db";
import { startServer } from "../helpers/server";

/**
 * The embedded default of `npm start`: no DATABASE_URL ⇒ a real PostgreSQL under DATA_DIR,
 * migrated and seeded on first start, kept (and not seeded again) across restarts.
 * This is the one test that starts a second PostgreSQL: the mode itself is what is tested.
 */
describe("embedded PostgreSQL default", () => {
  let dataDir: string;
  afterAll(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("migrates and seeds on first start, keeps data and does not seed twice on restart", async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "platform-embedded-"));
    const pgPort = await findFreePort();
    const env = { DATABASE_URL: "", DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(pgPort), SEED_DEMO: "" };

    const first = await startServer({ env });
    const firstLog = first.logs.join("\n");
    expect(firstLog).toContain("Starting the embedded PostgreSQL");
    expect(firstLog).toContain("Applied migrations");
    expect(firstLog).toMatch(/Demo world: \d+ users/);
    expect(firstLog).toContain("Demo accounts");
    const url = `postgresql://platform:${encodeURIComponent(
      (await import("node:fs")).readFileSync(path.join(dataDir, "pg-password"), "utf8").trim(),
    )}@127.0.0.1:${pgPort}/platform`;
    const [before] = await query<{ n: string }>(url, 'SELECT count(*)::text AS n FROM "User"');
    await query(url, `UPDATE "User" SET bio = 'kept across restarts' WHERE handle = 'alice'`);
    expect(await first.stop()).toBe(0);

    const second = await startServer({ env });
    try {
      const secondLog = second.logs.join("\n");
      expect(secondLog).not.toContain("Applied migrations");
      expect(secondLog).not.toMatch(/Demo world: \d+ users/);
      const [after] = await query<{ n: string }>(url, 'SELECT count(*)::text AS n FROM "User"');
      expect(after!.n).toBe(before!.n);
      const [alice] = await query<{ bio: string }>(url, `SELECT bio FROM "User" WHERE handle = 'alice'`);
      expect(alice?.bio).toBe("kept across restarts");
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });
});
