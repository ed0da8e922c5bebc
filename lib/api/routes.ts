import { AppError } from "../errors";
import { beetleCardsSchema, beetleStateSchema } from "../schemas/beetle";
import { chatMessageSchema, chatPageSchema, listChatQuerySchema, postChatBodySchema } from "../schemas/chat";
import { listUsersQuerySchema, resolveBodySchema, resolveResultSchema, userPageSchema } from "../schemas/directory";
import { listNotificationsQuerySchema, notificationPageSchema } from "../schemas/notifications";
import { pokeParamsSchema, pokeResultSchema } from "../schemas/pokes";
import { profileSchema, usernameParamsSchema } from "../schemas/profiles";
import { accountStatsSchema } from "../schemas/stats";
import { findBeetleState, listBeetleCards } from "../services/beetle";
import { listChatMessages, postChatMessage } from "../services/chat";
import { listDirectoryUsers, resolveIdentifiers } from "../services/directory";
import { listNotifications } from "../services/notifications";
import { pokeUser } from "../services/pokes";
import { findOwnProfile, findProfileByHandle } from "../services/profiles";
import { findAccountStats } from "../services/stats";
import { defineRoute, type Route } from "./handler";
import { decodeUsersCursor, encodeUsersCursor } from "./pagination";
import { serializeBeetleCards, serializeBeetleState } from "./serialize/beetle";
import { serializeChatMessage } from "./serialize/chat";
import { serializeIdentity } from "./serialize/directory";
import { serializeNotification } from "./serialize/notification";
import { serializeProfile } from "./serialize/profile";
import { serializeAccountStats } from "./serialize/stats";

/**
 * The API's route table: the eleven endpoints of SPEC.md. lib/api/router.ts serves it (from
 * server.ts and from app/api/v1), lib/api/openapi.ts documents it. Handlers are thin: one service
 * call and one serializer each.
 */

/** The token's user vanished after the token check (deleted account). */
function accountGone(): AppError {
  return new AppError("invalid_token", "The access token's account no longer exists.");
}

export const getProfile = defineRoute({
  method: "GET",
  path: "/users/{username}",
  operationId: "getUserProfile",
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
  async handler({ params, actor }) {
    const viewerId = actor.kind === "user" ? actor.userId : undefined;
    const profile = await findProfileByHandle(params.username, viewerId);
    if (!profile) throw new AppError("not_found", "No user with that username.");
    return serializeProfile(profile, actor);
  },
});

export const getMe = defineRoute({
  method: "GET",
  path: "/me",
  operationId: "getMe",
  summary: "Get the signed-in user's own profile",
  description:
    "Returns the token user's profile object bare, with `isOwnProfile` true and the owner-only `user.stats`, " +
    "`user.aggregateScores` and `user.property` populated. No scope needed: a grant with only `openid` works.",
  tag: "Profiles",
  auth: "user",
  response: { status: 200, schema: profileSchema, description: "The profile object with owner-only fields, bare.", bare: true },
  errors: [],
  async handler({ actor }) {
    const own = await findOwnProfile(actor.userId);
    if (!own) throw accountGone();
    return serializeProfile(own, actor, own);
  },
});

export const getMyStats = defineRoute({
  method: "GET",
  path: "/me/stats",
  operationId: "getMyStats",
  summary: "Get the signed-in user's account statistics",
  description: "Statistics of all seven kinds and the aggregate scores. A user without statistics yet gets empty members.",
  tag: "Me",
  auth: "user",
  scope: "svc:stats.read",
  response: { status: 200, schema: accountStatsSchema, description: "Account statistics." },
  errors: [],
  async handler({ actor }) {
    const stats = await findAccountStats(actor.userId);
    if (!stats) throw accountGone();
    return serializeAccountStats(stats);
  },
});

export const getMyNotifications = defineRoute({
  method: "GET",
  path: "/me/notifications",
  operationId: "listMyNotifications",
  summary: "List the signed-in user's notifications",
  description:
    "Newest first, page-numbered. `limit` outside 1–50 (or not an integer) falls back to 10; a bad `page` falls back to 1. " +
    "`has_more` is exact. Optional fields appear only on the types that carry them (see the Notification schema).",
  tag: "Me",
  auth: "user",
  scope: "svc:notifications.read",
  query: listNotificationsQuerySchema,
  response: { status: 200, schema: notificationPageSchema, description: "A page of notifications." },
  errors: [],
  async handler({ actor, query }) {
    const { notifications, hasMore } = await listNotifications(actor.userId, query);
    return { notifications: notifications.map(serializeNotification), page: query.page, limit: query.limit, has_more: hasMore };
  },
});

export const getMyBeetle = defineRoute({
  method: "GET",
  path: "/me/beetle",
  operationId: "getMyBeetleState",
  summary: "Get the signed-in user's Beetle game state",
  description: "XP, level, inventory, hammer durabilities and cooldowns.",
  tag: "Beetle",
  auth: "user",
  scope: "svc:beetle.read",
  response: { status: 200, schema: beetleStateSchema, description: "The Beetle state." },
  errors: [],
  async handler({ actor }) {
    return serializeBeetleState(await findBeetleState(actor.userId));
  },
});

