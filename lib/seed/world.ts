import { DEMO_ACCOUNTS } from "./demo-accounts";
import { createRng, type Rng } from "./random";
import * as W from "./words";

/**
 * The demo world as plain data, generated from a fixed seed: the same handles, friendships, chat and
 * stats on every machine (only timestamps follow the clock, so the chat is always "recent"). Users
 * are referred to by index; lib/seed/index.ts maps indexes to database ids when inserting.
 */

export const WORLD_SEED = "social-dev-platform demo world v1";
export const GENERATED_USERS = 300;
const CHAT_MESSAGES = 720;

/**
 * What to generate: the demo world by default; a sandbox's synthetic world is smaller and
 * has no demo accounts (no one can sign in as a generated person, and `alice` is live only).
 */
export interface WorldShape {
  users: number;
  chatMessages: number;
  demoAccounts: boolean;
}

const DEMO_WORLD: WorldShape = { users: GENERATED_USERS, chatMessages: CHAT_MESSAGES, demoAccounts: true };
const DAY = 24 * 3600 * 1000;

export interface WorldUser {
  handle: string;
  displayName: string;
  bio: string;
  location: string;
  role: "user" | "admin";
  disabled: boolean;
  muted: boolean;
  directoryVisible: boolean;
  createdAt: Date;
  property: Record<string, unknown>;
  /** Only demo accounts have a password; everyone else cannot sign in. */
  password?: string;
  /** 0 (lurker) … 1 (lives here); drives how much of everything they have. */
  activity: number;
}

export interface World {
  users: WorldUser[];
  friendships: { a: number; b: number; createdAt: Date }[];
  achievements: { user: number; code: string; name: string; description: string; earnedAt: Date }[];
  stats: {
    user: number;
    xchan: object;
    microblog: object;
    profiles: object;
    beetleGame: object;
    xcraft: object;
    ethereum: { cult_tier: string; total_owned: number; collections: Record<string, number> };
    merch: object;
    aggregateScores: Record<string, number>;
  }[];
  notifications: {
    user: number;
    type: "poke" | "friend_request" | "achievement" | "guild_invite" | "mention" | "system";
    read: boolean;
    from?: number;
    count?: number;
    guildName?: string;
    message?: string;
    createdAt: Date;
  }[];
  beetle: { user: number; xp: number; level: number; inventory: object; hammers: object[]; cooldowns: object }[];
  cards: { user: number; codename: string; name: string; rarity: string; count: number; discoveredAt: Date }[];
  links: { user: number; type: "x_handle" | "codehost" | "chatapp"; value: string }[];
  pokes: { caller: number; target: number; lastPokedAt: Date; count: number }[];
  chat: {
    author: number;
    text: string;
    /** Index of an earlier message. */
    replyTo?: number;
    media?: { kind: string; url: string; thumbnail_url: string; width: number; height: number; is_animated: boolean }[];
    reactions?: { emoji: string; count: number }[];
    editedAt?: Date;
    createdAt: Date;
  }[];
}

/** Handles the seed never generates: demo accounts and the platform's own account. */
const RESERVED = new Set<string>([...DEMO_ACCOUNTS.map((a) => a.handle), "platform", "system", "root", "support"]);

const DEMO_PROFILES: Record<string, { displayName: string; bio: string; location: string; activity: number }> = {
  alice: {
    displayName: "Alice Moreau",
    bio: "Backend developer building small tools for big communities. Beetle card collector.",
    location: "Lyon, France",
    activity: 0.85,
  },
  bob: {
    displayName: "Bob Okafor",
    bio: "Indie game dev. Will trade duplicates. Friend of alice since the beta.",
    location: "Lagos, Nigeria",
    activity: 0.65,
  },
  carol: {
    displayName: "Carol Lindqvist",
    bio: "Frontend tinkerer and xcraft redstone engineer.",
    location: "Helsinki, Finland",
    activity: 0.55,
  },
  mallory: {
    displayName: "Mallory Quinn",
    bio: "Muted for spamming global chat. Working on it.",
    location: "the internet",
    activity: 0.4,
  },
  dave: {
    displayName: "Dave Kowalski",
    bio: "Account disabled.",
    location: "Kraków, Poland",
    activity: 0.2,
  },
  admin: {
    displayName: "Platform Admin",
    bio: "Keeps the lights on and reviews apps in the developer portal.",
    location: "",
    activity: 0.3,
  },
};

