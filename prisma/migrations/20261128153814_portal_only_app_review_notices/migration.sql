-- `app_review` notices (developer notices: an app's review decisions, a webhook endpoint disabled,
-- with its full URL and query string) are portal-only like `security` ones: apps that read
-- notifications (svc:notifications.read) get no notification.created event for them. The rest of the
-- function is unchanged (20261127051000_private_security_notices).
CREATE OR REPLACE FUNCTION platform_notification_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  person record;
  sender record;
BEGIN
  -- Account security notices (a new device, a second factor set up or removed) and developer
  -- notices about one's apps (app_review: review decisions, a disabled webhook endpoint with its
  -- URL) are the person's own, shown in the portal only: never an event for apps (nor listed by
  -- GET /me/notifications). lib/events/audience.ts PORTAL_ONLY_NOTIFICATION_TYPES names the same.
  IF NEW.type IN ('security', 'app_review') THEN
    RETURN NULL;
  END IF;
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
