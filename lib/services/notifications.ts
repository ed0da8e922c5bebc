import { readerFor, type ReadCaller } from "../database/replicas";
import { listUserNotifications, type NotificationRecord } from "../queries/notifications";

export type { NotificationRecord } from "../queries/notifications";

/**
 * GET /me/notifications: newest first, page-numbered (SPEC fixes `page`), one query
 * (lib/queries/notifications.ts). One extra row is fetched so `hasMore` is exact.
 */
export async function listNotifications(
  userId: number,
  options: { limit: number; page: number },
  /** The API caller; its read may go to a read replica (lib/database/replicas.ts). Absent: the primary. */
  readAs?: ReadCaller,
): Promise<{ notifications: NotificationRecord[]; hasMore: boolean }> {
  const { limit, page } = options;
  const rows = await listUserNotifications(userId, limit + 1, (page - 1) * limit, readAs && readerFor(readAs));
  return { notifications: rows.slice(0, limit), hasMore: rows.length > limit };
}