/** Directory links of the demo accounts, fixed so tests and docs can use them. */
export const DEMO_LINKS: { handle: string; type: "x_handle" | "codehost" | "chatapp"; value: string }[] = [
  { handle: "alice", type: "x_handle", value: "alice_builds" },
  { handle: "alice", type: "codehost", value: "alice-codes" },
  { handle: "alice", type: "chatapp", value: "alice.dev" },
  { handle: "bob", type: "x_handle", value: "bobokafor" },
  { handle: "bob", type: "codehost", value: "bob-okafor" },
  { handle: "carol", type: "codehost", value: "carol-l" },
  { handle: "carol", type: "chatapp", value: "carol_plays" },
];

function ascii(name: string): string {
  return name
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/ø/g, "o")
    .replace(/ł/g, "l")
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "");
}

function makeHandle(rng: Rng, first: string, last: string, taken: Set<string>): string {
  const f = ascii(first);
  const l = ascii(last);
  const word = () => rng.pick(W.HANDLE_WORDS);
  const year = () => String(rng.int(1970, 2010));
  const candidates: (() => string)[] = [
    () => `${f}${l[0]}`,
    () => `${f}_${l}`,
    () => `${f}${l}`,
    () => `${word()}_${f}`,
    () => `${f}${year()}`,
    () => `${f}${rng.pick(W.HANDLE_SUFFIXES)}`,
    () => `${l}${f[0]}`,
    () => `${word()}${word()}`,
    () => `${f[0]}${l}`,
    () => `the_${word()}_${f}`,
    () => `${f}_${rng.int(1, 99)}`,
  ];
  let handle = rng.pick(candidates)().slice(0, 30);
  if (handle.length < 2) handle = `${handle}${f}`.slice(0, 30);
  let base = handle;
  while (taken.has(handle) || RESERVED.has(handle)) {
    base = base.slice(0, 26);
    handle = `${base}${rng.int(2, 999)}`;
  }
  taken.add(handle);
  return handle;
}

function makeBio(rng: Rng): string {
  const parts: string[] = [];
  if (rng.chance(0.85)) {
    const role = rng.pick(W.BIO_ROLES);
    parts.push(`${role[0]!.toUpperCase()}${role.slice(1)}.`);
  }
  if (rng.chance(0.75)) {
    const interests = rng.sample(W.BIO_INTERESTS, rng.int(1, 2)).join(", ");
    parts.push(`${interests[0]!.toUpperCase()}${interests.slice(1)}.`);
  }
  const flourish = rng.pick(W.BIO_FLOURISHES);
  if (flourish) parts.push(flourish);
  return parts.join(" ");
}

function between(rng: Rng, from: number, to: number): Date {
  return new Date(Math.floor(from + rng.next() * Math.max(0, to - from)));
}

