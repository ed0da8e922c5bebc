import { beetleCardsSchema, beetleStateSchema } from "../../schemas/beetle";
import { findBeetleState, listBeetleCards } from "../../services/beetle";
import { defineRoute } from "../handler";
import { serializeBeetleCards, serializeBeetleState } from "../serialize/beetle";

/** SPEC.md endpoints of the beetle resource (declarations only; lib/api/routes/index.ts lists them all). */

export const getMyBeetle = defineRoute({
  method: "GET",
  path: "/me/beetle",
  operationId: "getMyBeetleState",
  mcp: { tool: "get_my_beetle" },
  summary: "Get the signed-in user's Beetle game state",
  description: "XP, level, inventory, hammer durabilities and cooldowns.",
  tag: "Beetle",
  auth: "user",
  scope: "svc:beetle.read",
  response: { status: 200, schema: beetleStateSchema, description: "The Beetle state." },
  errors: [],
  async handler({ caller }) {
    return serializeBeetleState(await findBeetleState(caller.userId));
  },
});

export const getMyBeetleCards = defineRoute({
  method: "GET",
  path: "/me/beetle/cards",
  operationId: "listMyBeetleCards",
  mcp: { tool: "list_my_beetle_cards" },
  summary: "List the signed-in user's discovered Beetle cards",
  description: "An object keyed by card codename (empty when no card was discovered).",
  tag: "Beetle",
  auth: "user",
  scope: "svc:beetle.read",
  response: { status: 200, schema: beetleCardsSchema, description: "Discovered cards by codename." },
  errors: [],
  async handler({ caller }) {
    return serializeBeetleCards(await listBeetleCards(caller.userId));
  },
});
