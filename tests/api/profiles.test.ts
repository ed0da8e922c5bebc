import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type Api, type ApiResult } from "./support";

/** SPEC.md "Profile object", GET /users/{username}, GET /me, GET /me/stats, GET /me/beetle(/cards). */
let api: Api;
let aliceToken: string;

const OWNER_ONLY = ["stats", "aggregateScores", "property"];

beforeAll(async () => {
  api = await startApi();
  aliceToken = await api.token({ user: "alice" });
});
afterAll(async () => {
  await api?.stop();
});

describe("GET /users/{username}", () => {
  it("gives the anonymous view without a token", async () => {
    const res = await api.call("/users/bob");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      user: { username: "bob", displayName: expect.any(String), pfpUrl: expect.any(String) },
      viewerContext: { areFriends: false },
      isAuthenticated: false,
      isOwnProfile: false,
    });
    for (const key of OWNER_ONLY) expect(res.body.user).not.toHaveProperty(key);
  });

  it("serves the stored profile fields and counters", async () => {
    const [row] = await api.sql<Record<string, unknown>>(
      `SELECT handle, "displayName", bio, location, "avatarUrl", "friendCount", "achievementsCount" FROM "User" WHERE handle = 'bob'`,
    );
    const res = await api.call("/users/bob");
    expect(res.body.user).toEqual({
      username: row!.handle,
      displayName: row!.displayName,
      bio: row!.bio,
      location: row!.location,
      // Stored site-relative; the API answers with an absolute URL on APP_URL.
      pfpUrl: `${api.server.url}${row!.avatarUrl as string}`,
      friendCount: row!.friendCount,
      achievementsCount: row!.achievementsCount,
    });
  });

  it("personalizes viewerContext for a friend (alice views bob)", async () => {
    const res = await api.call("/users/bob", { token: aliceToken });
    expect(res.body.viewerContext).toEqual({ areFriends: true });
    expect(res.body.isAuthenticated).toBe(true);
    expect(res.body.isOwnProfile).toBe(false);
  });

  it("says areFriends false for a signed-in viewer who is not a friend", async () => {
    const stranger = await api.createUser();
    const res = await api.call("/users/bob", { token: await api.token({ user: stranger.handle }) });
    expect(res.body.viewerContext).toEqual({ areFriends: false });
    expect(res.body.isAuthenticated).toBe(true);
  });

  it("marks the token user's own profile but keeps owner-only fields for GET /me", async () => {
    const res = await api.call("/users/alice", { token: aliceToken });
    expect(res.body.isOwnProfile).toBe(true);
    expect(res.body.viewerContext.areFriends).toBe(false);
    for (const key of OWNER_ONLY) expect(res.body.user).not.toHaveProperty(key);
  });

  it("matches the username case-insensitively", async () => {
    const res = await api.call("/users/ALICE");
    expect(res.status).toBe(200);
    expect(res.body.user.username).toBe("alice");
  });

  it("is 404 not_found for an unknown username", async () => {
    for (const name of ["nobody-here", "x".repeat(300), "%F0%9F%AA%B2", "a%00b", "..%2F..%2Fetc", "'%20OR%201=1--"]) {
      const res = await api.call(`/users/${name}`);
      expect(res.status, name).toBe(404);
      expect(res.body).toEqual({ error: { code: "not_found", message: expect.any(String) } });
    }
  });

  it("hides a disabled account like an unknown one", async () => {
    const res = await api.call("/users/dave");
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("not_found");
  });

  it("describes the latest achievements in achievementContext, newest first", async () => {
    const user = await api.createUser();
    await api.sql(`UPDATE "User" SET "achievementsCount" = 4 WHERE id = $1`, [user.id]);
    for (const [i, code] of ["first", "second", "third", "fourth"].entries()) {
      await api.sql(
        `INSERT INTO "Achievement" ("userId", code, name, description, "earnedAt") VALUES ($1, $2, $3, $4, timestamp '2026-01-01 00:00:00' + $5 * interval '1 day')`,
        [user.id, code, `Name ${code}`, `Did ${code}`, i],
      );
    }
    const res = await api.call(`/users/${user.handle}`);
    expect(res.body.achievementContext).toEqual({
      totalCount: 4,
      recent: [
        { code: "fourth", name: "Name fourth", description: "Did fourth", earnedAt: Date.UTC(2026, 0, 4) / 1000 },
        { code: "third", name: "Name third", description: "Did third", earnedAt: Date.UTC(2026, 0, 3) / 1000 },
        { code: "second", name: "Name second", description: "Did second", earnedAt: Date.UTC(2026, 0, 2) / 1000 },
      ],
    });
    expect(res.body.user.achievementsCount).toBe(4);
  });

  it("gives an empty achievementContext to a user without achievements", async () => {
    const user = await api.createUser();
    const res = await api.call(`/users/${user.handle}`);
    expect(res.body.achievementContext).toEqual({ totalCount: 0, recent: [] });
  });
});