function makeUsers(rng: Rng, now: number, shape: WorldShape): WorldUser[] {
  // Demo handles stay reserved even when demo accounts are not generated (RESERVED).
  const taken = new Set<string>();
  const users: WorldUser[] = (shape.demoAccounts ? DEMO_ACCOUNTS : []).map((account, i) => {
    const profile = DEMO_PROFILES[account.handle]!;
    taken.add(account.handle);
    return {
      handle: account.handle,
      displayName: profile.displayName,
      bio: profile.bio,
      location: profile.location,
      role: account.role,
      disabled: account.handle === "dave",
      muted: account.handle === "mallory",
      directoryVisible: true,
      createdAt: new Date(now - (700 - i * 20) * DAY),
      property: {},
      password: account.password,
      activity: profile.activity,
    };
  });
  for (let i = users.length; i < shape.users; i++) {
    const first = rng.pick(W.FIRST_NAMES);
    const last = rng.pick(W.LAST_NAMES);
    const handle = makeHandle(rng, first, last, taken);
    const styles: (() => string)[] = [
      () => `${first} ${last}`,
      () => `${first} ${last}`,
      () => `${first} ${last[0]}.`,
      () => first,
      () => handle,
      () => `${first} ${last} ${rng.pick(["🪲", "✨", "🌿", "🎮", "☕"])}`,
    ];
    // Activity is skewed: most people are occasional, a few live here.
    const activity = Math.min(1, Math.pow(rng.next(), 1.8) + (rng.chance(0.05) ? 0.4 : 0));
    users.push({
      handle,
      displayName: rng.pick(styles)().slice(0, 80),
      bio: rng.chance(0.9) ? makeBio(rng) : "",
      location: rng.pick(W.LOCATIONS),
      role: "user",
      disabled: rng.chance(0.01),
      muted: rng.chance(0.02),
      // ~10% opted out of the directory (SPEC: GET /users lists directory-visible users only).
      directoryVisible: !rng.chance(0.1),
      createdAt: between(rng, now - 720 * DAY, now - 2 * DAY),
      property: {},
      activity,
    });
  }
  for (const user of users) user.property = makeProperty(rng, user.activity);
  return users;
}

function makeProperty(rng: Rng, activity: number): Record<string, unknown> {
  const cosmetics = ["profile_frame_gold", "chat_color_teal", "name_glow", "beetle_skin_chrome", "banner_aurora", "badge_og"];
  return {
    coins: Math.round(activity * rng.int(200, 50_000)),
    gems: Math.round(activity * rng.int(0, 900)),
    land_plots: rng.chance(activity) ? rng.int(1, 6) : 0,
    items: rng
      .sample(cosmetics, rng.int(0, Math.round(activity * 5)))
      .map((codename) => ({ codename, quantity: rng.int(1, 3), equipped: rng.chance(0.4) })),
    titles: rng.sample(["Night Owl", "Card Shark", "Redstone Wizard", "Friend of Beetles", "Founder"], rng.int(0, 2)),
  };
}

function pairKey(a: number, b: number): string {
  return a < b ? `${a}:${b}` : `${b}:${a}`;
}

function makeFriendships(rng: Rng, users: WorldUser[], now: number): World["friendships"] {
  const index = new Map(users.map((u, i) => [u.handle, i]));
  const demo = new Set(DEMO_ACCOUNTS.map((a) => index.get(a.handle)).filter((i) => i !== undefined));
  const alice = index.get("alice");
  const bob = index.get("bob");
  const seen = new Set<string>();
  const result: World["friendships"] = [];
  const add = (a: number, b: number) => {
    if (a === b || seen.has(pairKey(a, b))) return;
    // Among demo accounts only alice↔bob are friends, so tests can rely on "not friends" elsewhere.
    if (demo.has(a) && demo.has(b) && pairKey(a, b) !== pairKey(alice!, bob!)) return;
    seen.add(pairKey(a, b));
    const since = Math.max(users[a]!.createdAt.getTime(), users[b]!.createdAt.getTime());
    result.push({ a: Math.min(a, b), b: Math.max(a, b), createdAt: between(rng, since, now - DAY) });
  };
  if (alice !== undefined && bob !== undefined) add(alice, bob);
  users.forEach((user, i) => {
    const wanted = Math.round(user.activity * rng.int(4, 30)) + (rng.chance(0.3) ? 1 : 0);
    for (let k = 0; k < Math.ceil(wanted / 2); k++) add(i, rng.int(0, users.length - 1));
  });
  return result;
}

function makeAchievements(rng: Rng, users: WorldUser[], now: number): World["achievements"] {
  return users.flatMap((user, i) =>
    rng.sample(W.ACHIEVEMENTS, Math.round(user.activity * rng.int(1, 14))).map((a) => ({
      user: i,
      code: a.code,
      name: a.name,
      description: a.description,
      earnedAt: between(rng, user.createdAt.getTime(), now - 3600_000),
    })),
  );
}

