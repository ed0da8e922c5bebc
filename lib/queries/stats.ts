// Data layer (STYLE.md Layout): hot-path SQL over pg, one statement per export; the rules stay in lib/services/stats.ts.
import { pool } from "../database/client";
import type { Reader } from "../database/replicas";
import { statsFromRow, type StatsColumns } from "./profiles";

export interface AccountStatsRecord {
  handle: string;
  displayName: string;
  /** null when the user has no statistics yet (a new account). */
  stats: StatsColumns | null;
}

/** The user and their statistics row in ONE query (Prisma's include would be two); null when no such user. */
/** `reader`: the primary, or a replica for the API read (lib/database/replicas.ts). */
export async function findAccountStatsById(userId: number, reader: Reader = pool): Promise<AccountStatsRecord | null> {
  const { rows } = await reader.query<{
    handle: string;
    display_name: string;
    has_stats: boolean;
    xchan: unknown;
    microblog: unknown;
    profiles: unknown;
    beetle_game: unknown;
    xcraft: unknown;
    ethereum: unknown;
    merch: unknown;
    aggregate_scores: unknown;
  }>({
    name: "api_account_stats",
    text: `SELECT u.handle, u."displayName" AS display_name, s."userId" IS NOT NULL AS has_stats,
                  s.xchan, s.microblog, s.profiles, s."beetleGame" AS beetle_game, s.xcraft, s.ethereum, s.merch,
                  s."aggregateScores" AS aggregate_scores
           FROM "User" u LEFT JOIN "AccountStats" s ON s."userId" = u.id
           WHERE u.id = $1`,
    values: [userId],
  });
  const row = rows[0];
  if (!row) return null;
  return {
    handle: row.handle,
    displayName: row.display_name,
    stats: statsFromRow(row),
  };
}
