// Data layer (STYLE.md Layout): hot-path SQL over pg, one statement per export; the rules stay in lib/services/notifications.ts.
import { pool } from "../database/client";
import type { Reader } from "../database/replicas";

export interface NotificationRecord {
  type: string;
  read: boolean;
  count: number | null;
  guildName: string | null;
  message: string | null;
  createdAt: number;
  from: { handle: string; displayName: string; avatarUrl: string } | null;
}

/** At most `limit` of a user's notifications after skipping `offset`, newest first, on the (userId, createdAt DESC, id DESC) index. */
export async function listUserNotifications(userId: number, limit: number, offset: number, reader: Reader = pool): Promise<NotificationRecord[]> {
  const { rows } = await reader.query<{
    type: string;
    read: boolean;
    count: number | null;
    guild_name: string | null;
    message: string | null;
    created_at: string;
    from_handle: string | null;
    from_display_name: string | null;
    from_avatar_url: string | null;
  }>({
    // Portal-only kinds (lib/events/audience.ts PORTAL_ONLY_NOTIFICATION_TYPES): an account's security notices, developer notices.
    name: "api_list_notifications_v3",
    text: `
      SELECT n.type, n.read, n.count, n."guildName" AS guild_name, n.message,
             floor(extract(epoch FROM n."createdAt"))::int8 AS created_at,
             f.handle AS from_handle, f."displayName" AS from_display_name, f."avatarUrl" AS from_avatar_url
      FROM "Notification" n LEFT JOIN "User" f ON f.id = n."fromUserId"
      WHERE n."userId" = $1 AND n.type NOT IN ('security', 'app_review')
      ORDER BY n."createdAt" DESC, n.id DESC
      LIMIT $2 OFFSET $3`,
    values: [userId, limit, offset],
  });
  return rows.map((r) => ({
    type: r.type,
    read: r.read,
    count: r.count,
    guildName: r.guild_name,
    message: r.message,
    createdAt: Number(r.created_at),
    from:
      r.from_handle === null
        ? null
        : { handle: r.from_handle, displayName: r.from_display_name ?? "", avatarUrl: r.from_avatar_url ?? "" },
  }));
}
