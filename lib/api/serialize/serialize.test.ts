import { describe, expect, it } from "vitest";
import { serializeBeetleState } from "./beetle";
import { serializeChatMessage } from "./chat";
import { serializeNotification } from "./notification";
import { serializeAggregateScores, serializeStatsMembers } from "./stats";

describe("JSON columns are shaped to the documented schema", () => {
  it("stats: documented keys of the wrong type are dropped, undocumented ones kept, ethereum defaulted", () => {
    const stats = serializeStatsMembers({
      xchan: { posts: "12", threads_started: 3, board_color: "green" },
      microblog: null,
      profiles: [],
      beetleGame: { level: -1 },
      xcraft: { favorite_biome: "taiga" },
      ethereum: { cult_tier: 7, total_owned: 2.5 },
      merch: { favorite_item: null },
      aggregateScores: {},
    });
    expect(stats).toEqual({
      xchan: { threads_started: 3, board_color: "green" },
      microblog: {},
      profiles: {},
      beetle_game: {},
      xcraft: { favorite_biome: "taiga" },
      ethereum: { cult_tier: "none", total_owned: 0, collections: {} },
      merch: { favorite_item: null },
    });
    expect(serializeAggregateScores({ overall: 10, bad: "x", inf: Infinity })).toEqual({ overall: 10 });
  });

  it("Beetle state: invalid entries dropped, cooldowns in Unix seconds", () => {
    const state = serializeBeetleState({
      userId: 1,
      xp: 10,
      level: 0,
      inventory: { amber: 2, bad: -1, worse: "3" },
      hammers: [{ kind: "iron", durability: 3, max_durability: 9 }, { kind: "x" }],
      cooldowns: { dig: 1_900_000_000, trade: 1_900_000_000_000, nap: "2030-01-01T00:00:00Z", oops: "soon" },
      updatedAt: new Date(1_800_000_000_500),
    });
    expect(state).toEqual({
      xp: 10,
      level: 1,
      inventory: { amber: 2 },
      hammers: [{ kind: "iron", durability: 3, max_durability: 9 }],
      cooldowns: { dig: 1_900_000_000, trade: 1_900_000_000, nap: Date.UTC(2030, 0, 1) / 1000 },
      updated_at: 1_800_000_000,
    });
  });

  it("chat: optional fields only when present", () => {
    const base = { id: "5", text: "hi", createdAt: 100, author: { handle: "a", displayName: "A", avatarUrl: "u" } };
    expect(serializeChatMessage({ ...base, replyToId: null, media: null, reactions: [], editedAt: null })).toEqual({
      id: "5",
      author: { handle: "a", display_name: "A", avatar_url: "u" },
      text: "hi",
      created_at: 100,
    });
    const full = serializeChatMessage({
      ...base,
      replyToId: "4",
      media: [{ kind: "image", url: "/m.jpg", thumbnail_url: "/t.jpg", width: 10, height: 10, is_animated: false }, { kind: "hologram" }],
      reactions: [{ emoji: "🪲", count: 2 }, { emoji: "x", count: 0 }],
      editedAt: 200,
    });
    expect(full.reply_to_id).toBe("4");
    expect(full.media).toHaveLength(1);
    expect(full.reactions).toEqual([{ emoji: "🪲", count: 2 }]);
    expect(full.edited_at).toBe(200);
  });

  it("notifications: a type shows only the fields it carries", () => {
    const n = { read: false, count: 3, guildName: "G", message: "m", createdAt: 1, from: { handle: "b", displayName: "B", avatarUrl: "u" } };
    expect(serializeNotification({ ...n, type: "system" })).toEqual({ type: "system", read: false, created_at: 1, message: "m" });
    expect(serializeNotification({ ...n, type: "guild_invite" })).toEqual({
      type: "guild_invite",
      read: false,
      created_at: 1,
      from: { handle: "b", display_name: "B", avatar_url: "u" },
      guild_name: "G",
    });
  });
});