function makeBeetle(rng: Rng, users: WorldUser[], now: number): { beetle: World["beetle"]; cards: World["cards"] } {
  const beetle: World["beetle"] = [];
  const cards: World["cards"] = [];
  users.forEach((user, i) => {
    const xp = Math.round(Math.pow(user.activity, 1.4) * rng.int(0, 60_000));
    const level = Math.min(60, Math.floor(Math.sqrt(xp / 40)) + 1);
    const inventory = Object.fromEntries(
      rng.sample(W.BEETLE_ITEMS, rng.int(0, 2 + Math.round(user.activity * 8))).map((item) => [item, rng.int(1, 40)]),
    );
    const hammers = Array.from({ length: rng.int(xp > 0 ? 1 : 0, 1 + Math.round(user.activity * 3)) }, () => {
      const [kind, max] = rng.weighted(W.HAMMER_KINDS.map((h) => [h, h[0] === "diamond" ? 1 : 4] as const));
      return { kind, durability: rng.int(0, max), max_durability: max };
    });
    // Only running cooldowns are stored: action → Unix seconds when it is available again.
    const cooldowns = Object.fromEntries(
      W.BEETLE_ACTIONS.filter(() => rng.chance(0.35 * user.activity)).map((action) => [
        action,
        Math.floor(now / 1000) + rng.int(60, 20 * 3600),
      ]),
    );
    beetle.push({ user: i, xp, level, inventory, hammers, cooldowns });

    const discovered = Math.round(user.activity * rng.int(0, W.BEETLE_CARDS.length));
    const byRarity = new Map<string, (typeof W.BEETLE_CARDS)[number][]>();
    for (const card of W.BEETLE_CARDS) byRarity.set(card.rarity, [...(byRarity.get(card.rarity) ?? []), card]);
    const owned = new Set<string>();
    for (let k = 0; k < discovered * 2 && owned.size < discovered; k++) {
      const rarity = rng.weighted(W.CARD_RARITIES);
      const card = rng.pick(byRarity.get(rarity)!);
      if (owned.has(card.codename)) continue;
      owned.add(card.codename);
      cards.push({
        user: i,
        codename: card.codename,
        name: card.name,
        rarity: card.rarity,
        count: rarity === "common" ? rng.int(1, 7) : rarity === "legendary" ? 1 : rng.int(1, 3),
        discoveredAt: between(rng, user.createdAt.getTime(), now - 3600_000),
      });
    }
  });
  return { beetle, cards };
}

