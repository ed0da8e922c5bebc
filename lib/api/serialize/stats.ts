import type { AccountStatsRecord } from "../../services/stats";
import type { StatsColumns } from "../../services/profiles";
import {
  beetleGameStatsSchema,
  merchStatsSchema,
  microblogStatsSchema,
  profilesStatsSchema,
  xchanStatsSchema,
  xcraftStatsSchema,
  type AccountStatsView,
  type StatsMembersView,
} from "../../schemas/stats";
import { asObject, nonNegativeInt, pickDocumented } from "./json";

export function serializeStatsMembers(stats: StatsColumns | null): StatsMembersView {
  const ethereum = asObject(stats?.ethereum);
  return {
    xchan: pickDocumented(xchanStatsSchema, stats?.xchan),
    microblog: pickDocumented(microblogStatsSchema, stats?.microblog),
    profiles: pickDocumented(profilesStatsSchema, stats?.profiles),
    beetle_game: pickDocumented(beetleGameStatsSchema, stats?.beetleGame),
    xcraft: pickDocumented(xcraftStatsSchema, stats?.xcraft),
    ethereum: {
      cult_tier: typeof ethereum.cult_tier === "string" ? ethereum.cult_tier : "none",
      total_owned: nonNegativeInt(ethereum.total_owned) ?? 0,
      collections: asObject(ethereum.collections),
    },
    merch: pickDocumented(merchStatsSchema, stats?.merch),
  };
}

export function serializeAggregateScores(value: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, score] of Object.entries(asObject(value))) {
    if (typeof score === "number" && Number.isFinite(score)) out[key] = score;
  }
  return out;
}

export function serializeAccountStats(record: AccountStatsRecord): AccountStatsView {
  return {
    handle: record.handle,
    display_name: record.displayName,
    stats: serializeStatsMembers(record.stats),
    aggregate_scores: serializeAggregateScores(record.stats?.aggregateScores),
  };
}
