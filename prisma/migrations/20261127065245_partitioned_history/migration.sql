-- Issue 30, part 3: the request log, the events and the webhook deliveries are range-partitioned by
-- UTC day, as the usage tables are (20261126235800_partitioned_usage, whose functions this reuses):
-- "RequestLog" on "at", "Event" and "WebhookDelivery" on "createdAt". Each has a DEFAULT partition,
-- so a write never fails for want of a partition; the retention jobs create the day partitions ahead
-- (yesterday to two days ahead) and drop the days past retention whole. Prisma's schema cannot
-- declare partitioning: this migration does it, with the columns and indexes prisma/schema.prisma
-- describes, so the drift test (lib/database/migrate.test.ts) still compares equal.
--
-- Keys. PostgreSQL requires the partition key in every unique constraint of a partitioned table:
-- - "RequestLog": PRIMARY KEY (id, at). id still comes from its one sequence (kept, so numbering
--   goes on), so it stays unique; keyset paging reads (at, id) as before.
-- - "Event": PRIMARY KEY (seq, "createdAt"); seq comes from its one sequence (kept). The public id
--   (`evt_` + 24 base32 characters, 120 random bits: lib/crypto/ids.ts, platform_public_id) loses
--   its unique index for a plain one ("Event_id_idx"), which the stream's Last-Event-ID lookup and
--   the test event's read use; a collision is not a practical event. The stream reads by (txid, seq)
--   through "Event_txid_seq_idx" as before (one index scan per partition, merged).
-- - "WebhookDelivery": PRIMARY KEY (id, "createdAt"); ids are random like event ids. The delivery
--   loop (lib/events/worker.ts) carries each row's "createdAt" and names it in every update by id,
--   so an update touches one partition. "createdAt" is never updated (a retry is a new row).
-- No foreign key points at or from these tables (deliveries name their event by seq and id).
--
-- Retention drops whole day partitions past the age kept, but rows a promise still covers outlive
-- their day: platform_drop_day_partitions_keeping() sets them aside and writes them back, into the
-- default partition (their day has no partition any more), in the same transaction, where the
-- row-by-row trim of the (small) default partition takes them once the promise is over:
-- - deliveries: 7 days; a pending delivery is kept (it is due; it must never be lost);
-- - events: 7 days (the stream resumes from 24 h back, Last-Event-ID reaches 7 days); an event a
--   kept delivery refers to is kept (retries and redeliveries send it again);
-- - the request log: days past 7 (the longest age it promises: non-2xx answers of 7 days); an app's
--   newest 1,000 rows are kept whatever their age. The per-app trim (lib/queries/usage.ts
--   trimRequestLog) still bounds the table inside the window, as before.
-- A day is dropped once all of it is past the age, so these tables hold 7 to 8 days.

-- Drops the day partitions of `parent` that end by `before` (platform_drop_day_partitions), keeping
-- the rows of those days for which `keep` holds (a condition on the row, named r): they are set
-- aside first and written back after the drop, landing in the default partition. Returns the rows
-- removed.
CREATE FUNCTION platform_drop_day_partitions_keeping(parent text, key text, before timestamp, keep text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  kept bigint;
  dropped bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('platform_partitions'));
  -- Nothing to drop (the usual case: one day in 24): `keep` is not evaluated.
  IF NOT EXISTS (
    SELECT 1 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = quote_ident(parent)::regclass AND c.relname ~ ('^' || parent || '_p[0-9]{8}$')
      AND to_date(right(c.relname, 8), 'YYYYMMDD') + 1 <= before
  ) THEN
    RETURN 0;
  END IF;
  EXECUTE format('CREATE TEMP TABLE platform_kept_rows ON COMMIT DROP AS SELECT r.* FROM %I r WHERE r.%I < $1 AND r.tableoid <> %L::regclass AND (%s)',
                 parent, key, quote_ident(parent || '_default'), keep)
    USING date_trunc('day', before);
  SELECT count(*) INTO kept FROM platform_kept_rows;
  dropped := platform_drop_day_partitions(parent, before);
  EXECUTE format('INSERT INTO %I SELECT * FROM platform_kept_rows', parent);
  DROP TABLE platform_kept_rows;
  RETURN dropped - kept;
