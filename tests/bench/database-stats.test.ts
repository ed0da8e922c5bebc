import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { inject, describe, expect, it } from "vitest";
import { counterDelta, DatabaseMeter, STATEMENT_STATS_SETTINGS } from "../../bench/database-stats";
import { findFreePort, startEmbeddedPostgres } from "../../lib/database/embedded";
import { withClient } from "../helpers/db";

/**
 * The bench's database meter against the test PostgreSQL (no pg_stat_statements loaded
 * there): the CPU of its processes, transactions and WAL move with the work another session does.
 */
describe("bench database meter", () => {
  it("counts another session's transactions, the server's CPU and the WAL its writes made", async () => {
    const serverUrl = inject("pgServerUrl");
    const meter = await DatabaseMeter.open([{ url: serverUrl }]);
    const table = `bench_meter_${randomBytes(4).toString("hex")}`;
    try {
      const before = await meter.read();
      await withClient(serverUrl, async (client) => {
        await client.query(`CREATE TABLE ${table} (id int PRIMARY KEY, body text)`);
        for (let i = 0; i < 1000; i++) await client.query(`INSERT INTO ${table} VALUES ($1, repeat('x', 100))`, [i]);
      });
      // The session has ended: PostgreSQL published its counters as it exited.
      const delta = counterDelta(before, await meter.read());
      expect(delta.transactions).toBeGreaterThanOrEqual(1001);
      expect(delta.cpuSeconds).toBeGreaterThan(0);
      expect(delta.walBytes).toBeGreaterThan(1000 * 100);
      // The test server does not preload pg_stat_statements: no statement counts rather than zeros.
      expect(delta.statements).toBeUndefined();
    } finally {
      await withClient(serverUrl, (client) => client.query(`DROP TABLE IF EXISTS ${table}`));
      await meter.close();
    }
  });

  it("counts statements and their time where the server preloads pg_stat_statements (the bench's embedded settings)", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "platform-bench-stats-"));
    const database = await startEmbeddedPostgres({ dir, port: await findFreePort(), settings: STATEMENT_STATS_SETTINGS });
    try {
      await withClient(database.serverUrl, (client) => client.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements"));
      const meter = await DatabaseMeter.open([{ url: database.serverUrl }]);
      try {
        const before = await meter.read();
        await withClient(database.serverUrl, async (client) => {
          for (let i = 0; i < 50; i++) await client.query("SELECT $1::int + 1 AS n", [i]);
        });
        const delta = counterDelta(before, await meter.read());
        // 50 of the same statement; the meter's own reads of pg_stat_* are left out.
        expect(delta.statements).toBe(50);
        expect(delta.execMs).toBeGreaterThan(0);
      } finally {
        await meter.close();
      }
    } finally {
      await database.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
