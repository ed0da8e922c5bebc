import { hashPassword } from "../crypto/passwords";
import { db, Prisma, type Tx } from "../database/client";
import { avatarPaths } from "../services/users";
import { LIVE_WORLD_ID } from "../schemas/sandboxes";
import { generateWorld } from "./world";

/**
 * Seeds the demo world of PRODUCT.md once. Idempotent: a Setting row "demo_seeded" is inserted in
 * the same transaction as the data, so the world is either fully there (and never seeded again) or
 * not at all; a second process seeding at the same moment waits on that row and then skips.
 */
export const SEEDED_SETTING = "demo_seeded";

type Log = (line: string) => void;

async function isSeeded(): Promise<boolean> {
  return (await db.setting.findUnique({ where: { key: SEEDED_SETTING } })) !== null;
}

const BATCH = 2000;

async function inBatches<T>(rows: T[], insert: (batch: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) await insert(rows.slice(i, i + BATCH));
}

const json = (value: unknown) => value as Prisma.InputJsonValue;

export async function seedDemoWorld(options: { log?: Log } = {}): Promise<{ seeded: boolean }> {
  const log = options.log ?? (() => {});
  // Cheap check first, so a restart does not pay for password hashing.
  if (await isSeeded()) return { seeded: false };

  const started = Date.now();
  const world = generateWorld(started);
  // Only demo accounts can sign in; password hashing (Argon2id) is slow on purpose, so only they get a hash.
  const passwords = new Map<number, string>();
  await Promise.all(
    world.users.map(async (user, i) => {
      if (user.password) passwords.set(i, await hashPassword(user.password));
    }),
  );

  const seeded = await db.$transaction(
    async (tx) => {
      const claimed = await tx.$executeRaw`
        INSERT INTO "Setting" ("key", "value") VALUES (${SEEDED_SETTING}, ${new Date(started).toISOString()})
        ON CONFLICT ("key") DO NOTHING`;
      if (claimed === 0) return false;
      await insertWorld(tx, world, passwords, LIVE_WORLD_ID);
      return true;
    },
    { timeout: 180_000, maxWait: 30_000 },
  );
  if (seeded) {
    log(
      `Demo world: ${world.users.length} users, ${world.friendships.length} friendships, ` +
        `${world.chat.length} chat messages, ${world.notifications.length} notifications (${Date.now() - started} ms).`,
    );
  }
  return { seeded };
}

/**
 * Inserts a generated world into world `worldId` (0: the live demo world; A sandbox's
 * synthetic world, lib/services/sandboxes.ts). Returns how many people it holds.
 */
export async function insertWorld(
  tx: Tx,
  world: ReturnType<typeof generateWorld>,
  passwords: Map<number, string>,
  worldId: number,
): Promise<number> {
  // Users first (ids come back by handle). A handle that already exists (an account created with
  // the CLI before seeding) is kept as it is and joins the demo world.
  await inBatches(
    world.users.map((u, i) => ({ u, i })),
    (batch) =>
      tx.user.createMany({
        skipDuplicates: true,
        data: batch.map(({ u, i }) => ({
          worldId,
          handle: u.handle,
          displayName: u.displayName,
          bio: u.bio,
          location: u.location,
          ...avatarPaths(u.handle),
          passwordHash: passwords.get(i) ?? null,
          role: u.role,
          disabled: u.disabled,
          muted: u.muted,
          directoryVisible: u.directoryVisible,
          property: json(u.property),
          createdAt: u.createdAt,
        })),
      }),
  );
  const rows = await tx.user.findMany({
    where: { worldId, handle: { in: world.users.map((u) => u.handle) } },
    select: { id: true, handle: true },
  });
  const idByHandle = new Map(rows.map((r) => [r.handle, r.id]));
  const id = (index: number) => idByHandle.get(world.users[index]!.handle)!;

  await inBatches(
    world.friendships.flatMap((f) => [
      { userId: id(f.a), friendId: id(f.b), createdAt: f.createdAt },
      { userId: id(f.b), friendId: id(f.a), createdAt: f.createdAt },
    ]),
    (data) => tx.friendship.createMany({ data, skipDuplicates: true }),
  );
  await inBatches(
    world.achievements.map((a) => ({
      userId: id(a.user),
      code: a.code,
      name: a.name,
      description: a.description,
      earnedAt: a.earnedAt,
    })),
    (data) => tx.achievement.createMany({ data, skipDuplicates: true }),
  );
  await inBatches(
    world.stats.map((s) => ({
      userId: id(s.user),
      xchan: json(s.xchan),
      microblog: json(s.microblog),
      profiles: json(s.profiles),
      beetleGame: json(s.beetleGame),
      xcraft: json(s.xcraft),
      ethereum: json(s.ethereum),
      merch: json(s.merch),
      aggregateScores: json(s.aggregateScores),
    })),
    (data) => tx.accountStats.createMany({ data, skipDuplicates: true }),
  );
  await inBatches(
    world.beetle.map((b) => ({
      userId: id(b.user),
      xp: b.xp,
      level: b.level,
      inventory: json(b.inventory),
      hammers: json(b.hammers),
      cooldowns: json(b.cooldowns),
    })),
    (data) => tx.beetleState.createMany({ data, skipDuplicates: true }),
  );
  await inBatches(
    world.cards.map((c) => ({
      userId: id(c.user),
      codename: c.codename,
      name: c.name,
      rarity: c.rarity,
      count: c.count,
      discoveredAt: c.discoveredAt,
    })),
    (data) => tx.beetleCard.createMany({ data, skipDuplicates: true }),
  );
  await inBatches(
    world.links.map((l) => ({ worldId, userId: id(l.user), type: l.type, value: l.value })),
    (data) => tx.directoryLink.createMany({ data, skipDuplicates: true }),
  );
  await inBatches(
    world.pokes.map((p) => ({ callerId: id(p.caller), targetId: id(p.target), lastPokedAt: p.lastPokedAt, count: p.count })),
    (data) => tx.poke.createMany({ data, skipDuplicates: true }),
  );
  // Sorted by time, so notification ids grow with created_at like live ones.
  await inBatches(
    world.notifications.map((n) => ({
      userId: id(n.user),
      type: n.type,
      read: n.read,
      fromUserId: n.from === undefined ? null : id(n.from),
      count: n.count ?? null,
      guildName: n.guildName ?? null,
      message: n.message ?? null,
      createdAt: n.createdAt,
    })),
    (data) => tx.notification.createMany({ data }),
  );
  if (worldId === LIVE_WORLD_ID) await insertChat(tx, world, id);
  else await insertWorldChat(tx, world, id, worldId);

  // Denormalized counters (User.friendCount, achievementsCount) recomputed from the rows, so they
  // are right even when a pre-existing account joined the world.
  const ids = [...idByHandle.values()];
  await tx.$executeRaw`
    UPDATE "User" u SET
      "friendCount" = (SELECT count(*) FROM "Friendship" f WHERE f."userId" = u.id),
      "achievementsCount" = (SELECT count(*) FROM "Achievement" a WHERE a."userId" = u.id)
    WHERE u.id = ANY(${ids}::int[])`;
  await tx.$executeRaw`
    UPDATE "User" u SET "lastChatPostAt" = m.last
    FROM (SELECT "authorId", max("createdAt") AS last FROM "ChatMessage" WHERE "authorId" = ANY(${ids}::int[]) GROUP BY "authorId") m
    WHERE m."authorId" = u.id AND u.id = ANY(${ids}::int[])`;
  return ids.length;
}

