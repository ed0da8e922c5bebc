import { z } from "zod";
import { unixSecondsSchema } from "./api";

export const pokeParamsSchema = z.object({
  handle: z.string().meta({ description: "Handle of the user to poke (case-insensitive)." }),
});

export const POKE_COOLDOWN_SECONDS = 24 * 3600;

export const pokeResultSchema = z
  .object({
    target_handle: z.string(),
    poked_at: unixSecondsSchema,
  })
  .meta({ id: "PokeResult" });
