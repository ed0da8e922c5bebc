import { z } from "zod";
import { unixSecondsSchema } from "./api";
import { aggregateScoresSchema, statsMembersSchema } from "./stats";

/**
 * The profile object (SPEC.md): the bare response of GET /users/{username} and GET /me. SPEC fixes
 * its camelCase field names, so the parts it leaves open (achievementContext, the inner fields)
 * are camelCase too, with `*At` fields in Unix seconds like every other timestamp.
 */
export const usernameParamsSchema = z.object({
  username: z.string().meta({ description: "The user's handle (case-insensitive)." }),
});

export const recentAchievementSchema = z
  .object({
    code: z.string().meta({ description: "Stable codename" }),
    name: z.string(),
    description: z.string(),
    earnedAt: unixSecondsSchema,
  })
  .meta({ id: "RecentAchievement" });

export const achievementContextSchema = z
  .object({
    totalCount: z.int().nonnegative().meta({ description: "Achievements earned (same as user.achievementsCount)" }),
    recent: z.array(recentAchievementSchema).max(3).meta({ description: "Up to three most recently earned, newest first" }),
  })
  .meta({ id: "AchievementContext" });

export const viewerContextSchema = z
  .object({
    areFriends: z.boolean().meta({ description: "The token's user and this user are friends; false for anonymous and app-only callers" }),
  })
  .meta({ id: "ViewerContext", description: "Personalized for a user-delegated token, the anonymous view otherwise." });

export const profileUserSchema = z
  .object({
    username: z.string(),
    displayName: z.string(),
    bio: z.string(),
    location: z.string(),
    pfpUrl: z.string().meta({ description: "URL of the profile picture" }),
    friendCount: z.int().nonnegative(),
    achievementsCount: z.int().nonnegative(),
    stats: statsMembersSchema.optional().meta({ description: "Owner-only: present on GET /me" }),
    aggregateScores: aggregateScoresSchema.optional().meta({ description: "Owner-only: present on GET /me" }),
    property: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: "Owner-only: present on GET /me. The user's private settings and holdings (free-form object)." }),
  })
  .meta({ id: "ProfileUser" });

export const profileSchema = z
  .object({
    user: profileUserSchema,
    achievementContext: achievementContextSchema,
    viewerContext: viewerContextSchema,
    isAuthenticated: z.boolean().meta({ description: "A user-delegated token was presented" }),
    isOwnProfile: z.boolean().meta({ description: "The profile is the token's user; always true on GET /me" }),
  })
  .meta({ id: "Profile" });
export type ProfileView = z.infer<typeof profileSchema>;