function makeStats(rng: Rng, world: Pick<World, "users" | "beetle" | "cards" | "friendships">): World["stats"] {
  const friends = new Array<number>(world.users.length).fill(0);
  for (const f of world.friendships) {
    friends[f.a]!++;
    friends[f.b]!++;
  }
  const cardCount = new Array<number>(world.users.length).fill(0);
  for (const c of world.cards) cardCount[c.user]!++;
  return world.users.map((user, i) => {
    const a = user.activity;
    const scaled = (max: number) => Math.round(a * rng.next() * max);
    const beetle = world.beetle[i]!;
    const tierIndex = Math.min(W.CULT_TIERS.length - 1, Math.floor(Math.pow(rng.next(), 2) * a * 6));
    const collections = Object.fromEntries(
      rng.sample(W.ETH_COLLECTIONS, tierIndex === 0 ? 0 : rng.int(1, 4)).map((c) => [c, rng.int(1, 12)]),
    );
    const totalOwned = Object.values(collections).reduce((s, n) => s + n, 0);
    const xchanPosts = scaled(4000);
    const microPosts = scaled(2500);
    const blocks = scaled(400_000);
    const orders = rng.chance(a) ? rng.int(1, 9) : 0;
    const social = Math.round(friends[i]! * 40 + microPosts * 0.5 + xchanPosts * 0.3);
    const gaming = Math.round(beetle.xp * 0.1 + blocks * 0.01 + cardCount[i]! * 50);
    const creator = Math.round(microPosts * 1.2 + xchanPosts * 0.4);
    const collector = Math.round(totalOwned * 120 + cardCount[i]! * 80 + orders * 60);
    return {
      user: i,
      xchan: {
        posts: xchanPosts,
        threads_started: Math.round(xchanPosts * rng.next() * 0.08),
        replies_received: Math.round(xchanPosts * (0.5 + rng.next() * 2)),
        images_posted: Math.round(xchanPosts * rng.next() * 0.3),
        favorite_board: rng.pick(W.XCHAN_BOARDS),
      },
      microblog: {
        posts: microPosts,
        followers: scaled(12_000),
        following: scaled(900),
        likes_received: Math.round(microPosts * rng.next() * 14),
        reposts_received: Math.round(microPosts * rng.next() * 3),
      },
      profiles: {
        profile_views: scaled(30_000),
        profile_views_7d: scaled(600),
        friends: friends[i]!,
        endorsements: scaled(80),
      },
      beetleGame: {
        level: beetle.level,
        xp: beetle.xp,
        cards_discovered: cardCount[i]!,
        battles_won: scaled(900),
        battles_lost: scaled(700),
        hammers_broken: scaled(60),
      },
      xcraft: {
        playtime_hours: scaled(2200),
        blocks_placed: blocks,
        blocks_broken: Math.round(blocks * (0.6 + rng.next())),
        deaths: scaled(1500),
        advancements: scaled(120),
        favorite_biome: rng.pick(W.XCRAFT_BIOMES),
      },
      ethereum: { cult_tier: W.CULT_TIERS[tierIndex]!, total_owned: totalOwned, collections },
      merch: {
        orders,
        items_owned: orders === 0 ? 0 : orders + rng.int(0, 6),
        total_spent_cents: orders * rng.int(900, 6500),
        favorite_item: orders === 0 ? null : rng.pick(W.MERCH_ITEMS),
      },
      aggregateScores: {
        overall: social + gaming + creator + collector,
        social,
        gaming,
        creator,
        collector,
      },
    };
  });
}

function makeLinks(rng: Rng, users: WorldUser[]): World["links"] {
  const index = new Map(users.map((u, i) => [u.handle, i]));
  const used = { x_handle: new Set<string>(), codehost: new Set<string>(), chatapp: new Set<string>() };
  const links: World["links"] = [];
  for (const link of DEMO_LINKS) {
    if (!index.has(link.handle)) continue;
    used[link.type].add(link.value);
    links.push({ user: index.get(link.handle)!, type: link.type, value: link.value });
  }
  const demo = new Set(DEMO_LINKS.map((l) => l.handle));
  const add = (user: number, type: keyof typeof used, raw: string) => {
    // Stored normalized: lower-case, no leading @ (lookups are exact).
    let value = raw.toLowerCase().replace(/^@+/, "");
    while (used[type].has(value)) value = `${value.slice(0, 12)}${rng.int(1, 99)}`;
    used[type].add(value);
    links.push({ user, type, value });
  };
  users.forEach((user, i) => {
    if (demo.has(user.handle) || DEMO_ACCOUNTS.some((a) => a.handle === user.handle)) return;
    const h = user.handle;
    if (rng.chance(0.55)) add(i, "x_handle", rng.pick([h, `${h}_x`, `real_${h}`, h.replace(/_/g, "")]).slice(0, 15));
    if (rng.chance(0.4)) add(i, "codehost", rng.pick([h.replace(/_/g, "-"), `${h.replace(/_/g, "")}-dev`, h]).slice(0, 39));
    if (rng.chance(0.45)) add(i, "chatapp", rng.pick([h, `${h}.gg`, `${h.replace(/_/g, ".")}`, `${h}_${rng.int(1, 99)}`]).slice(0, 32));
  });
  return links;
}

