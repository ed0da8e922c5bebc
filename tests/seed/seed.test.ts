import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_ACCOUNTS } from "../../lib/seed/demo-accounts";
import { DEMO_LINKS, generateWorld } from "../../lib/seed/world";
import { query } from "../helpers/db";
import { newDatabase, pointAppAt } from "../helpers/server";

/** The demo world of PRODUCT.md: seeded once, deterministic, internally consistent. */
let databaseUrl: string;
let closeDb: () => Promise<void>;
let first: { seeded: boolean };
let second: { seeded: boolean };
const lines: string[] = [];

const TABLES = [
  "User", "Friendship", "Achievement", "AccountStats", "Notification", "BeetleState", "BeetleCard",
  "Poke", "ChatMessage", "DirectoryLink",
] as const;

async function counts(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of TABLES) {
    const [row] = await query<{ n: string }>(databaseUrl, `SELECT count(*) AS n FROM "${table}"`);
    out[table] = Number(row!.n);
  }
  return out;
}

let afterFirst: Record<string, number>;

beforeAll(async () => {
  databaseUrl = await newDatabase({ seed: false });
  closeDb = await pointAppAt(databaseUrl);
  const { seedDemoWorld } = await import("../../lib/seed");
  first = await seedDemoWorld({ log: (l) => lines.push(l) });
  afterFirst = await counts();
  second = await seedDemoWorld({ log: (l) => lines.push(l) });
});

afterAll(async () => {
  await closeDb?.();
});

describe("idempotence", () => {
  it("seeds once; the second run reports seeded:false and changes nothing", async () => {
    expect(first).toEqual({ seeded: true });
    expect(second).toEqual({ seeded: false });
    expect(await counts()).toEqual(afterFirst);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Demo world: 300 users/);
    const marker = await query(databaseUrl, `SELECT 1 FROM "Setting" WHERE key = 'demo_seeded'`);
    expect(marker).toHaveLength(1);
  });

  it("has a few hundred of everything PRODUCT.md lists", () => {
    expect(afterFirst.User).toBe(300);
    expect(afterFirst.ChatMessage).toBeGreaterThanOrEqual(300);
    expect(afterFirst.Friendship).toBeGreaterThan(600);
    expect(afterFirst.Notification).toBeGreaterThan(300);
    expect(afterFirst.BeetleCard).toBeGreaterThan(300);
    expect(afterFirst.DirectoryLink).toBeGreaterThan(200);
    expect(afterFirst.AccountStats).toBe(300);
    expect(afterFirst.BeetleState).toBe(300);
  });

  it("is deterministic: the template seeded in another process has the same users in the same order", async () => {
    const other = await newDatabase({ seed: true });
    const sql = `SELECT handle, "displayName", "directoryVisible", "friendCount" FROM "User" ORDER BY id`;
    expect(await query(other, sql)).toEqual(await query(databaseUrl, sql));
    const chat = `SELECT id::text, text, "replyToId"::text FROM "ChatMessage" ORDER BY id`;
    expect(await query(other, chat)).toEqual(await query(databaseUrl, chat));
  });

  it("generates varied, valid handles (not user1…user300)", () => {
    const world = generateWorld(Date.now());
    const handles = world.users.map((u) => u.handle);
    expect(new Set(handles).size).toBe(handles.length);
    for (const h of handles) expect(h).toMatch(/^[a-z0-9_]{2,30}$/);
    expect(handles.filter((h) => /^user\d+$/.test(h))).toEqual([]);
    expect(new Set(world.users.map((u) => u.location)).size).toBeGreaterThan(20);
    expect(new Set(world.users.map((u) => u.bio)).size).toBeGreaterThan(150);
  });
});

