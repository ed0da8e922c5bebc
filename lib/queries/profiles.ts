// Data layer (STYLE.md Layout): hot-path SQL over pg, one statement per export; the rules stay in lib/services/profiles.ts.
import { byPosition, turnBatched } from "../database/batch";
import { pool } from "../database/client";
import type { Reader } from "../database/replicas";

/**
 * Profile reads (GET /users/{username}, GET /me). Raw SQL through `pool` with named statements: the
 * public profile is the API's hottest read, and one prepared statement per connection beats
 * Prisma's per-query planning several times over (issue 6 benchmarks it). Each read is ONE query
 * on a unique index: the user row, the friendship probe and the latest achievements together, and
 * the reads of one event-loop turn share that query (lib/database/batch.ts).
 */
export interface RecentAchievement {
  code: string;
  name: string;
  description: string;
  earnedAt: number;
}

export interface ProfileRecord {
  id: number;
  handle: string;
  displayName: string;
  bio: string;
  location: string;
  avatarUrl: string;
  friendCount: number;
  achievementsCount: number;
  /** Whether the viewer (if any) and this user are friends. */
  areFriends: boolean;
  recentAchievements: RecentAchievement[];
}

export interface OwnProfileRecord extends ProfileRecord {
  property: unknown;
  /** Raw JSON columns of AccountStats, null when the user has no statistics row yet. */
  stats: StatsColumns | null;
}

export interface StatsColumns {
  xchan: unknown;
  microblog: unknown;
  profiles: unknown;
  beetleGame: unknown;
  xcraft: unknown;
  ethereum: unknown;
  merch: unknown;
  aggregateScores: unknown;
}

/** The statistics columns of a row joined with AccountStats (null when the user has none yet). */
export function statsFromRow(row: Record<string, unknown> & { has_stats: boolean }): StatsColumns | null {
  if (!row.has_stats) return null;
  return {
    xchan: row.xchan,
    microblog: row.microblog,
    profiles: row.profiles,
    beetleGame: row.beetle_game,
    xcraft: row.xcraft,
    ethereum: row.ethereum,
    merch: row.merch,
    aggregateScores: row.aggregate_scores,
  };
}

const PROFILE_COLUMNS = `
  u.id, u.handle, u."displayName" AS display_name, u.bio, u.location, u."avatarUrl" AS avatar_url,
  u."friendCount" AS friend_count, u."achievementsCount" AS achievements_count,
  (SELECT coalesce(json_agg(json_build_object(
            'code', a.code, 'name', a.name, 'description', a.description,
            'earnedAt', floor(extract(epoch FROM a."earnedAt"))::int8)
          ORDER BY a."earnedAt" DESC, a.id DESC), '[]'::json)
     FROM (SELECT code, name, description, "earnedAt", id FROM "Achievement"
           WHERE "userId" = u.id ORDER BY "earnedAt" DESC, id DESC LIMIT 3) a) AS recent`;

/**
 * Both reads are batched per event-loop turn (lib/database/batch.ts): the keys come in as arrays,
 * `i` is each key's position, and the rows go back to their callers by it.
 */
const PUBLIC_PROFILE_SQL = `
  SELECT k.i, ${PROFILE_COLUMNS},
    (k.viewer IS NOT NULL AND EXISTS (
       SELECT 1 FROM "Friendship" f WHERE f."userId" = k.viewer AND f."friendId" = u.id)) AS are_friends
  FROM unnest($1::text[], $2::int[], $3::int[]) WITH ORDINALITY AS k(handle, viewer, world, i)
  JOIN "User" u ON u."worldId" = k.world AND u.handle = k.handle AND NOT u.disabled`;

const OWN_PROFILE_SQL = `
  SELECT k.i, ${PROFILE_COLUMNS}, false AS are_friends, u.property,
    s."userId" IS NOT NULL AS has_stats, s.xchan, s.microblog, s.profiles, s."beetleGame" AS beetle_game,
    s.xcraft, s.ethereum, s.merch, s."aggregateScores" AS aggregate_scores
  FROM unnest($1::int[]) WITH ORDINALITY AS k(id, i)
  JOIN "User" u ON u.id = k.id LEFT JOIN "AccountStats" s ON s."userId" = u.id`;

interface ProfileRow {
  id: number;
  handle: string;
  display_name: string;
  bio: string;
  location: string;
  avatar_url: string;
  friend_count: number;
  achievements_count: number;
  recent: RecentAchievement[];
  are_friends: boolean;
}

function toRecord(row: ProfileRow): ProfileRecord {
  return {
    id: row.id,
    handle: row.handle,
    displayName: row.display_name,
    bio: row.bio,
    location: row.location,
    avatarUrl: row.avatar_url,
    friendCount: row.friend_count,
    achievementsCount: row.achievements_count,
    areFriends: row.are_friends,
    recentAchievements: row.recent,
  };
}

type PublicProfileKey = { handle: string; viewerId: number | null; worldId: number };

function publicProfileLoader(reader: Reader) {
  return turnBatched<PublicProfileKey, ProfileRecord | null>(async (keys) => {
    const { rows } = await reader.query<ProfileRow & { i: string }>({
      name: "api_profiles_by_handle_v2",
      text: PUBLIC_PROFILE_SQL,
      values: [keys.map((k) => k.handle), keys.map((k) => k.viewerId), keys.map((k) => k.worldId)],
    });
    return byPosition(rows, keys.length).map((row) => (row ? toRecord(row) : null));
  });
}

const loadPublicProfile = publicProfileLoader(pool);
/** One batching loader per read replica (and the primary's counted reader), made on first use. */
const loadersByReader = new Map<Reader, ReturnType<typeof publicProfileLoader>>();

type OwnProfileRow = ProfileRow & { i: string; property: unknown; has_stats: boolean } & Record<string, unknown>;

const loadOwnProfile = turnBatched<number, OwnProfileRecord | null>(async (userIds) => {
  const { rows } = await pool.query<OwnProfileRow>({ name: "api_own_profiles", text: OWN_PROFILE_SQL, values: [userIds] });
  return byPosition(rows, userIds.length).map((row) =>
    row ? { ...toRecord(row), property: row.property, stats: statsFromRow(row) } : null,
  );
});

/**
 * The public profile of the enabled user with stored handle `handle` in world `worldId` (
 * 0 live, else a sandbox's), personalized for `viewerId`; null when no such user (disabled accounts
 * are hidden like unknown ones).
 */
export function findPublicProfile(handle: string, viewerId: number | null, worldId: number, reader: Reader = pool): Promise<ProfileRecord | null> {
  if (reader === pool) return loadPublicProfile({ handle, viewerId, worldId });
  let load = loadersByReader.get(reader);
  if (!load) loadersByReader.set(reader, (load = publicProfileLoader(reader)));
  return load({ handle, viewerId, worldId });
}

/** A user's own profile with the owner-only parts; null if there is no such user. */
export function findOwnProfileById(userId: number): Promise<OwnProfileRecord | null> {
  return loadOwnProfile(userId);
}
