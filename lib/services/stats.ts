import { findAccountStatsById, type AccountStatsRecord } from "../queries/stats";

export type { AccountStatsRecord } from "../queries/stats";

/** GET /me/stats: the user and their statistics row in ONE query (lib/queries/stats.ts); null if the account vanished. */
export function findAccountStats(userId: number): Promise<AccountStatsRecord | null> {
  return findAccountStatsById(userId);
}
