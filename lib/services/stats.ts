import { readerFor, type ReadCaller } from "../database/replicas";
import { findAccountStatsById, type AccountStatsRecord } from "../queries/stats";

export type { AccountStatsRecord } from "../queries/stats";

/** GET /me/stats: the user and their statistics row in ONE query (lib/queries/stats.ts); null if the account vanished. */
/** `readAs`: the API caller; the read may go to a read replica (lib/database/replicas.ts). */
export function findAccountStats(userId: number, readAs?: ReadCaller): Promise<AccountStatsRecord | null> {
  return findAccountStatsById(userId, readAs && readerFor(readAs));
}