function makeChat(rng: Rng, users: WorldUser[], now: number, count: number): World["chat"] {
  // A few hundred recent messages over the last six days; chatty people post more.
  const candidates = users
    .map((u, i) => [i, u] as const)
    .filter(([, u]) => u.handle !== "admin" && u.activity > 0.08);
  const weights = candidates.map(([i, u]) => [i, 0.2 + u.activity * 3] as const);
  const times = Array.from({ length: count }, () => now - 10 * 60_000 - rng.next() * 6 * DAY).sort((x, y) => x - y);
  const chat: World["chat"] = [];
  times.forEach((t, n) => {
    const author = rng.weighted(weights);
    const message: World["chat"][number] = { author, text: "", createdAt: new Date(Math.floor(t)) };
    if (n > 3 && rng.chance(0.22)) {
      message.replyTo = rng.int(Math.max(0, n - 40), n - 1);
      const target = users[chat[message.replyTo]!.author]!;
      message.text = rng.chance(0.4) ? `@${target.handle} ${rng.pick(W.CHAT_REPLIES)}` : rng.pick(W.CHAT_REPLIES);
    } else {
      const style = rng.int(0, 9);
      if (style < 7) message.text = `${rng.pick(W.CHAT_LINES)}${rng.pick(W.CHAT_CLOSERS)}`;
      else if (style < 8) message.text = `${rng.pick(W.CHAT_LINES)}\n\n${rng.pick(W.CHAT_LINES)}`;
      else message.text = rng.pick(["gm", "gn all", "brb", "🪲🪲🪲", "lol", "o/", "back", "afk dinner", "gg"]);
    }
    if (rng.chance(0.1)) {
      message.media = Array.from({ length: rng.weighted([[1, 8], [2, 2], [3, 1]] as const) }, () => {
        const kind = rng.weighted([["image", 7], ["gif", 2], ["video", 1]] as const);
        const [width, height] = rng.pick([[1280, 720], [1080, 1080], [1080, 1350], [800, 600], [480, 270]] as const);
        const name = `${rng.pick(W.MEDIA_SUBJECTS)}-${rng.int(1, 40)}`;
        const ext = kind === "image" ? "jpg" : kind === "gif" ? "gif" : "mp4";
        return {
          kind,
          url: `/media/chat/${name}.${ext}`,
          thumbnail_url: `/media/chat/thumbs/${name}.jpg`,
          width,
          height,
          is_animated: kind !== "image",
        };
      });
    }
    if (rng.chance(0.32)) {
      message.reactions = rng
        .sample(W.REACTION_EMOJI, rng.weighted([[1, 5], [2, 3], [3, 2], [4, 1]] as const))
        .map((emoji) => ({ emoji, count: rng.weighted([[1, 6], [2, 3], [3, 2], [5, 1], [12, 1]] as const) }))
        .sort((x, y) => y.count - x.count);
    }
    if (rng.chance(0.07)) {
      const edited = t + rng.int(20, 30 * 60) * 1000;
      if (edited < now) {
        message.editedAt = new Date(Math.floor(edited));
        message.text = `${message.text}${rng.pick(W.CHAT_EDIT_NOTES)}`;
      }
    }
    chat.push(message);
  });
  return chat;
}

