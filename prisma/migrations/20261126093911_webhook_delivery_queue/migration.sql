-- DropIndex
DROP INDEX "WebhookDelivery_dedupeKey_key";

-- AlterTable
ALTER TABLE "WebhookDelivery" DROP COLUMN "dedupeKey",
ADD COLUMN     "lockedUntil" TIMESTAMP(3);

-- DropTable
DROP TABLE "EventWorker";

-- CreateTable
CREATE TABLE "EventCursor" (
    "name" TEXT NOT NULL,
    "txid" xid8 NOT NULL,
    "seq" BIGINT NOT NULL,

    CONSTRAINT "EventCursor_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE INDEX "WebhookDelivery_state_createdAt_idx" ON "WebhookDelivery"("state", "createdAt");

-- Issue 25, webhook delivery without a job per delivery: the Event trigger only announces the
-- event (the streams and every process's delivery loop wake on it); fan-out reads the Event table
-- from EventCursor in batches, and deliveries are taken from WebhookDelivery itself (lockedUntil).
CREATE OR REPLACE FUNCTION platform_event_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('platform_changes', json_build_object('kind', 'event', 'seq', NEW.seq::text)::text);
  RETURN NULL;
END $$;

-- The fan-out cursor starts where the job queue before this migration (graphile-worker) stood: just
-- before the first event whose fan-out job was still queued, or else after the newest event. An
-- event fanned out on both sides of the switch may be delivered twice, with the same webhook-id (at
-- least once, as always).
DO $$
DECLARE
  start_txid xid8;
  start_seq int8;
BEGIN
  IF to_regclass('graphile_worker.jobs') IS NOT NULL THEN
    EXECUTE $q$
      SELECT e.txid, e.seq - 1 FROM "Event" e
      WHERE e.seq IN (SELECT (payload->>'seq')::int8 FROM graphile_worker.jobs WHERE task_identifier = 'event_fanout')
      ORDER BY e.txid, e.seq LIMIT 1$q$ INTO start_txid, start_seq;
  END IF;
  IF start_txid IS NULL THEN
    SELECT txid, seq INTO start_txid, start_seq FROM "Event" ORDER BY txid DESC, seq DESC LIMIT 1;
  END IF;
  INSERT INTO "EventCursor" (name, txid, seq) VALUES ('webhooks', coalesce(start_txid, '0'::xid8), coalesce(start_seq, 0));
END $$;

-- Its pending delivery jobs need nothing: their delivery rows are pending, taken like any other now.
DROP SCHEMA IF EXISTS graphile_worker CASCADE;
