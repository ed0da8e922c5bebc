-- CreateTable
CREATE TABLE "Event" (
    "seq" BIGSERIAL NOT NULL,
    "id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "clientId" TEXT,
    "userId" INTEGER,
    "data" JSONB NOT NULL,
    "txid" xid8 NOT NULL DEFAULT pg_current_xact_id(),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Event_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "WebhookEndpoint" (
    "id" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "events" TEXT[],
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "disabledReason" TEXT,
    "secrets" JSONB NOT NULL,
    "failingSince" TIMESTAMP(3),
    "createdById" INTEGER,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "WebhookEndpoint_pkey" PRIMARY KEY ("id")
);

-- CreateTable
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
    "dedupeKey" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WebhookDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Event_id_key" ON "Event"("id");

-- CreateIndex
CREATE INDEX "Event_createdAt_idx" ON "Event"("createdAt");

-- CreateIndex
CREATE INDEX "Event_clientId_seq_idx" ON "Event"("clientId", "seq");

-- CreateIndex
CREATE INDEX "Event_txid_seq_idx" ON "Event"("txid", "seq");

-- CreateIndex
CREATE INDEX "WebhookEndpoint_clientId_idx" ON "WebhookEndpoint"("clientId");

-- CreateIndex
CREATE INDEX "WebhookDelivery_clientId_createdAt_idx" ON "WebhookDelivery"("clientId", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "WebhookDelivery_endpointId_createdAt_idx" ON "WebhookDelivery"("endpointId", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "WebhookDelivery_createdAt_idx" ON "WebhookDelivery"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookDelivery_dedupeKey_key" ON "WebhookDelivery"("dedupeKey");


-- Issue 25: public ids as lib/crypto/ids.ts makes them (`prefix_` + 24 base32 characters), for
-- events written by SQL.
CREATE FUNCTION platform_public_id(prefix text) RETURNS text LANGUAGE sql VOLATILE AS $$
  SELECT prefix || '_' || string_agg(substr('abcdefghijklmnopqrstuvwxyz234567', (get_byte(b, i) & 31) + 1, 1), '' ORDER BY i)
  FROM (SELECT decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex') AS b) x, generate_series(0, 23) i
$$;

-- Issue 25: every Event row queues its fan-out (a graphile-worker job; the graphile_worker schema
-- is installed by lib/database/migrate.ts right after these migrations) and tells every process's
-- event stream, in the transaction that writes it: both happen exactly when it commits.
CREATE FUNCTION platform_event_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM graphile_worker.add_job('event_fanout', json_build_object('seq', NEW.seq::text), max_attempts := 25);
  PERFORM pg_notify('platform_changes', json_build_object('kind', 'event', 'seq', NEW.seq::text)::text);
  RETURN NULL;
END $$;
CREATE TRIGGER "Event_fanout" AFTER INSERT ON "Event" FOR EACH ROW EXECUTE FUNCTION platform_event_inserted();

-- A notification becomes a `notification.created` event when its person has authorized some app
-- to read notifications (one index probe otherwise): every way a notification is written (pokes,
-- review notices, …) reports it, in its own transaction. `data` holds the record the API's
-- serializer renders (lib/api/serialize/events.ts), plus the person's handle.
CREATE FUNCTION platform_notification_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  person text;
  sender record;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM "Consent" WHERE "userId" = NEW."userId" AND 'svc:notifications.read' = ANY(scopes)) THEN
    RETURN NULL;
  END IF;
  SELECT handle INTO person FROM "User" WHERE id = NEW."userId";
  SELECT handle, "displayName", "avatarUrl" INTO sender FROM "User" WHERE id = NEW."fromUserId";
  INSERT INTO "Event" (id, type, "userId", data, "createdAt")
  VALUES (
    platform_public_id('evt'),
    'notification.created', NEW."userId",
    jsonb_build_object(
      'user', person, 'type', NEW.type, 'read', NEW.read, 'count', NEW.count, 'guildName', NEW."guildName",
      'message', NEW.message, 'createdAt', floor(extract(epoch FROM NEW."createdAt"))::int8,
      'from', CASE WHEN sender.handle IS NULL THEN NULL
                   ELSE jsonb_build_object('handle', sender.handle, 'displayName', sender."displayName", 'avatarUrl', sender."avatarUrl") END),
    timezone('UTC', now()));
  RETURN NULL;
END $$;
CREATE TRIGGER "Notification_event" AFTER INSERT ON "Notification" FOR EACH ROW EXECUTE FUNCTION platform_notification_event();

-- CreateTable
CREATE TABLE "EventWorker" (
    "id" TEXT NOT NULL,
    "seenAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "EventWorker_pkey" PRIMARY KEY ("id")
);
