import { pokeParamsSchema, pokeResultSchema } from "../../schemas/pokes";
import { pokeUser } from "../../services/pokes";
import { defineRoute } from "../handler";

/** SPEC.md endpoints of the pokes resource (declarations only; lib/api/routes/index.ts lists them all). */

export const pokeRoute = defineRoute({
  method: "POST",
  path: "/users/{handle}/poke",
  operationId: "pokeUser",
  mcp: { tool: "poke_user" },
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
  errors: ["invalid_request", "user_not_found", "poke_cooldown", "idempotency_key_in_use", "idempotency_key_reused"],
  limit: "poke",
  idempotent: true,
  async handler({ caller, params }) {
    const poke = await pokeUser(caller.userId, params.handle, caller.clientId);
    return { target_handle: poke.targetHandle, poked_at: poke.pokedAt };
  },
});
