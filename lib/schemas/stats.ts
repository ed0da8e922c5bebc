import { z } from "zod";

/**
 * Account statistics (SPEC.md "Account statistics"). SPEC fixes the seven member names and the
 * three `ethereum` fields; the inner fields of the other members are ours. They are documented as
 * optional counters on open objects: a member may carry further keys, and a counter the platform
 * has not recorded yet is absent rather than 0.
 */
const count = (description: string) => z.int().nonnegative().optional().meta({ description });

const label = (description: string) => z.string().optional().meta({ description });

export const xchanStatsSchema = z
  .object({
    posts: count("Posts written"),
    threads_started: count("Threads started"),
    replies_received: count("Replies to the user's posts"),
    images_posted: count("Posts with an image"),
    favorite_board: label("Board the user posts on most, e.g. /g/"),
  })
  .catchall(z.unknown())
  .meta({ id: "XchanStats", description: "Activity on xchan." });

export const microblogStatsSchema = z
  .object({
    posts: count("Posts published"),
    followers: count("Followers"),
    following: count("Accounts followed"),
    likes_received: count("Likes on the user's posts"),
    reposts_received: count("Reposts of the user's posts"),
  })
  .catchall(z.unknown())
  .meta({ id: "MicroblogStats", description: "Activity on the microblog." });

export const profilesStatsSchema = z
  .object({
    profile_views: count("Profile views, all time"),
    profile_views_7d: count("Profile views in the last 7 days"),
    friends: count("Friends"),
    endorsements: count("Endorsements received"),
  })
  .catchall(z.unknown())
  .meta({ id: "ProfilesStats", description: "Profile reach." });

export const beetleGameStatsSchema = z
  .object({
    level: count("Beetle level"),
    xp: count("Beetle experience points"),
    cards_discovered: count("Distinct cards discovered"),
    battles_won: count("Battles won"),
    battles_lost: count("Battles lost"),
    hammers_broken: count("Hammers worn out"),
  })
  .catchall(z.unknown())
  .meta({ id: "BeetleGameStats", description: "Beetle game summary (full state: GET /me/beetle)." });

export const xcraftStatsSchema = z
  .object({
    playtime_hours: count("Hours played"),
    blocks_placed: count("Blocks placed"),
    blocks_broken: count("Blocks broken"),
    deaths: count("Deaths"),
    advancements: count("Advancements unlocked"),
    favorite_biome: label("Biome the user spends most time in"),
  })
  .catchall(z.unknown())
  .meta({ id: "XcraftStats", description: "Activity in xcraft." });

export const ethereumStatsSchema = z
  .object({
    cult_tier: z.string().meta({ description: "Holder tier: none, initiate, acolyte, zealot or high_priest" }),
    total_owned: z.int().nonnegative().meta({ description: "Tokens owned across all collections" }),
    collections: z
      .record(z.string(), z.unknown())
      .meta({ description: "Collection slug to the number of its tokens the user holds" }),
  })
  .meta({ id: "EthereumStats", description: "On-chain holdings (SPEC fixes these three fields)." });

export const merchStatsSchema = z
  .object({
    orders: count("Orders placed"),
    items_owned: count("Merch items owned"),
    total_spent_cents: count("Total spent, in cents"),
    favorite_item: z.string().nullable().optional().meta({ description: "Most ordered item, null without orders" }),
  })
  .catchall(z.unknown())
  .meta({ id: "MerchStats", description: "Merch store activity." });

export const statsMembersSchema = z
  .object({
    xchan: xchanStatsSchema,
    microblog: microblogStatsSchema,
    profiles: profilesStatsSchema,
    beetle_game: beetleGameStatsSchema,
    xcraft: xcraftStatsSchema,
    ethereum: ethereumStatsSchema,
    merch: merchStatsSchema,
  })
  .meta({ id: "StatsMembers", description: "The seven statistics members." });
export type StatsMembersView = z.infer<typeof statsMembersSchema>;

export const aggregateScoresSchema = z
  .record(z.string(), z.number())
  .meta({
    id: "AggregateScores",
    description: "Score name to number: overall, social, gaming, creator, collector (more may be added).",
  });

export const accountStatsSchema = z
  .object({
    handle: z.string(),
    display_name: z.string(),
    stats: statsMembersSchema,
    aggregate_scores: aggregateScoresSchema,
  })
  .meta({ id: "AccountStats", description: "data of GET /me/stats." });
export type AccountStatsView = z.infer<typeof accountStatsSchema>;