export const getMyBeetleCards = defineRoute({
  method: "GET",
  path: "/me/beetle/cards",
  operationId: "listMyBeetleCards",
  summary: "List the signed-in user's discovered Beetle cards",
  description: "An object keyed by card codename (empty when no card was discovered).",
  tag: "Beetle",
  auth: "user",
  scope: "svc:beetle.read",
  response: { status: 200, schema: beetleCardsSchema, description: "Discovered cards by codename." },
  errors: [],
  async handler({ actor }) {
    return serializeBeetleCards(await listBeetleCards(actor.userId));
  },
});

export const pokeRoute = defineRoute({
  method: "POST",
  path: "/users/{handle}/poke",
  operationId: "pokeUser",
  summary: "Poke a user",
  description:
    "Sends a poke to `{handle}` from the token's user and notifies them (a `poke` notification). No request body. " +
    "One poke per target per 24 hours: a repeat within the window is 429 `poke_cooldown` with `error.next_allowed_at` and `Retry-After`. " +
    "Poking yourself is 400 `invalid_request`; an unknown (or disabled) target is 404 `user_not_found`.",
  tag: "Pokes",
  auth: "user",
  scope: "svc:pokes.write",
  params: pokeParamsSchema,
  response: { status: 200, schema: pokeResultSchema, description: "The poke was sent." },
  errors: ["invalid_request", "user_not_found", "poke_cooldown"],
  async handler({ actor, params }) {
    const poke = await pokeUser(actor.userId, params.handle);
    return { target_handle: poke.targetHandle, poked_at: poke.pokedAt };
  },
});

export const listChatRoute = defineRoute({
  method: "GET",
  path: "/global-chat/messages",
  operationId: "listGlobalChatMessages",
  summary: "Read the global chat",
  description:
    "Messages oldest first within a page. Omit `before` for the newest page; while `has_more` is true pass `next_cursor` as `before` " +
    "for the next-older page (no gaps, no duplicates).",
  tag: "Global chat",
  auth: "any",
  scope: "svc:chat.read",
  query: listChatQuerySchema,
  response: { status: 200, schema: chatPageSchema, description: "A page of messages." },
  errors: ["invalid_request"],
  async handler({ query }) {
    const { messages, hasMore } = await listChatMessages(query);
    return {
      messages: messages.map(serializeChatMessage),
      has_more: hasMore,
      next_cursor: messages[0]?.id ?? "",
    };
  },
});

export const postChatRoute = defineRoute({
  method: "POST",
  path: "/global-chat/messages",
  operationId: "postGlobalChatMessage",
  summary: "Post to the global chat",
  description:
    "Posts as the token's user. `text` is required (not blank) and at most 8192 bytes UTF-8; `reply_to_id` must be the numeric id of an existing message. " +
    "Muted users get 403 `forbidden`. One message per 2 seconds per user (429 `rate_limited` with `Retry-After`). Bodies over 64 KiB: 413 `invalid_request`.",
  tag: "Global chat",
  auth: "user",
  scope: "svc:chat.write",
  body: postChatBodySchema,
  response: { status: 201, schema: chatMessageSchema, description: "The message as stored." },
  errors: ["invalid_request", "invalid_reply", "forbidden", "rate_limited"],
  async handler({ actor, body }) {
    return serializeChatMessage(await postChatMessage(actor.userId, { text: body.text, replyToId: body.reply_to_id }));
  },
});

export const resolveRoute = defineRoute({
  method: "POST",
  path: "/directory/resolve",
  operationId: "resolveDirectoryIdentifiers",
  summary: "Resolve identifiers to directory identities",
  description:
    "1 to 50 identifiers of type handle, x_handle, codehost or chatapp. Results keep the request order, echo each query, " +
    "and carry `identity: null` for a miss (including users hidden from the directory). More than 50, none, or an unknown type: 400 `invalid_request`.",
  tag: "Directory",
  auth: "any",
  scope: "svc:directory.read",
  body: resolveBodySchema,
  response: { status: 200, schema: resolveResultSchema, description: "One result per identifier, in order." },
  errors: ["invalid_request"],
  async handler({ body }) {
    const identities = await resolveIdentifiers(body.identifiers);
    return {
      results: body.identifiers.map((query, i) => {
        const identity = identities[i];
        return { query: { type: query.type, value: query.value }, identity: identity ? serializeIdentity(identity) : null };
      }),
    };
  },
});

export const listUsersRoute = defineRoute({
  method: "GET",
  path: "/users",
  operationId: "listDirectoryUsers",
  summary: "List directory-visible users",
  description:
    "A stable order (account creation) with opaque keyset cursors: pass `next_cursor` back as `cursor` until it is null. " +
    "Walking to the end returns every directory-visible user exactly once.",
  tag: "Directory",
  auth: "any",
  scope: "svc:directory.read",
  query: listUsersQuerySchema,
  response: { status: 200, schema: userPageSchema, description: "A page of users." },
  errors: ["invalid_request"],
  async handler({ query }) {
    const afterId = query.cursor === undefined ? 0 : decodeUsersCursor(query.cursor);
    const { users, hasMore } = await listDirectoryUsers({ afterId, limit: query.limit });
    const last = users[users.length - 1];
    return {
      users: users.map(serializeIdentity),
      next_cursor: hasMore && last ? encodeUsersCursor(last.id) : null,
    };
  },
});

/** Every endpoint, in SPEC.md's order. */
export const API_ROUTES: readonly Route[] = [
  getProfile,
  getMe,
  getMyStats,
  getMyNotifications,
  getMyBeetle,
  getMyBeetleCards,
  pokeRoute,
  listChatRoute,
  postChatRoute,
  resolveRoute,
  listUsersRoute,
];