describe("demo accounts", () => {
  it("exist with their roles and flags; only they can sign in", async () => {
    const rows = await query<{ handle: string; role: string; disabled: boolean; muted: boolean; hasPassword: boolean }>(
      databaseUrl,
      `SELECT handle, role, disabled, muted, "passwordHash" IS NOT NULL AS "hasPassword" FROM "User" WHERE "passwordHash" IS NOT NULL ORDER BY id`,
    );
    expect(rows).toEqual([
      { handle: "alice", role: "user", disabled: false, muted: false, hasPassword: true },
      { handle: "bob", role: "user", disabled: false, muted: false, hasPassword: true },
      { handle: "carol", role: "user", disabled: false, muted: false, hasPassword: true },
      { handle: "mallory", role: "user", disabled: false, muted: true, hasPassword: true },
      { handle: "dave", role: "user", disabled: true, muted: false, hasPassword: true },
      { handle: "admin", role: "admin", disabled: false, muted: false, hasPassword: true },
    ]);
  });

  it("have the documented passwords (scrypt)", async () => {
    const { verifyUserCredentials } = await import("../../lib/services/users");
    for (const account of DEMO_ACCOUNTS) {
      const result = await verifyUserCredentials(account.handle, account.password);
      if (account.handle === "dave") expect(result).toEqual({ ok: false, reason: "disabled" });
      else expect(result).toMatchObject({ ok: true, user: { handle: account.handle } });
    }
  });

  it("alice and bob are friends (both directions); alice and carol are not", async () => {
    const pairs = await query<{ a: string; b: string }>(
      databaseUrl,
      `SELECT u.handle AS a, f.handle AS b FROM "Friendship" x JOIN "User" u ON u.id = x."userId" JOIN "User" f ON f.id = x."friendId"
       WHERE u.handle IN ('alice', 'bob', 'carol') AND f.handle IN ('alice', 'bob', 'carol') ORDER BY 1, 2`,
    );
    expect(pairs).toEqual([
      { a: "alice", b: "bob" },
      { a: "bob", b: "alice" },
    ]);
  });

  it("alice has a full inbox with every notification type", async () => {
    const rows = await query<{ type: string }>(
      databaseUrl,
      `SELECT DISTINCT n.type FROM "Notification" n JOIN "User" u ON u.id = n."userId" WHERE u.handle = 'alice' ORDER BY 1`,
    );
    expect(rows.map((r) => r.type)).toEqual(["achievement", "friend_request", "guild_invite", "mention", "poke", "system"]);
    const [total] = await query<{ n: string }>(
      databaseUrl,
      `SELECT count(*) AS n FROM "Notification" n JOIN "User" u ON u.id = n."userId" WHERE u.handle = 'alice'`,
    );
    expect(Number(total!.n)).toBeGreaterThan(20);
  });

  it("have their fixed directory links", async () => {
    const rows = await query<{ handle: string; type: string; value: string }>(
      databaseUrl,
      `SELECT u.handle, l.type::text, l.value FROM "DirectoryLink" l JOIN "User" u ON u.id = l."userId" WHERE u.handle IN ('alice','bob','carol')`,
    );
    expect(rows).toEqual(expect.arrayContaining(DEMO_LINKS));
    expect(rows).toHaveLength(DEMO_LINKS.length);
  });
});