describe("concurrent reads (the server answers one event-loop turn's reads with one query)", () => {
  it("gives every concurrent caller its own profile, viewer context and status", async () => {
    const stranger = await api.createUser();
    const strangerToken = await api.token({ user: stranger.handle });
    const viewers: (string | undefined)[] = [undefined, aliceToken, strangerToken];
    const targets = ["bob", "alice", "ALICE", stranger.handle, "dave", "nobody-here", "carol"];
    const pairs = viewers.flatMap((token) => targets.map((target) => ({ token, target })));
    // The answers one at a time, then all at once (each several times, shuffled): they must agree.
    const alone: ApiResult[] = [];
    for (const { token, target } of pairs) alone.push(await api.call(`/users/${target}`, { token }));
    const order = pairs.flatMap((pair, index) => [0, 1, 2].map(() => ({ pair, index }))).sort(() => Math.random() - 0.5);
    const together = await Promise.all(order.map(({ pair }) => api.call(`/users/${pair.target}`, { token: pair.token })));
    together.forEach((res, k) => {
      const expected = alone[order[k]!.index]!;
      expect({ status: res.status, body: res.body }, JSON.stringify(order[k]!.pair)).toEqual({ status: expected.status, body: expected.body });
    });
    // Spot checks that the personalised parts differ where they should.
    expect(alone[targets.length]!.body.viewerContext).toEqual({ areFriends: true }); // alice views bob
    expect(alone[2 * targets.length]!.body.viewerContext).toEqual({ areFriends: false }); // stranger views bob

    const mine = await Promise.all([aliceToken, strangerToken, aliceToken].map((token) => api.call("/me", { token })));
    expect(mine.map((res) => res.body.user.username)).toEqual(["alice", stranger.handle, "alice"]);
  });
});

describe("GET /me", () => {
  it("returns the token user's profile with isOwnProfile and the owner-only fields", async () => {
    const res = await api.call("/me", { token: aliceToken });
    expect(res.status).toBe(200);
    expect(res.body.user.username).toBe("alice");
    expect(res.body.isOwnProfile).toBe(true);
    expect(res.body.isAuthenticated).toBe(true);
    expect(Object.keys(res.body.user.stats).sort()).toEqual(["beetle_game", "ethereum", "merch", "microblog", "profiles", "xchan", "xcraft"]);
    expect(typeof res.body.user.aggregateScores).toBe("object");
    expect(typeof res.body.user.property).toBe("object");
  });

  it("serves the stored property and aggregate scores", async () => {
    const user = await api.createUser();
    await api.sql(`UPDATE "User" SET property = $2 WHERE id = $1`, [user.id, JSON.stringify({ plot: "north-7", theme: "dark" })]);
    await api.sql(
      `INSERT INTO "AccountStats" ("userId", ethereum, "aggregateScores", xchan) VALUES ($1, $2, $3, $4)`,
      [user.id, JSON.stringify({ cult_tier: "acolyte", total_owned: 3, collections: { moon_cats: 3 } }), JSON.stringify({ overall: 12.5, social: 3 }), JSON.stringify({ posts: 9, favorite_board: "/g/" })],
    );
    const res = await api.call("/me", { token: await api.token({ user: user.handle, scopes: ["openid"] }) });
    expect(res.body.user.property).toEqual({ plot: "north-7", theme: "dark" });
    expect(res.body.user.aggregateScores).toEqual({ overall: 12.5, social: 3 });
    expect(res.body.user.stats.ethereum).toEqual({ cult_tier: "acolyte", total_owned: 3, collections: { moon_cats: 3 } });
    expect(res.body.user.stats.xchan).toEqual({ posts: 9, favorite_board: "/g/" });
  });
});

