import { describe, expect, it } from "vitest";
import { migrate } from "../../lib/database/migrate";
import { cliJson, runCli } from "../helpers/cli";
import { query, withClient } from "../helpers/db";
import { until } from "../helpers/poll";
import { dayName, dayOf, noon, partitions } from "../helpers/partitions";
import { newDatabase } from "../helpers/server";

/**
 * Part 3: the request log ("at"), the events and the webhook deliveries ("createdAt") are
 * range-partitioned by UTC day like the usage tables (tests/api/usage-partitions.test.ts). Retention
 * (`usage retention` for the request log, `events retention` for events and deliveries, both also
 * run by every server) creates the coming days' partitions and drops the days past 7 whole, carrying
 * into the default partition what a promise still covers: an app's newest 1,000 requests, a pending
 * delivery, an event a kept delivery refers to.
 */
/** The partition each matching row is in, in `order`. */
async function partitionsOf(url: string, table: string, where: string, params: unknown[], order: string): Promise<string[]> {
  const rows = await query<{ p: string }>(url, `SELECT tableoid::regclass::text AS p FROM "${table}" WHERE ${where} ORDER BY ${order}`, params);
  return rows.map((r) => r.p.replaceAll('"', ""));
}

async function ensure(url: string, table: string, key: string, offsets: number[]): Promise<void> {
  for (const offset of offsets) await query(url, `SELECT platform_ensure_day_partition($1, $2, $3::date)`, [table, key, dayOf(offset)]);
}

const insertEvent = (id: string, offset: number) =>
  `INSERT INTO "Event" (id, type, "clientId", data, "createdAt") VALUES ('${id}', 'app.status.changed', 'api_history', '{}', ${noon(offset)})`;
const insertDelivery = (id: string, eventId: string, state: string, offset: number) =>
  `INSERT INTO "WebhookDelivery" (id, "endpointId", "clientId", "eventSeq", "eventId", "eventType", attempt, state, "createdAt")
   SELECT '${id}', 'wh_history', 'api_history', seq, id, type, 1, '${state}', ${noon(offset)} FROM "Event" WHERE id = '${eventId}'`;