END $$;

-- RequestLog
-- The rows wait in a temporary copy (so the new table's constraints get their usual names); the id
-- sequence is kept.
ALTER SEQUENCE "RequestLog_id_seq" OWNED BY NONE;
CREATE TEMP TABLE "RequestLog_unpartitioned" ON COMMIT DROP AS SELECT * FROM "RequestLog";
DROP TABLE "RequestLog";

CREATE TABLE "RequestLog" (
    "id" BIGINT NOT NULL DEFAULT nextval('"RequestLog_id_seq"'::regclass),
    "clientId" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "method" TEXT NOT NULL,
    "route" TEXT NOT NULL,
    "status" SMALLINT NOT NULL,
    "errorCode" TEXT,
    "latencyMs" REAL NOT NULL,
    "requestId" TEXT NOT NULL,
    "userId" INTEGER,
    "errorMessage" TEXT,
    "path" TEXT,
    "rateLimit" INTEGER,
    "rateRemaining" INTEGER,

    CONSTRAINT "RequestLog_pkey" PRIMARY KEY ("id","at")
) PARTITION BY RANGE ("at");
ALTER SEQUENCE "RequestLog_id_seq" OWNED BY "RequestLog"."id";
CREATE INDEX "RequestLog_at_idx" ON "RequestLog"("at");
CREATE INDEX "RequestLog_clientId_at_idx" ON "RequestLog"("clientId", "at" DESC);
CREATE INDEX "RequestLog_clientId_requestId_idx" ON "RequestLog"("clientId", "requestId");
CREATE TABLE "RequestLog_default" PARTITION OF "RequestLog" DEFAULT;

INSERT INTO "RequestLog" ("id", "clientId", "at", "method", "route", "status", "errorCode", "latencyMs", "requestId", "userId", "errorMessage", "path", "rateLimit", "rateRemaining")
SELECT "id", "clientId", "at", "method", "route", "status", "errorCode", "latencyMs", "requestId", "userId", "errorMessage", "path", "rateLimit", "rateRemaining"
FROM "RequestLog_unpartitioned";
DROP TABLE "RequestLog_unpartitioned";

-- Event
ALTER SEQUENCE "Event_seq_seq" OWNED BY NONE;
CREATE TEMP TABLE "Event_unpartitioned" ON COMMIT DROP AS SELECT * FROM "Event";
DROP TABLE "Event";

CREATE TABLE "Event" (
    "seq" BIGINT NOT NULL DEFAULT nextval('"Event_seq_seq"'::regclass),
    "id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "clientId" TEXT,
    "userId" INTEGER,
    "data" JSONB NOT NULL,
    "txid" xid8 NOT NULL DEFAULT pg_current_xact_id(),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "worldId" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "Event_pkey" PRIMARY KEY ("seq","createdAt")
) PARTITION BY RANGE ("createdAt");
ALTER SEQUENCE "Event_seq_seq" OWNED BY "Event"."seq";
CREATE INDEX "Event_id_idx" ON "Event"("id");
CREATE INDEX "Event_createdAt_idx" ON "Event"("createdAt");
CREATE INDEX "Event_clientId_seq_idx" ON "Event"("clientId", "seq");
CREATE INDEX "Event_txid_seq_idx" ON "Event"("txid", "seq");
CREATE TABLE "Event_default" PARTITION OF "Event" DEFAULT;

-- Moved before the trigger exists: the rows are old news, nobody is told again.
INSERT INTO "Event" ("seq", "id", "type", "clientId", "userId", "data", "txid", "createdAt", "worldId")
SELECT "seq", "id", "type", "clientId", "userId", "data", "txid", "createdAt", "worldId" FROM "Event_unpartitioned";
DROP TABLE "Event_unpartitioned";
-- As 20261126061740_events_and_webhooks made it (a row trigger of a partitioned table applies to every partition).
CREATE TRIGGER "Event_fanout" AFTER INSERT ON "Event" FOR EACH ROW EXECUTE FUNCTION platform_event_inserted();

-- WebhookDelivery
CREATE TEMP TABLE "WebhookDelivery_unpartitioned" ON COMMIT DROP AS SELECT * FROM "WebhookDelivery";
DROP TABLE "WebhookDelivery";

CREATE TABLE "WebhookDelivery" (
    "id" TEXT NOT NULL,
    "endpointId" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "eventSeq" BIGINT NOT NULL,
    "eventId" TEXT NOT NULL,
    "eventType" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "redelivery" BOOLEAN NOT NULL DEFAULT false,
    "state" TEXT NOT NULL,
    "statusCode" INTEGER,
    "error" TEXT,
    "latencyMs" INTEGER,
    "response" TEXT,
    "nextAttemptAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lockedUntil" TIMESTAMP(3),

    CONSTRAINT "WebhookDelivery_pkey" PRIMARY KEY ("id","createdAt")
) PARTITION BY RANGE ("createdAt");
CREATE INDEX "WebhookDelivery_clientId_createdAt_idx" ON "WebhookDelivery"("clientId", "createdAt" DESC);
CREATE INDEX "WebhookDelivery_endpointId_createdAt_idx" ON "WebhookDelivery"("endpointId", "createdAt" DESC);
CREATE INDEX "WebhookDelivery_createdAt_idx" ON "WebhookDelivery"("createdAt");
CREATE INDEX "WebhookDelivery_state_createdAt_idx" ON "WebhookDelivery"("state", "createdAt");
CREATE TABLE "WebhookDelivery_default" PARTITION OF "WebhookDelivery" DEFAULT;

INSERT INTO "WebhookDelivery" ("id", "endpointId", "clientId", "eventSeq", "eventId", "eventType", "attempt", "redelivery", "state", "statusCode",
                               "error", "latencyMs", "response", "nextAttemptAt", "createdAt", "lockedUntil")
SELECT "id", "endpointId", "clientId", "eventSeq", "eventId", "eventType", "attempt", "redelivery", "state", "statusCode",
       "error", "latencyMs", "response", "nextAttemptAt", "createdAt", "lockedUntil"
FROM "WebhookDelivery_unpartitioned";
DROP TABLE "WebhookDelivery_unpartitioned";

-- The days of the last week the existing rows fall on, yesterday, today and the next 2: their
-- partitions now, the rows moved out of the default partitions. Older rows (an app's newest
-- requests, an event a delivery refers to, a pending delivery) stay in the default partition, as
-- retention would have kept them.
SELECT platform_ensure_day_partition(t, k, d::date)
FROM (VALUES ('RequestLog', 'at'), ('Event', 'createdAt'), ('WebhookDelivery', 'createdAt')) AS tables(t, k),
LATERAL (
  SELECT DISTINCT "at"::date AS d FROM "RequestLog_default" WHERE t = 'RequestLog' AND "at" >= (now() AT TIME ZONE 'UTC')::date - 7
  UNION SELECT DISTINCT "createdAt"::date FROM "Event_default" WHERE t = 'Event' AND "createdAt" >= (now() AT TIME ZONE 'UTC')::date - 7
  UNION SELECT DISTINCT "createdAt"::date FROM "WebhookDelivery_default" WHERE t = 'WebhookDelivery' AND "createdAt" >= (now() AT TIME ZONE 'UTC')::date - 7
  UNION SELECT generate_series((now() AT TIME ZONE 'UTC')::date - 1, (now() AT TIME ZONE 'UTC')::date + 2, interval '1 day')::date
) AS days
ORDER BY t, d;
