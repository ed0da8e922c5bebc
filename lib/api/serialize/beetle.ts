import type { BeetleCard, BeetleState } from "../../generated/prisma/client";
import { hammerSchema, type BeetleCardsView, type BeetleStateView } from "../../schemas/beetle";
import { dateToUnixSeconds } from "../../schemas/wire";
import { asObject, nonNegativeInt, toUnixSeconds, validItems } from "./json";

export function serializeBeetleState(state: BeetleState | null): BeetleStateView {
  if (!state) return { xp: 0, level: 1, inventory: {}, hammers: [], cooldowns: {}, updated_at: 0 };
  const inventory: Record<string, number> = {};
  for (const [item, qty] of Object.entries(asObject(state.inventory))) {
    const n = nonNegativeInt(qty);
    if (n !== undefined) inventory[item] = n;
  }
  const cooldowns: Record<string, number> = {};
  for (const [action, at] of Object.entries(asObject(state.cooldowns))) {
    const s = toUnixSeconds(at);
    if (s !== undefined) cooldowns[action] = s;
  }
  return {
    xp: Math.max(0, state.xp),
    level: Math.max(1, state.level),
    inventory,
    hammers: validItems(hammerSchema, state.hammers),
    cooldowns,
    updated_at: dateToUnixSeconds(state.updatedAt),
  };
}

export function serializeBeetleCards(cards: BeetleCard[]): BeetleCardsView {
  const out: BeetleCardsView = {};
  for (const c of cards) {
    out[c.codename] = {
      codename: c.codename,
      name: c.name,
      rarity: c.rarity,
      count: Math.max(1, c.count),
      discovered_at: dateToUnixSeconds(c.discoveredAt),
    };
  }
  return out;
}