describe("consistency", () => {
  it("stores friendships both ways and keeps friendCount and achievementsCount in sync", async () => {
    const oneWay = await query(
      databaseUrl,
      `SELECT 1 FROM "Friendship" a WHERE NOT EXISTS (SELECT 1 FROM "Friendship" b WHERE b."userId" = a."friendId" AND b."friendId" = a."userId")`,
    );
    expect(oneWay).toHaveLength(0);
    const drift = await query(
      databaseUrl,
      `SELECT handle FROM "User" u WHERE "friendCount" <> (SELECT count(*) FROM "Friendship" f WHERE f."userId" = u.id)
         OR "achievementsCount" <> (SELECT count(*) FROM "Achievement" a WHERE a."userId" = u.id)`,
    );
    expect(drift).toEqual([]);
  });

  it("hides some users from the directory", async () => {
    const [row] = await query<{ hidden: string }>(databaseUrl, `SELECT count(*) AS hidden FROM "User" WHERE NOT "directoryVisible"`);
    expect(Number(row!.hidden)).toBeGreaterThanOrEqual(15);
    expect(Number(row!.hidden)).toBeLessThanOrEqual(60);
  });

  it("gives everyone stats with all seven members and aggregate scores", async () => {
    const rows = await query<Record<string, Record<string, unknown>>>(
      databaseUrl,
      `SELECT xchan, microblog, profiles, "beetleGame", xcraft, ethereum, merch, "aggregateScores" FROM "AccountStats"`,
    );
    expect(rows).toHaveLength(300);
    for (const row of rows) {
      for (const member of ["xchan", "microblog", "profiles", "beetleGame", "xcraft", "ethereum", "merch"]) {
        expect(Object.keys(row[member]!).length, member).toBeGreaterThan(0);
      }
      expect(row.ethereum).toEqual({
        cult_tier: expect.any(String),
        total_owned: expect.any(Number),
        collections: expect.any(Object),
      });
      for (const value of Object.values(row.aggregateScores!)) expect(typeof value).toBe("number");
    }
  });

  it("stores directory links normalized (lower-case, no leading @) and unique", async () => {
    const bad = await query(databaseUrl, `SELECT value FROM "DirectoryLink" WHERE value <> lower(value) OR value LIKE '@%'`);
    expect(bad).toEqual([]);
    const types = await query<{ type: string }>(databaseUrl, `SELECT DISTINCT type::text FROM "DirectoryLink" ORDER BY 1`);
    expect(types.map((t) => t.type)).toEqual(["chatapp", "codehost", "x_handle"]);
  });

  it("has chat with replies to earlier messages, media, reactions and edits", async () => {
    const [row] = await query<Record<string, string>>(
      databaseUrl,
      `SELECT count(*) FILTER (WHERE "replyToId" IS NOT NULL) AS replies,
              count(*) FILTER (WHERE "replyToId" >= id) AS forward,
              count(*) FILTER (WHERE media IS NOT NULL) AS media,
              count(*) FILTER (WHERE reactions IS NOT NULL) AS reactions,
              count(*) FILTER (WHERE "editedAt" IS NOT NULL) AS edits,
              count(*) FILTER (WHERE "createdAt" > now()) AS future
         FROM "ChatMessage"`,
    );
    expect(Number(row!.replies)).toBeGreaterThan(50);
    expect(Number(row!.forward)).toBe(0);
    expect(Number(row!.media)).toBeGreaterThan(20);
    expect(Number(row!.reactions)).toBeGreaterThan(50);
    expect(Number(row!.edits)).toBeGreaterThan(10);
    expect(Number(row!.future)).toBe(0);
    const [sample] = await query<{ media: Record<string, unknown>[] }>(databaseUrl, `SELECT media FROM "ChatMessage" WHERE media IS NOT NULL LIMIT 1`);
    expect(Object.keys(sample!.media[0]!).sort()).toEqual(["height", "is_animated", "kind", "thumbnail_url", "url", "width"]);
    // Ids follow time, as the API's keyset order expects.
    const outOfOrder = await query(
      databaseUrl,
      `SELECT 1 FROM "ChatMessage" a JOIN "ChatMessage" b ON b.id = a.id + 1 WHERE b."createdAt" < a."createdAt"`,
    );
    expect(outOfOrder).toEqual([]);
    // The id sequence continues after the seeded ids.
    const [next] = await query<{ next: string }>(databaseUrl, `SELECT nextval(pg_get_serial_sequence('"ChatMessage"', 'id'))::text AS next`);
    expect(Number(next!.next)).toBe(afterFirst.ChatMessage! + 1);
  });

  it("leaves every poke pair open (older than the 24-hour cooldown)", async () => {
    const recent = await query(databaseUrl, `SELECT 1 FROM "Poke" WHERE "lastPokedAt" > now() - interval '24 hours'`);
    expect(recent).toEqual([]);
  });

  it("gives Beetle players hammers within their durability and cards of known rarities", async () => {
    const hammers = await query<{ hammers: { kind: string; durability: number; max_durability: number }[] }>(
      databaseUrl,
      `SELECT hammers FROM "BeetleState"`,
    );
    for (const { hammers: list } of hammers) {
      for (const h of list) expect(h.durability).toBeLessThanOrEqual(h.max_durability);
    }
    const rarities = await query<{ rarity: string }>(databaseUrl, `SELECT DISTINCT rarity FROM "BeetleCard" ORDER BY 1`);
    expect(rarities.map((r) => r.rarity)).toEqual(["common", "epic", "legendary", "rare", "uncommon"]);
  });
});
