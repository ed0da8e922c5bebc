import { db } from "../database/client";

/**
 * The portal's notices: what happened to the apps a person works on (review decisions,
 * transfers), the `app_review` rows of their platform notifications. The header's bell counts the
 * unread ones; the Notifications page lists them and marks them read once shown.
 */
export interface PortalNotice {
  id: string;
  message: string;
  clientId: string | null;
  read: boolean;
  createdAt: Date;
}

/** `security` notices too (a second factor set up or removed, an operator's reset). */
const NOTICE: { type: { in: string[] } } = { type: { in: ["app_review", "security"] } };

/** Unread notices of `userId` (the header's count), up to 100 (the bell shows "99+" beyond). */
export async function countUnreadNotices(userId: number): Promise<number> {
  return db.notification.count({ where: { ...NOTICE, userId, read: false }, take: 100 });
}

/** The newest `limit` notices of `userId`, newest first. */
export async function listNotices(userId: number, limit = 50): Promise<PortalNotice[]> {
  const rows = await db.notification.findMany({
    where: { ...NOTICE, userId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
    select: { id: true, message: true, clientId: true, read: true, createdAt: true },
  });
  return rows.map((r) => ({ id: r.id.toString(), message: r.message ?? "", clientId: r.clientId, read: r.read, createdAt: r.createdAt }));
}

/** Marks the notices up to and including `throughId` read (those shown: a newer one stays unread). */
export async function markNoticesRead(userId: number, throughId: string): Promise<void> {
  await db.notification.updateMany({ where: { ...NOTICE, userId, read: false, id: { lte: BigInt(throughId) } }, data: { read: true } });
}
