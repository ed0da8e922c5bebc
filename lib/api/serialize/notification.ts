import { NOTIFICATION_FIELDS, type NotificationType, type NotificationView } from "../../schemas/notifications";
import type { NotificationRecord } from "../../services/notifications";
import { publicUrl } from "../../schemas/wire";

/** Optional fields appear exactly when the type carries them (table in lib/schemas/notifications.ts). */
export function serializeNotification(n: NotificationRecord): NotificationView {
  const carries = NOTIFICATION_FIELDS[n.type as NotificationType] ?? { from: false, count: false, guild_name: false, message: true };
  return {
    type: n.type as NotificationType,
    read: n.read,
    ...(carries.from && n.from
      ? { from: { handle: n.from.handle, display_name: n.from.displayName, avatar_url: publicUrl(n.from.avatarUrl) } }
      : {}),
    created_at: n.createdAt,
    ...(carries.count && n.count !== null && n.count > 0 ? { count: n.count } : {}),
    ...(carries.guild_name && n.guildName !== null ? { guild_name: n.guildName } : {}),
    ...(carries.message && n.message !== null ? { message: n.message } : {}),
  };
}