/**
 * A sandbox's chat: ids taken from the sequence in one statement (ascending, so they grow
 * with time within the world as the keyset order expects) rather than after a table lock, so
 * building a sandbox never holds up the live chat.
 */
async function insertWorldChat(tx: Tx, world: ReturnType<typeof generateWorld>, id: (index: number) => number, worldId: number) {
  if (world.chat.length === 0) return;
  const taken = await tx.$queryRaw<{ id: bigint }[]>`
    SELECT nextval(pg_get_serial_sequence('"ChatMessage"', 'id'))::bigint AS id FROM generate_series(1, ${world.chat.length}::int) ORDER BY 1`;
  const ids = taken.map((r) => BigInt(r.id));
  await inBatches(
    world.chat.map((m, n) => ({
      id: ids[n]!,
      worldId,
      authorId: id(m.author),
      text: m.text,
      replyToId: m.replyTo === undefined ? null : ids[m.replyTo]!,
      media: m.media ? json(m.media) : Prisma.DbNull,
      reactions: m.reactions ? json(m.reactions) : Prisma.DbNull,
      editedAt: m.editedAt ?? null,
      createdAt: m.createdAt,
    })),
    (data) => tx.chatMessage.createMany({ data }),
  );
}

/**
 * Chat ids are assigned here (after the current maximum) so replies can point at earlier messages
 * in one insert, and ids grow with time as the API's keyset order expects; the sequence is moved
 * past them afterwards. The table lock keeps a live post from taking an id in between.
 */
async function insertChat(tx: Tx, world: ReturnType<typeof generateWorld>, id: (index: number) => number) {
  await tx.$executeRaw`LOCK TABLE "ChatMessage" IN EXCLUSIVE MODE`;
  const [row] = await tx.$queryRaw<{ max: bigint }[]>`SELECT COALESCE(max(id), 0)::bigint AS max FROM "ChatMessage"`;
  const base = BigInt(row?.max ?? 0);
  await inBatches(
    world.chat.map((m, n) => ({
      id: base + BigInt(n + 1),
      authorId: id(m.author),
      text: m.text,
      replyToId: m.replyTo === undefined ? null : base + BigInt(m.replyTo + 1),
      media: m.media ? json(m.media) : Prisma.DbNull,
      reactions: m.reactions ? json(m.reactions) : Prisma.DbNull,
      editedAt: m.editedAt ?? null,
      createdAt: m.createdAt,
    })),
    (data) => tx.chatMessage.createMany({ data }),
  );
  await tx.$executeRaw`
    SELECT setval(pg_get_serial_sequence('"ChatMessage"', 'id'), GREATEST((SELECT max(id) FROM "ChatMessage"), 1))`;
}
