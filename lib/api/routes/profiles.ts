import { AppError } from "../../errors";
import { profileSchema, usernameParamsSchema } from "../../schemas/profiles";
import { findOwnProfile, findProfileByHandle } from "../../services/profiles";
import { worldOf } from "../auth";
import { defineRoute } from "../handler";
import { serializeProfile } from "../serialize/profile";
import { accountGone } from "./shared";

/** SPEC.md endpoints of the profiles resource (declarations only; lib/api/routes/index.ts lists them all). */

export const getProfile = defineRoute({
  method: "GET",
  path: "/users/{username}",
  operationId: "getUserProfile",
  mcp: { tool: "get_user_profile" },
  summary: "Get a user's public profile",
  description:
    "Returns the profile object bare (no `data` wrapper). A token is optional; a presented one is always validated. " +
    "A user-delegated token personalizes `viewerContext`, `isAuthenticated` and `isOwnProfile`; an app-only token gets the anonymous view. " +
    "Owner-only `user` fields are never included here (see GET /me).",
  tag: "Profiles",
  auth: "optional",
  params: usernameParamsSchema,
  response: { status: 200, schema: profileSchema, description: "The profile object, bare.", bare: true },
  errors: ["not_found"],
  async handler({ params, caller }) {
    const viewerId = caller.kind === "user" ? caller.userId : undefined;
    const profile = await findProfileByHandle(params.username, worldOf(caller), viewerId, caller);
    if (!profile) throw new AppError("not_found", "No user with that username.");
    return serializeProfile(profile, caller);
  },
});

export const getMe = defineRoute({
  method: "GET",
  path: "/me",
  operationId: "getMe",
  mcp: { tool: "get_me" },
  summary: "Get the signed-in user's own profile",
  description:
    "Returns the token user's profile object bare, with `isOwnProfile` true and the owner-only `user.stats`, " +
    "`user.aggregateScores` and `user.property` populated. No scope needed: a grant with only `openid` works.",
  tag: "Profiles",
  auth: "user",
  response: { status: 200, schema: profileSchema, description: "The profile object with owner-only fields, bare.", bare: true },
  errors: [],
  async handler({ caller }) {
    const own = await findOwnProfile(caller.userId);
    if (!own) throw accountGone();
    return serializeProfile(own, caller, own);
  },
});