describe("partitioned request log, events and deliveries", () => {
  it("events retention drops the days past 7 whole, keeping pending deliveries and the events kept deliveries refer to", async () => {
    const url = await newDatabase({ seed: false });
    await ensure(url, "Event", "createdAt", [-9, -3]);
    await ensure(url, "WebhookDelivery", "createdAt", [-9, -3]);
    await query(url, `DROP TABLE "Event_p${dayName(2)}"`); // as if the job had not run for a day: it creates it again
    await query(
      url,
      [
        insertEvent("evt_old_gone", -9),
        insertEvent("evt_old_pending", -9),
        insertEvent("evt_old_redelivered", -9),
        insertEvent("evt_recent", -3),
        insertEvent("evt_today", 0),
        insertDelivery("dlv_old_delivered", "evt_old_gone", "delivered", -9),
        insertDelivery("dlv_old_pending", "evt_old_pending", "pending", -9),
        insertDelivery("dlv_old_first", "evt_old_redelivered", "failed", -9),
        // A redelivery two days ago of the -9 day's event: the delivery log shows it, and it can be sent again.
        insertDelivery("dlv_redelivery", "evt_old_redelivered", "delivered", -2),
        insertDelivery("dlv_recent", "evt_recent", "delivered", -3),
      ].join(";"),
    );
    // Each row in its day's partition.
    expect(await partitionsOf(url, "Event", "true", [], "seq")).toEqual([
      `Event_p${dayName(-9)}`,
      `Event_p${dayName(-9)}`,
      `Event_p${dayName(-9)}`,
      `Event_p${dayName(-3)}`,
      `Event_p${dayName(0)}`,
    ]);
    expect(await partitionsOf(url, "WebhookDelivery", "true", [], `"createdAt", id`)).toEqual([
      `WebhookDelivery_p${dayName(-9)}`,
      `WebhookDelivery_p${dayName(-9)}`,
      `WebhookDelivery_p${dayName(-9)}`,
      `WebhookDelivery_p${dayName(-3)}`,
      `WebhookDelivery_default`, // -2: no partition was made for that day
    ]);

    const result = await cliJson<{ partitions_created: number; events_deleted: number; deliveries_deleted: number }>(url, ["events", "retention"]);
    // The -9 day: one event and two deliveries went with their partitions; the rest was carried over.
    expect(result).toMatchObject({ events_deleted: 1, deliveries_deleted: 2 });
    expect(result.partitions_created).toBeGreaterThanOrEqual(1);
    expect(await partitions(url, "Event")).not.toContain(`Event_p${dayName(-9)}`);
    expect(await partitions(url, "WebhookDelivery")).not.toContain(`WebhookDelivery_p${dayName(-9)}`);
    expect(await partitions(url, "Event")).toEqual(expect.arrayContaining([`Event_p${dayName(-3)}`, `Event_p${dayName(2)}`, "Event_default"]));

    const events = await query<{ id: string; p: string }>(url, `SELECT id, tableoid::regclass::text AS p FROM "Event" ORDER BY seq`);
    expect(events.map((e) => [e.id, e.p.replaceAll('"', "")])).toEqual([
      ["evt_old_pending", "Event_default"],
      ["evt_old_redelivered", "Event_default"],
      ["evt_recent", `Event_p${dayName(-3)}`],
      ["evt_today", `Event_p${dayName(0)}`],
    ]);
    const deliveries = await query<{ id: string; state: string; p: string }>(url, `SELECT id, state, tableoid::regclass::text AS p FROM "WebhookDelivery" ORDER BY id`);
    expect(deliveries.map((d) => [d.id, d.state, d.p.replaceAll('"', "")])).toEqual([
      ["dlv_old_pending", "pending", "WebhookDelivery_default"],
      ["dlv_recent", "delivered", `WebhookDelivery_p${dayName(-3)}`],
      ["dlv_redelivery", "delivered", "WebhookDelivery_default"], // inside the 7 days: not trimmed
    ]);

    // Once the pending delivery is done, the next run trims it (and its event) from the default partition.
    await query(url, `UPDATE "WebhookDelivery" SET state = 'delivered' WHERE id = 'dlv_old_pending'`);
    expect(await cliJson(url, ["events", "retention"])).toMatchObject({ partitions_created: 0, events_deleted: 1, deliveries_deleted: 1 });
    expect(await query(url, `SELECT id FROM "Event" WHERE id LIKE 'evt_old%'`)).toEqual([{ id: "evt_old_redelivered" }]);
  });

  it("a pending delivery recorded while events retention runs is not brought back as pending", async () => {
    const url = await newDatabase({ seed: false });
    await ensure(url, "Event", "createdAt", [-9]);
    await ensure(url, "WebhookDelivery", "createdAt", [-9]);
    await query(url, [insertEvent("evt_racing", -9), insertDelivery("dlv_racing", "evt_racing", "pending", -9)].join(";"));
    // A delivery loop records the attempt in a transaction still open when retention starts.
    await withClient(url, async (recorder) => {
      await recorder.query("BEGIN");
      await recorder.query(`UPDATE "WebhookDelivery" SET state = 'delivered', "lockedUntil" = NULL WHERE id = 'dlv_racing'`);
      const retention = runCli(url, ["events", "retention", "--json"]);
      // Retention waits for the recording transaction (for its table lock, or for the drop).
      await until(
        async () => {
          const waiting = await query(url, `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
          expect(waiting.length).toBeGreaterThan(0);
        },
        { withinMs: 20_000, intervalMs: 50 },
      );
      await recorder.query("COMMIT");
      const run = await retention;
      expect(run.code).toBe(0);
    });
    // Delivered, its day past 7: gone with its partition, not carried over as the pending copy read before it was recorded.
    expect(await query(url, `SELECT id, state FROM "WebhookDelivery" WHERE id = 'dlv_racing'`)).toEqual([]);
  });

  it("usage retention drops the request log's days past 7 whole, carrying each app's newest 1,000 rows over", async () => {
    const url = await newDatabase({ seed: false });
    await ensure(url, "RequestLog", "at", [-10, -3]);
    const row = (clientId: string, at: string, status = 200) =>
      `INSERT INTO "RequestLog" ("clientId", at, method, route, status, "latencyMs", "requestId") VALUES ('${clientId}', ${at}, 'GET', 'GET /me', ${status}, 1, 'req')`;
    await query(
      url,
      [
        // A quiet app: its last requests are ten days old, and they are its newest 1,000.
        row("api_quiet", noon(-10)),
        row("api_quiet", `${noon(-10)} + interval '1 minute'`, 404),
        row("api_quiet", noon(-3)),
        // A busy app: 1,000 requests today, so its older ones are past what the log keeps.
        row("api_busy", noon(-10)),
        row("api_busy", noon(-3), 500),
        `INSERT INTO "RequestLog" ("clientId", at, method, route, status, "latencyMs", "requestId")
         SELECT 'api_busy', ${noon(0)} - n * interval '1 second', 'GET', 'GET /me', 200, 1, 'req' FROM generate_series(1, 1000) n`,
      ].join(";"),
    );
    expect(await partitionsOf(url, "RequestLog", `"clientId" = 'api_quiet'`, [], "at")).toEqual([
      `RequestLog_p${dayName(-10)}`,
      `RequestLog_p${dayName(-10)}`,
      `RequestLog_p${dayName(-3)}`,
    ]);

    await cliJson(url, ["usage", "retention"]);
    expect(await partitions(url, "RequestLog")).not.toContain(`RequestLog_p${dayName(-10)}`);
    expect(await partitions(url, "RequestLog")).toEqual(
      expect.arrayContaining([`RequestLog_p${dayName(-3)}`, `RequestLog_p${dayName(0)}`, `RequestLog_p${dayName(2)}`, "RequestLog_default"]),
    );
    expect(await partitionsOf(url, "RequestLog", `"clientId" = 'api_quiet'`, [], "at")).toEqual([
      "RequestLog_default",
      "RequestLog_default",
      `RequestLog_p${dayName(-3)}`,
    ]);
    // The busy app keeps its newest 1,000 and its error of the last 7 days; its -10 day row is gone.
    expect(await query(url, `SELECT count(*)::int AS n, min(at) < ${noon(-9)} AS old FROM "RequestLog" WHERE "clientId" = 'api_busy'`)).toEqual([{ n: 1001, old: false }]);
    // The portal's read still finds the quiet app's rows, newest first, across the partitions.
    expect((await query<{ status: number }>(url, `SELECT status FROM "RequestLog" WHERE "clientId" = 'api_quiet' ORDER BY at DESC, id DESC`)).map((r) => r.status)).toEqual([200, 404, 200]);
  });

  it("a row of a day without a partition waits in the default partition and moves into its day's partition when that is created", async () => {
    const url = await newDatabase({ seed: false });
    await query(
      url,
      [
        insertEvent("evt_future", 20),
        insertDelivery("dlv_future", "evt_future", "pending", 20),
        `INSERT INTO "RequestLog" ("clientId", at, method, route, status, "latencyMs", "requestId") VALUES ('api_future', ${noon(20)}, 'GET', 'GET /me', 200, 1, 'req')`,
      ].join(";"),
    );
    expect(await partitionsOf(url, "Event", `id = 'evt_future'`, [], "seq")).toEqual(["Event_default"]);
    expect(await partitionsOf(url, "WebhookDelivery", `id = 'dlv_future'`, [], "id")).toEqual(["WebhookDelivery_default"]);
    expect(await partitionsOf(url, "RequestLog", `"clientId" = 'api_future'`, [], "id")).toEqual(["RequestLog_default"]);
    await ensure(url, "Event", "createdAt", [20]);
    await ensure(url, "WebhookDelivery", "createdAt", [20]);
    await ensure(url, "RequestLog", "at", [20]);
    expect(await partitionsOf(url, "Event", `id = 'evt_future'`, [], "seq")).toEqual([`Event_p${dayName(20)}`]);
    expect(await partitionsOf(url, "WebhookDelivery", `id = 'dlv_future'`, [], "id")).toEqual([`WebhookDelivery_p${dayName(20)}`]);
    expect(await partitionsOf(url, "RequestLog", `"clientId" = 'api_future'`, [], "id")).toEqual([`RequestLog_p${dayName(20)}`]);
  });

  it("the migration carries the rows of the unpartitioned tables over, with their sequences and the event trigger", async () => {
    const url = await newDatabase({ seed: false });
    // Back to the state before the migration: plain tables with rows, the migration not applied.
    await query(
      url,
      `DROP TABLE "RequestLog", "Event", "WebhookDelivery";
       DROP FUNCTION platform_drop_day_partitions_keeping(text, text, timestamp, text);
       DELETE FROM "_prisma_migrations" WHERE migration_name LIKE '%_partitioned_history';
       CREATE TABLE "RequestLog" ("id" BIGSERIAL NOT NULL, "clientId" TEXT NOT NULL, "at" TIMESTAMP(3) NOT NULL, "method" TEXT NOT NULL,
         "route" TEXT NOT NULL, "status" SMALLINT NOT NULL, "errorCode" TEXT, "latencyMs" REAL NOT NULL, "requestId" TEXT NOT NULL, "userId" INTEGER,
         "errorMessage" TEXT, "path" TEXT, "rateLimit" INTEGER, "rateRemaining" INTEGER, CONSTRAINT "RequestLog_pkey" PRIMARY KEY ("id"));
       CREATE INDEX "RequestLog_clientId_at_idx" ON "RequestLog"("clientId", "at" DESC);
       CREATE TABLE "Event" ("seq" BIGSERIAL NOT NULL, "id" TEXT NOT NULL, "type" TEXT NOT NULL, "clientId" TEXT, "userId" INTEGER, "data" JSONB NOT NULL,
         "txid" xid8 NOT NULL DEFAULT pg_current_xact_id(), "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP, "worldId" INTEGER NOT NULL DEFAULT 0,
         CONSTRAINT "Event_pkey" PRIMARY KEY ("seq"));
       CREATE UNIQUE INDEX "Event_id_key" ON "Event"("id");
       CREATE TRIGGER "Event_fanout" AFTER INSERT ON "Event" FOR EACH ROW EXECUTE FUNCTION platform_event_inserted();
       CREATE TABLE "WebhookDelivery" ("id" TEXT NOT NULL, "endpointId" TEXT NOT NULL, "clientId" TEXT NOT NULL, "eventSeq" BIGINT NOT NULL,
         "eventId" TEXT NOT NULL, "eventType" TEXT NOT NULL, "attempt" INTEGER NOT NULL, "redelivery" BOOLEAN NOT NULL DEFAULT false, "state" TEXT NOT NULL,
         "statusCode" INTEGER, "error" TEXT, "latencyMs" INTEGER, "response" TEXT, "nextAttemptAt" TIMESTAMP(3),
         "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP, "lockedUntil" TIMESTAMP(3), CONSTRAINT "WebhookDelivery_pkey" PRIMARY KEY ("id"));
       INSERT INTO "RequestLog" ("clientId", at, method, route, status, "latencyMs", "requestId") VALUES
         ('api_old', ${noon(-3)}, 'GET', 'GET /me', 200, 1, 'a'), ('api_old', ${noon(-40)}, 'GET', 'GET /me', 200, 1, 'b'), ('api_old', ${noon(0)}, 'GET', 'GET /me', 200, 1, 'c');
       ${insertEvent("evt_m_old", -12)}; ${insertEvent("evt_m_recent", -3)}; ${insertEvent("evt_m_today", 0)};
       ${insertDelivery("dlv_m_pending", "evt_m_old", "pending", -12)}; ${insertDelivery("dlv_m_recent", "evt_m_recent", "delivered", -3)};`,
    );
    const [before] = await query<{ log: string; ev: string }>(url, `SELECT (SELECT max(id)::text FROM "RequestLog") AS log, (SELECT max(seq)::text FROM "Event") AS ev`);
    expect(await migrate(url)).toEqual([expect.stringMatching(/_partitioned_history$/)]);

    expect(await partitionsOf(url, "RequestLog", `"clientId" = 'api_old'`, [], "at")).toEqual([
      "RequestLog_default",
      `RequestLog_p${dayName(-3)}`,
      `RequestLog_p${dayName(0)}`,
    ]);
    expect(await partitionsOf(url, "Event", `id LIKE 'evt_m_%'`, [], "seq")).toEqual(["Event_default", `Event_p${dayName(-3)}`, `Event_p${dayName(0)}`]);
    expect(await partitionsOf(url, "WebhookDelivery", `id LIKE 'dlv_m_%'`, [], "id")).toEqual(["WebhookDelivery_default", `WebhookDelivery_p${dayName(-3)}`]);
    // The sequences go on where they stood; a new event still announces itself (the trigger).
    const [after] = await query<{ log: string; ev: string }>(
      url,
      `WITH l AS (INSERT INTO "RequestLog" ("clientId", at, method, route, status, "latencyMs", "requestId") VALUES ('api_old', ${noon(0)}, 'GET', 'GET /me', 200, 1, 'd') RETURNING id),
            e AS (INSERT INTO "Event" (id, type, data) VALUES ('evt_m_new', 'ping', '{}') RETURNING seq)
       SELECT (SELECT id::text FROM l) AS log, (SELECT seq::text FROM e) AS ev`,
    );
    expect(BigInt(after!.log)).toBeGreaterThan(BigInt(before!.log));
    expect(BigInt(after!.ev)).toBeGreaterThan(BigInt(before!.ev));
    expect(await query(url, `SELECT tgname FROM pg_trigger WHERE tgrelid = '"Event"'::regclass AND NOT tgisinternal`)).toEqual([{ tgname: "Event_fanout" }]);
  });
});
