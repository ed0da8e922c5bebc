-- AlterTable
ALTER TABLE "Event" ADD COLUMN     "worldId" INTEGER NOT NULL DEFAULT 0;


-- Issue 26: a notification in a sandbox world is always an event of that world (its synthetic
-- people count as having authorized their sandbox's app); a live one, as before, only when its
-- person authorized some app to read notifications. A live person without such a consent costs
-- one primary-key probe more than before (their world), one with it nothing more. A world being
-- built (generated history) writes no events.
CREATE OR REPLACE FUNCTION platform_notification_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  person record;
  sender record;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM "Consent" WHERE "userId" = NEW."userId" AND 'svc:notifications.read' = ANY(scopes))
     -- a world being built (lib/services/sandboxes.ts) writes its history, not news
     AND (coalesce((SELECT "worldId" FROM "User" WHERE id = NEW."userId"), 0) = 0
          OR current_setting('platform.world_building', true) = 'on') THEN
    RETURN NULL;
  END IF;
  SELECT handle, "worldId" INTO person FROM "User" WHERE id = NEW."userId";
  SELECT handle, "displayName", "avatarUrl" INTO sender FROM "User" WHERE id = NEW."fromUserId";
  INSERT INTO "Event" (id, type, "userId", "worldId", data, "createdAt")
  VALUES (
    platform_public_id('evt'),
    'notification.created', NEW."userId", person."worldId",
    jsonb_build_object(
      'user', person.handle, 'type', NEW.type, 'read', NEW.read, 'count', NEW.count, 'guildName', NEW."guildName",
      'message', NEW.message, 'createdAt', floor(extract(epoch FROM NEW."createdAt"))::int8,
      'from', CASE WHEN sender.handle IS NULL THEN NULL
                   ELSE jsonb_build_object('handle', sender.handle, 'displayName', sender."displayName", 'avatarUrl', sender."avatarUrl") END),
    timezone('UTC', now()));
  RETURN NULL;
END $$;
