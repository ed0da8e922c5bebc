import type { Route } from "../handler";
import { getMyBeetle, getMyBeetleCards } from "./beetle";
import { eventStreamRoute } from "./events";
import { listChatRoute, postChatRoute } from "./chat";
import { listUsersRoute, resolveRoute } from "./directory";
import { getMyNotifications } from "./notifications";
import { pokeRoute } from "./pokes";
import { getMe, getProfile } from "./profiles";
import { getMyStats } from "./stats";

/**
 * The API's route table: the eleven endpoints of SPEC.md and the event stream, declared one file per resource.
 * lib/api/router.ts serves it (from server.ts and from app/api/v1), lib/api/openapi.ts documents
 * it. Handlers are thin: one service call and one serializer each.
 */

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
  // Beyond SPEC.md's eleven.
  eventStreamRoute,
];