describe("GET /me/stats", () => {
  it("returns handle, display_name, the seven stats members and aggregate scores under data", async () => {
    const res = await api.call("/me/stats", { token: aliceToken });
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data.handle).toBe("alice");
    expect(typeof data.display_name).toBe("string");
    expect(Object.keys(data.stats).sort()).toEqual(["beetle_game", "ethereum", "merch", "microblog", "profiles", "xchan", "xcraft"]);
    expect(data.stats.ethereum).toEqual({ cult_tier: expect.any(String), total_owned: expect.any(Number), collections: expect.any(Object) });
    for (const score of Object.values(data.aggregate_scores)) expect(typeof score).toBe("number");
  });

  it("gives a user without statistics empty members and the SPEC ethereum fields", async () => {
    const user = await api.createUser();
    const res = await api.call("/me/stats", { token: await api.token({ user: user.handle }) });
    expect(res.body.data).toEqual({
      handle: user.handle,
      display_name: `Test ${user.handle}`,
      stats: { xchan: {}, microblog: {}, profiles: {}, beetle_game: {}, xcraft: {}, ethereum: { cult_tier: "none", total_owned: 0, collections: {} }, merch: {} },
      aggregate_scores: {},
    });
  });
});

describe("GET /me/beetle and /me/beetle/cards", () => {
  it("returns the stored Beetle state", async () => {
    const user = await api.createUser();
    await api.sql(
      `INSERT INTO "BeetleState" ("userId", xp, level, inventory, hammers, cooldowns, "updatedAt") VALUES ($1, 420, 4, $2, $3, $4, timestamp '2026-02-01 12:00:00')`,
      [user.id, JSON.stringify({ amber: 3, twig: 12 }), JSON.stringify([{ kind: "iron", durability: 7, max_durability: 150 }]), JSON.stringify({ dig: 1_900_000_000 })],
    );
    const res = await api.call("/me/beetle", { token: await api.token({ user: user.handle }) });
    expect(res.body).toEqual({
      data: {
        xp: 420,
        level: 4,
        inventory: { amber: 3, twig: 12 },
        hammers: [{ kind: "iron", durability: 7, max_durability: 150 }],
        cooldowns: { dig: 1_900_000_000 },
        updated_at: Date.UTC(2026, 1, 1, 12) / 1000,
      },
    });
  });

  it("gives a user who never played level 1 and empty collections", async () => {
    const user = await api.createUser();
    const res = await api.call("/me/beetle", { token: await api.token({ user: user.handle }) });
    expect(res.body.data).toMatchObject({ xp: 0, level: 1, inventory: {}, hammers: [], cooldowns: {} });
  });

  it("returns discovered cards keyed by codename", async () => {
    const user = await api.createUser();
    await api.sql(
      `INSERT INTO "BeetleCard" ("userId", codename, name, rarity, count, "discoveredAt") VALUES
       ($1, 'stag_beetle', 'Stag Beetle', 'rare', 2, timestamp '2026-03-01 00:00:00'),
       ($1, 'ladybird', 'Ladybird', 'common', 5, timestamp '2026-03-02 00:00:00')`,
      [user.id],
    );
    const res = await api.call("/me/beetle/cards", { token: await api.token({ user: user.handle }) });
    expect(res.body).toEqual({
      data: {
        stag_beetle: { codename: "stag_beetle", name: "Stag Beetle", rarity: "rare", count: 2, discovered_at: Date.UTC(2026, 2, 1) / 1000 },
        ladybird: { codename: "ladybird", name: "Ladybird", rarity: "common", count: 5, discovered_at: Date.UTC(2026, 2, 2) / 1000 },
      },
    });
    const empty = await api.call("/me/beetle/cards", { token: await api.token({ user: (await api.createUser()).handle }) });
    expect(empty.body).toEqual({ data: {} });
  });
});
