import { z } from "zod";
import { lenientIntParam, unixSecondsSchema, userRefSchema } from "./api";

/**
 * Notifications (SPEC.md). SPEC names `poke` and leaves the rest open; ours are the seven types of
 * the Notification table. Optional fields appear exactly when the type carries them:
 *
 * | type           | from | count | guild_name | message |
 * |----------------|------|-------|------------|---------|
 * | poke           | yes  | yes (pokes from that user so far) |  |  |
 * | friend_request | yes  |       |            |         |
 * | achievement    |      |       |            | yes (achievement name) |
 * | guild_invite   | yes  |       | yes        |         |
 * | mention        | yes  | when grouped (mentions in the thread) | | yes (the text that mentions you) |
 * | system         |      |       |            | yes     |
 * | app_review     |      |       |            | yes (a decision on one of your apps, with the reason) |
 *
 * `from` is also absent when the sender's account no longer exists. The account's `security` notices
 * (a new device, a second factor set up or removed) and `app_review` developer notices (a
 * review decision, a disabled webhook endpoint with its URL) are the person's own: shown in the
 * portal only, never listed here nor sent as notification.created (lib/events/audience.ts).
 */
export const NOTIFICATION_TYPES = ["poke", "friend_request", "achievement", "guild_invite", "mention", "system", "app_review"] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** Which optional fields each type carries (the table above); the serializer follows it. */
export const NOTIFICATION_FIELDS: Record<NotificationType, { from: boolean; count: boolean; guild_name: boolean; message: boolean }> = {
  poke: { from: true, count: true, guild_name: false, message: false },
  friend_request: { from: true, count: false, guild_name: false, message: false },
  achievement: { from: false, count: false, guild_name: false, message: true },
  guild_invite: { from: true, count: false, guild_name: true, message: false },
  mention: { from: true, count: true, guild_name: false, message: true },
  system: { from: false, count: false, guild_name: false, message: true },
  app_review: { from: false, count: false, guild_name: false, message: true },
};

export const NOTIFICATIONS_DEFAULT_LIMIT = 10;
export const NOTIFICATIONS_MAX_LIMIT = 50;
export const NOTIFICATIONS_MAX_PAGE = 100_000;

export const listNotificationsQuerySchema = z.object({
  limit: lenientIntParam({
    fallback: NOTIFICATIONS_DEFAULT_LIMIT,
    min: 1,
    max: NOTIFICATIONS_MAX_LIMIT,
    description: "Page size, 1 to 50, default 10. Any other value (out of range, not an integer, repeated) falls back to 10.",
  }),
  page: lenientIntParam({
    fallback: 1,
    min: 1,
    max: NOTIFICATIONS_MAX_PAGE,
    description: "1-based page number, default 1. A value that is not an integer from 1 to 100000 falls back to 1.",
  }),
});

export const notificationSchema = z
  .object({
    type: z.enum(NOTIFICATION_TYPES),
    read: z.boolean(),
    from: userRefSchema.optional().meta({ description: "On poke, friend_request, guild_invite and mention" }),
    created_at: unixSecondsSchema,
    count: z.int().positive().optional().meta({ description: "On poke: how many times this user has poked you; on a grouped mention: how many mentions" }),
    guild_name: z.string().optional().meta({ description: "On guild_invite" }),
    message: z.string().optional().meta({ description: "On achievement, mention and system" }),
  })
  .meta({
    id: "Notification",
    description:
      "Types: poke (from, count), friend_request (from), achievement (message), guild_invite (from, guild_name), mention (from, message, count when grouped), system (message).",
  });
export type NotificationView = z.infer<typeof notificationSchema>;

export const notificationPageSchema = z
  .object({
    notifications: z.array(notificationSchema).meta({ description: "Newest first" }),
    page: z.int().positive(),
    limit: z.int().positive(),
    has_more: z.boolean().meta({ description: "A next page exists" }),
  })
  .meta({ id: "NotificationPage" });
