import { z } from "zod";
import { unixSecondsSchema } from "./api";

/** The Beetle game (SPEC.md leaves both shapes open): state of GET /me/beetle, cards of GET /me/beetle/cards. */
export const hammerSchema = z
  .object({
    kind: z.string().meta({ description: "Hammer codename, e.g. wooden, iron, golden" }),
    durability: z.int().nonnegative().meta({ description: "Uses left" }),
    max_durability: z.int().nonnegative().meta({ description: "Uses when new" }),
  })
  .meta({ id: "BeetleHammer" });

export const beetleStateSchema = z
  .object({
    xp: z.int().nonnegative(),
    level: z.int().positive(),
    inventory: z.record(z.string(), z.int().nonnegative()).meta({ description: "Item codename to quantity held" }),
    hammers: z.array(hammerSchema),
    cooldowns: z
      .record(z.string(), unixSecondsSchema)
      .meta({ description: "Action name (e.g. dig, trade) to the Unix second when it is available again" }),
    updated_at: unixSecondsSchema,
  })
  .meta({ id: "BeetleState", description: "A user's Beetle game state. A user who never played gets level 1 and empty collections." });
export type BeetleStateView = z.infer<typeof beetleStateSchema>;

export const beetleCardSchema = z
  .object({
    codename: z.string().meta({ description: "Same as the key" }),
    name: z.string(),
    rarity: z.string().meta({ description: "common, uncommon, rare, epic or legendary" }),
    count: z.int().positive().meta({ description: "Copies owned" }),
    discovered_at: unixSecondsSchema,
  })
  .meta({ id: "BeetleCard" });

export const beetleCardsSchema = z
  .record(z.string(), beetleCardSchema)
  .meta({ id: "BeetleCards", description: "Discovered cards keyed by card codename." });
export type BeetleCardsView = z.infer<typeof beetleCardsSchema>;
