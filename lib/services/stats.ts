import { db } from "../db";
import type { StatsColumns } from "./profiles";

export interface AccountStatsRecord {
  handle: string;
  displayName: string;
  /** null when the user has no statistics yet (a new account). */
  stats: StatsColumns | null;
}

/** GET /me/stats: the user's statistics row (one query, joined on the primary key). */
export async function findAccountStats(userId: number): Promise<AccountStatsRecord | null> {
  const user = await db.user.findUnique({
    where: { id: userId },
    select: { handle: true, displayName: true, stats: true },
  });
  if (!user) return null;
  return { handle: user.handle, displayName: user.displayName, stats: user.stats };
}
