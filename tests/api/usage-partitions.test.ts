import { describe, expect, it } from "vitest";
import { migrate } from "../../lib/database/migrate";
import { cliJson } from "../helpers/cli";
import { query } from "../helpers/db";
import { dayName, dayOf, noon, partitions } from "../helpers/partitions";
import { newDatabase } from "../helpers/server";

/**
 * Part 3: the usage tables (UsageCount, UsageLatency) are range-partitioned by UTC day on
 * "periodStart". The retention job (`usage retention`, and every USAGE_RETENTION_SECONDS in each
 * server) creates the coming days' partitions ahead and drops the days past the 90 days kept, whole;
 * a row of a day without a partition lands in the default partition and is moved into its day's
 * partition when that is created. The migration carries existing rows over.
 */
async function partitionOf(url: string, table: string, clientId: string): Promise<string[]> {
  const rows = await query<{ p: string }>(url, `SELECT tableoid::regclass::text AS p FROM "${table}" WHERE "clientId" = $1 ORDER BY "periodStart"`, [clientId]);
  return rows.map((r) => r.p.replaceAll('"', ""));
}

describe("partitioned usage history", () => {
  it("retention drops whole day partitions past 90 days, keeps the newer ones, and creates the coming days ahead", async () => {
    const url = await newDatabase({ seed: false });
    for (const offset of [-95, -92, -89]) {
      await query(url, `SELECT platform_ensure_day_partition('UsageCount', 'periodStart', $1::date), platform_ensure_day_partition('UsageLatency', 'periodStart', $1::date)`, [
        dayOf(offset),
      ]);
    }
    await query(url, `DROP TABLE "UsageCount_p${dayName(7)}"`); // as if the job had not run for a day: it creates it again
    const app = "api_partition_probe";
    await query(
      url,
      `INSERT INTO "UsageCount" ("clientId", route, status, "periodStart", count) VALUES
         ($1, 'GET /me', 200, ${noon(-95)}, 1), ($1, 'GET /me', 200, ${noon(-92)}, 2), ($1, 'GET /me', 200, ${noon(-92)} + interval '1 hour', 3),
         ($1, 'GET /me', 200, ${noon(-89)}, 4), ($1, 'GET /me', 200, ${noon(0)}, 5)`,
      [app],
    );
    await query(url, `INSERT INTO "UsageLatency" ("clientId", route, "periodStart", bucket, count) VALUES ($1, 'GET /me', ${noon(-92)}, 3, 1), ($1, 'GET /me', ${noon(-89)}, 3, 1)`, [app]);
    expect(await partitionOf(url, "UsageCount", app)).toEqual([
      `UsageCount_p${dayName(-95)}`,
      `UsageCount_p${dayName(-92)}`,
      `UsageCount_p${dayName(-92)}`,
      `UsageCount_p${dayName(-89)}`,
      `UsageCount_p${dayName(0)}`,
    ]);

    const result = await cliJson<{ deleted: number }>(url, ["usage", "retention"]);
    // The rows of the two dropped days (1 + 2 + 3 counts in three rows, and one latency row).
    expect(result.deleted).toBe(4);
    const counts = await partitions(url, "UsageCount");
    expect(counts).not.toContain(`UsageCount_p${dayName(-95)}`);
    expect(counts).not.toContain(`UsageCount_p${dayName(-92)}`);
    expect(await partitions(url, "UsageLatency")).not.toContain(`UsageLatency_p${dayName(-92)}`);
    expect(counts).toEqual(expect.arrayContaining([`UsageCount_p${dayName(-89)}`, `UsageCount_p${dayName(0)}`, `UsageCount_p${dayName(7)}`, "UsageCount_default"]));
    expect(await partitionOf(url, "UsageCount", app)).toEqual([`UsageCount_p${dayName(-89)}`, `UsageCount_p${dayName(0)}`]);
    expect(await query(url, `SELECT count::int FROM "UsageLatency" WHERE "clientId" = $1`, [app])).toEqual([{ count: 1 }]);

    // Again: nothing left to drop or create.
    const before = await partitions(url, "UsageCount");
    expect((await cliJson<{ deleted: number }>(url, ["usage", "retention"])).deleted).toBe(0);
    expect(await partitions(url, "UsageCount")).toEqual(before);
  });

  it("a row of a day without a partition waits in the default partition and moves into its day's partition when that is created", async () => {
    const url = await newDatabase({ seed: false });
    const app = "api_partition_default";
    await query(url, `INSERT INTO "UsageCount" ("clientId", route, status, "periodStart", count) VALUES ($1, 'GET /me', 200, ${noon(30)}, 7)`, [app]);
    expect(await partitionOf(url, "UsageCount", app)).toEqual(["UsageCount_default"]);
    await query(url, `SELECT platform_ensure_day_partition('UsageCount', 'periodStart', $1::date)`, [dayOf(30)]);
    expect(await partitionOf(url, "UsageCount", app)).toEqual([`UsageCount_p${dayName(30)}`]);
    // The flush's upsert (ON CONFLICT on the primary key, which leads with the partition key) still adds up.
    await query(
      url,
      `INSERT INTO "UsageCount" AS u ("clientId", route, status, "errorCode", "periodStart", count) VALUES ($1, 'GET /me', 200, '', ${noon(30)}, 5)
       ON CONFLICT ("clientId", "periodStart", route, status, "errorCode") DO UPDATE SET count = u.count + EXCLUDED.count`,
      [app],
    );
    expect(await query(url, `SELECT count::int FROM "UsageCount" WHERE "clientId" = $1`, [app])).toEqual([{ count: 12 }]);
  });

  it("the migration carries the rows of the unpartitioned tables over", async () => {
    const url = await newDatabase({ seed: false });
    // Back to the state before the migration: plain tables with rows, the migration not applied.
    await query(
      url,
      `DROP TABLE "UsageCount", "UsageLatency";
       DROP FUNCTION platform_ensure_day_partition(text, text, date), platform_drop_day_partitions(text, timestamp);
       DELETE FROM "_prisma_migrations" WHERE migration_name LIKE '%_partitioned_usage';
       CREATE TABLE "UsageCount" ("clientId" TEXT NOT NULL, "route" TEXT NOT NULL, "status" SMALLINT NOT NULL, "errorCode" TEXT NOT NULL DEFAULT '',
         "periodStart" TIMESTAMP(3) NOT NULL, "count" INTEGER NOT NULL,
         CONSTRAINT "UsageCount_pkey" PRIMARY KEY ("clientId","periodStart","route","status","errorCode"));
       CREATE INDEX "UsageCount_periodStart_idx" ON "UsageCount"("periodStart");
       CREATE TABLE "UsageLatency" ("clientId" TEXT NOT NULL, "route" TEXT NOT NULL, "periodStart" TIMESTAMP(3) NOT NULL, "bucket" SMALLINT NOT NULL,
         "count" INTEGER NOT NULL, CONSTRAINT "UsageLatency_pkey" PRIMARY KEY ("clientId","periodStart","route","bucket"));
       CREATE INDEX "UsageLatency_periodStart_idx" ON "UsageLatency"("periodStart");
       INSERT INTO "UsageCount" ("clientId", route, status, "periodStart", count) VALUES
         ('api_old', 'GET /me', 200, ${noon(-3)}, 1), ('api_old', 'GET /me', 200, ${noon(-200)}, 2), ('api_old', 'GET /me', 200, ${noon(0)}, 3);
       INSERT INTO "UsageLatency" ("clientId", route, "periodStart", bucket, count) VALUES ('api_old', 'GET /me', ${noon(-3)}, 4, 5);`,
    );
    expect(await migrate(url)).toEqual([expect.stringMatching(/_partitioned_usage$/)]);
    expect(await partitionOf(url, "UsageCount", "api_old")).toEqual(["UsageCount_default", `UsageCount_p${dayName(-3)}`, `UsageCount_p${dayName(0)}`]);
    expect(await query(url, `SELECT sum(count)::int AS n FROM "UsageCount" WHERE "clientId" = 'api_old'`)).toEqual([{ n: 6 }]);
    expect(await partitionOf(url, "UsageLatency", "api_old")).toEqual([`UsageLatency_p${dayName(-3)}`]);
  });
});
