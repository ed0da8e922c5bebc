import type { OwnProfileRecord, ProfileRecord } from "../../services/profiles";
import type { ProfileView } from "../../schemas/profiles";
import type { ApiCaller } from "../auth";
import { publicUrl } from "../../schemas/wire";
import { asObject } from "./json";
import { serializeAggregateScores, serializeStatsMembers } from "./stats";

/** The profile object (bare). `own` adds the owner-only fields, which only GET /me populates. */
export function serializeProfile(record: ProfileRecord, viewer: ApiCaller, own?: OwnProfileRecord): ProfileView {
  const isUser = viewer.kind === "user";
  return {
    user: {
      username: record.handle,
      displayName: record.displayName,
      bio: record.bio,
      location: record.location,
      pfpUrl: publicUrl(record.avatarUrl),
      friendCount: record.friendCount,
      achievementsCount: record.achievementsCount,
      ...(own
        ? {
            stats: serializeStatsMembers(own.stats),
            aggregateScores: serializeAggregateScores(own.stats?.aggregateScores),
            property: asObject(own.property),
          }
        : {}),
    },
    achievementContext: {
      totalCount: record.achievementsCount,
      recent: record.recentAchievements.map((a) => ({
        code: a.code,
        name: a.name,
        description: a.description,
        earnedAt: Number(a.earnedAt),
      })),
    },
    viewerContext: { areFriends: isUser && record.areFriends },
    isAuthenticated: isUser,
    isOwnProfile: isUser && viewer.userId === record.id,
  };
}