function makePokesAndNotifications(
  rng: Rng,
  world: Pick<World, "users" | "achievements" | "chat">,
  now: number,
): { pokes: World["pokes"]; notifications: World["notifications"] } {
  const users = world.users;
  const pokes: World["pokes"] = [];
  const notifications: World["notifications"] = [];
  const pokeSeen = new Set<string>();
  const index = new Map(users.map((u, i) => [u.handle, i]));
  const demoTargets = ["alice", "bob", "carol"].map((h) => index.get(h)).filter((i) => i !== undefined);

  const addPoke = (caller: number, target: number) => {
    const key = `${caller}>${target}`;
    if (caller === target || pokeSeen.has(key)) return;
    pokeSeen.add(key);
    // Every seeded poke is older than the 24-hour cooldown, so every pair is open to poke again.
    const lastPokedAt = between(rng, now - 20 * DAY, now - 26 * 3600_000);
    const count = rng.weighted([[1, 6], [2, 2], [3, 1], [5, 1]] as const);
    pokes.push({ caller, target, lastPokedAt, count });
    notifications.push({ user: target, type: "poke", read: rng.chance(0.6), from: caller, count, createdAt: lastPokedAt });
  };
  // 420 in the demo world of 300 people, as many per person in smaller ones.
  for (let k = 0; k < Math.round(users.length * 1.4); k++) addPoke(rng.int(0, users.length - 1), rng.int(0, users.length - 1));
  for (const target of demoTargets) for (let k = 0; k < 6; k++) addPoke(rng.int(6, users.length - 1), target);

  const others = (i: number) => {
    let j = rng.int(0, users.length - 1);
    while (j === i) j = rng.int(0, users.length - 1);
    return j;
  };
  const achievementsByUser = new Map<number, World["achievements"]>();
  for (const a of world.achievements) achievementsByUser.set(a.user, [...(achievementsByUser.get(a.user) ?? []), a]);

  const addOne = (i: number, type: World["notifications"][number]["type"]) => {
    const createdAt = between(rng, Math.max(users[i]!.createdAt.getTime(), now - 30 * DAY), now - 60_000);
    // Older notifications are more likely read, like a real inbox.
    const read = rng.chance(Math.min(0.9, (now - createdAt.getTime()) / (10 * DAY)));
    switch (type) {
      case "friend_request":
        notifications.push({ user: i, type, read, from: others(i), createdAt });
        break;
      case "achievement": {
        const earned = achievementsByUser.get(i);
        const a = earned?.length ? rng.pick(earned) : rng.pick(W.ACHIEVEMENTS);
        notifications.push({ user: i, type, read, message: `You earned the “${a.name}” achievement: ${a.description}`, createdAt });
        break;
      }
      case "guild_invite":
        notifications.push({ user: i, type, read, from: others(i), guildName: rng.pick(W.GUILD_NAMES), createdAt });
        break;
      case "mention": {
        const from = others(i);
        const text = `@${users[i]!.handle} ${rng.pick(W.CHAT_REPLIES)}`;
        notifications.push({ user: i, type, read, from, message: text, count: rng.chance(0.2) ? rng.int(2, 6) : undefined, createdAt });
        break;
      }
      case "system":
        notifications.push({ user: i, type, read, message: rng.pick(W.SYSTEM_MESSAGES), createdAt });
        break;
      default:
        break;
    }
  };
  const types = ["friend_request", "achievement", "guild_invite", "mention", "system"] as const;
  users.forEach((user, i) => {
    const isDemo = demoTargets.includes(i);
    // Demo accounts get a full inbox (more than a page) with every type; others a handful.
    const n = isDemo ? 24 : Math.round(user.activity * rng.int(0, 12));
    if (isDemo) for (const type of types) addOne(i, type);
    for (let k = 0; k < n; k++) addOne(i, rng.weighted([["friend_request", 3], ["achievement", 3], ["guild_invite", 1], ["mention", 3], ["system", 1]] as const));
  });
  notifications.sort((x, y) => x.createdAt.getTime() - y.createdAt.getTime());
  return { pokes, notifications };
}

/** The whole demo world (or a world of `shape`) for a given clock. Deterministic in everything but timestamps. */
export function generateWorld(now: number = Date.now(), seed: string = WORLD_SEED, shape: WorldShape = DEMO_WORLD): World {
  const rng = createRng(seed);
  const users = makeUsers(rng, now, shape);
  const friendships = makeFriendships(rng, users, now);
  const achievements = makeAchievements(rng, users, now);
  const { beetle, cards } = makeBeetle(rng, users, now);
  const stats = makeStats(rng, { users, beetle, cards, friendships });
  const links = makeLinks(rng, users);
  const chat = makeChat(rng, users, now, shape.chatMessages);
  const { pokes, notifications } = makePokesAndNotifications(rng, { users, achievements, chat }, now);
  return { users, friendships, achievements, stats, notifications, beetle, cards, links, pokes, chat };
}
