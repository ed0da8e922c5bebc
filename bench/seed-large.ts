/**
 * The benchmark's large data set, separate from the demo world (lib/seed/index.ts): N users with
 * directory links, friendships and statistics, M global chat messages and K notifications. Rows are
 * generated inside PostgreSQL (INSERT … SELECT FROM generate_series); no row crosses the wire. The
 * secondary indexes are built once after the inserts (dropSecondaryIndexes), in the same transaction.
 *
 * Every bench user has the same password, stored as a valid scrypt hash with a minimal work factor
 * (N=2^4 instead of 2^15; lib/crypto/passwords.ts reads the parameters from the hash), so that
 * signing a few thousand users in through the real login form is not spent hashing passwords.
 *
 *   npx tsx bench/seed-large.ts <databaseUrl> [--users N] [--messages M] [--notifications K]
 */
import { randomBytes, scryptSync } from "node:crypto";
import pg from "pg";
import { DEFAULT_SIZES } from "./config";

export interface SeedSizes {
  users: number;
  messages: number;
  notifications: number;
}

export interface SeedInfo extends SeedSizes {
  /** User ids are firstUserId … firstUserId + users - 1, in handle order. */
  firstUserId: number;
  handleWidth: number;
  seconds: number;
  reused: boolean;
}

export const BENCH_PASSWORD = "bench-password-not-secret";
const MARKER_KEY = "bench.seed";

/** `u000042`: sortable, valid under the handle rules (2–30 of a–z, 0–9, _). */
export function benchHandle(i: number, width: number): string {
  return `u${String(i).padStart(width, "0")}`;
}

export function handleWidth(users: number): number {
  return Math.max(6, String(users).length);
}

function cheapScryptHash(password: string): string {
  const n = 1 << 4;
  const salt = randomBytes(16);
  const key = scryptSync(password.normalize("NFKC"), salt, 32, { N: n, r: 8, p: 1 });
  return `scrypt$${n}$8$1$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

const SEEDED_TABLES = ["User", "Friendship", "DirectoryLink", "AccountStats", "ChatMessage", "Notification"];

/**
 * Drops the tables' secondary indexes (those that back no constraint) inside the open transaction
 * and returns their definitions, to be run again after the inserts: one sorted build per index is
 * much cheaper than millions of scattered index inserts. Transactional, so a failed seed rolls the
 * drop back. Where the role may not drop them (not the owner), nothing is dropped.
 */
async function dropSecondaryIndexes(client: pg.Client, tables: string[]): Promise<string[]> {
  const { rows } = await client.query<{ name: string; definition: string }>(
    `SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS name, pg_get_indexdef(i.indexrelid) AS definition
     FROM pg_index i
     JOIN pg_class c ON c.oid = i.indexrelid
     JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE i.indrelid = ANY (SELECT to_regclass(quote_ident(t))::oid FROM unnest($1::text[]) AS t)
       AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)`,
    [tables],
  );
  await client.query("SAVEPOINT drop_indexes");
  try {
    for (const row of rows) await client.query(`DROP INDEX ${row.name}`);
  } catch {
    await client.query("ROLLBACK TO SAVEPOINT drop_indexes");
    return [];
  }
  return rows.map((r) => r.definition);
}

/** How many notifications go to the "hot" users (the first ones, who get signed in). */
export const HOT_USERS = 1000;

export async function seedLarge(
  databaseUrl: string,
  sizes: SeedSizes,
  log: (line: string) => void = () => {},
): Promise<SeedInfo> {
  const started = Date.now();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const width = handleWidth(sizes.users);
    const marker = await client.query<{ value: string }>(`SELECT value FROM "Setting" WHERE key = $1`, [MARKER_KEY]);
    if (marker.rows[0]) {
      const previous = JSON.parse(marker.rows[0].value) as SeedInfo;
      if (previous.users === sizes.users && previous.messages === sizes.messages && previous.notifications === sizes.notifications) {
        log(`Reusing the bench data set already in this database (${previous.users} users).`);
        return { ...previous, reused: true, seconds: 0 };
      }
      throw new Error(
        `This database holds a bench data set of other sizes (${previous.users} users, ${previous.messages} messages); use a fresh database.`,
      );
    }
    const existing = await client.query<{ n: string }>(`SELECT count(*) AS n FROM "User" WHERE handle ~ '^u[0-9]+$'`);
    if (Number(existing.rows[0]!.n) > 0) {
      throw new Error("This database already has users named like bench users (u000001…); use a fresh database.");
    }

    const { rows } = await client.query<{ max: number | null }>(`SELECT max(id) AS max FROM "User"`);
    const offset = rows[0]!.max ?? 0;
    const N = sizes.users;
    const hash = cheapScryptHash(BENCH_PASSWORD);
    const step = async (label: string, sql: string, params: unknown[] = []) => {
      const t = Date.now();
      const result = await client.query(sql, params);
      log(`  ${label}: ${result.rowCount ?? 0} rows in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    };

    // The rows are consistent by construction, so foreign-key triggers can be skipped (they cost
    // most of the time for 400,000 friendships). Needs a superuser (the embedded database is one);
    // elsewhere the checks simply run.
    const skippedChecks = await client.query("SET session_replication_role = replica").then(
      () => true,
      () => false,
    );
    // Index builds sort in memory rather than in temporary files (this session only).
    await client.query("SET maintenance_work_mem = '512MB'");
    log(`Seeding the bench data set: ${N} users, ${sizes.messages} chat messages, ${sizes.notifications} notifications…`);
    await client.query("BEGIN");
    const rebuild = await dropSecondaryIndexes(client, SEEDED_TABLES);
    await step(
      "users",
      `INSERT INTO "User" (id, handle, "displayName", bio, location, "avatarUrl", "avatarUrlSmall", "passwordHash",
         "friendCount", "achievementsCount", property, "createdAt", "updatedAt")
       SELECT $1 + i, h, 'Bench User ' || i, 'Benchmark account number ' || i || '.',
         (ARRAY['Lisbon','Oslo','Quito','Accra','Hanoi','Perth','Lima','Riga'])[1 + i % 8],
         '/avatars/' || h || '.svg', '/avatars/' || h || '.svg?size=48', $2,
         CASE WHEN $3 > 4 THEN 4 ELSE 0 END, i % 7,
         jsonb_build_object('theme', CASE WHEN i % 2 = 0 THEN 'dark' ELSE 'light' END, 'language', 'en'),
         now() - ($3 - i) * interval '1 minute', now()
       FROM generate_series(1, $3::int) AS i, LATERAL (SELECT 'u' || lpad(i::text, $4::int, '0') AS h) AS names`,
      [offset, hash, N, width],
    );
    await client.query(`SELECT setval(pg_get_serial_sequence('"User"', 'id'), (SELECT max(id) FROM "User"))`);
    if (N > 4) {
      // A ring: i is friends with i±1 and i±2, stored in both directions (schema: Friendship). Rows
      // come in primary-key order (user by user), so the key index is appended to, not split.
      await step(
        "friendships",
        `INSERT INTO "Friendship" ("userId", "friendId")
         SELECT $1 + i, $1 + 1 + ((i - 1 + k + $2) % $2)
         FROM generate_series(1, $2::int) AS i, (VALUES (-2), (-1), (1), (2)) AS ks(k)`,
        [offset, N],
      );
    }
    await step(
      "directory links",
      `INSERT INTO "DirectoryLink" ("userId", type, value)
       SELECT $1 + i, 'x_handle'::"LinkType", 'x_' || lpad(i::text, $3::int, '0') FROM generate_series(1, $2::int) AS i
       UNION ALL
       SELECT $1 + i, 'codehost'::"LinkType", 'dev-' || lpad(i::text, $3::int, '0') FROM generate_series(2, $2::int, 2) AS i
       UNION ALL
       SELECT $1 + i, 'chatapp'::"LinkType", 'u' || lpad(i::text, $3::int, '0') || '#' || (1000 + i % 9000) FROM generate_series(3, $2::int, 3) AS i`,
      [offset, N, width],
    );
    // Each document depends on i modulo 1,000, 9,000 or 12 only, so each distinct one is built once
    // and joined in: building four jsonb values per user was most of this step's time.
    await step(
      "account stats",
      `WITH p1000 AS MATERIALIZED (
         SELECT r, jsonb_build_object('posts', r % 500, 'threads', r % 40) AS xchan,
           jsonb_build_object('overall', (r * 37) % 1000, 'social', (r * 11) % 100) AS scores
         FROM generate_series(0, 999) AS r
       ), p9000 AS MATERIALIZED (
         SELECT r, jsonb_build_object('posts', r % 900, 'followers', r % 3000) AS microblog FROM generate_series(0, 8999) AS r
       ), p12 AS MATERIALIZED (
         SELECT r, jsonb_build_object('cult_tier', (ARRAY['none','bronze','silver','gold'])[1 + r % 4], 'total_owned', r % 12,
           'collections', '{}'::jsonb) AS ethereum
         FROM generate_series(0, 11) AS r
       )
       INSERT INTO "AccountStats" ("userId", xchan, microblog, ethereum, "aggregateScores")
       SELECT $1 + i, p1000.xchan, p9000.microblog, p12.ethereum, p1000.scores
       FROM generate_series(1, $2::int) AS i
       JOIN p1000 ON p1000.r = i % 1000 JOIN p9000 ON p9000.r = i % 9000 JOIN p12 ON p12.r = i % 12`,
      [offset, N],
    );
    const { rows: chatRows } = await client.query<{ max: string | null }>(`SELECT max(id) AS max FROM "ChatMessage"`);
    const chatOffset = Number(chatRows[0]!.max ?? 0);
    const M = sizes.messages;
    await step(
      "chat messages",
      `INSERT INTO "ChatMessage" (id, "authorId", text, "replyToId", reactions, "createdAt")
       SELECT $1 + g, $2 + 1 + ((g::bigint * 7919) % $3),
         'Bench message ' || g || ': ' || (ARRAY['hello everyone','anyone up for a game?','nice weather today',
           'just shipped a thing','gm','what is everyone reading?','beetle level up!','see you tomorrow'])[1 + g % 8],
         CASE WHEN g % 20 = 0 AND g > 10 THEN $1 + g - 1 - (g % 7) END,
         CASE WHEN g % 10 = 0 THEN '[{"emoji":"👍","count":3},{"emoji":"🎉","count":1}]'::jsonb END,
         now() - ($4 - g) * interval '1 second'
       FROM generate_series(1, $4::int) AS g`,
      [chatOffset, offset, N, M],
    );
    if (M > 0) await client.query(`SELECT setval(pg_get_serial_sequence('"ChatMessage"', 'id'), (SELECT max(id) FROM "ChatMessage"))`);
    const K = sizes.notifications;
    const hot = Math.min(HOT_USERS, N);
    // Half of the notifications go to the first (hot) users, who are the ones signed in.
    await step(
      "notifications",
      `INSERT INTO "Notification" ("userId", type, read, "fromUserId", count, "guildName", message, "createdAt")
       SELECT $1 + 1 + CASE WHEN g % 2 = 0 THEN (g / 2) % $3 ELSE (g::bigint * 104729) % $2 END, t,
         g % 3 = 0,
         CASE WHEN t IN ('poke', 'friend_request', 'guild_invite', 'mention') THEN $1 + 1 + ((g::bigint * 31) % $2) END,
         CASE WHEN t = 'poke' THEN 1 + g % 5 END,
         CASE WHEN t = 'guild_invite' THEN 'Guild ' || (g % 50) END,
         CASE WHEN t IN ('achievement', 'mention', 'system') THEN 'Notification ' || g END,
         now() - ($4 - g) * interval '1 second'
       FROM generate_series(1, $4::int) AS g,
         LATERAL (SELECT (ARRAY['poke','friend_request','achievement','guild_invite','mention','system'])[1 + g % 6] AS t) AS types`,
      [offset, N, hot, K],
    );
    if (rebuild.length) {
      const t = Date.now();
      for (const definition of rebuild) await client.query(definition);
      log(`  ${rebuild.length} secondary indexes rebuilt in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    }
    const info: SeedInfo = { ...sizes, firstUserId: offset + 1, handleWidth: width, seconds: 0, reused: false };
    await client.query(`INSERT INTO "Setting" (key, value) VALUES ($1, $2)`, [MARKER_KEY, JSON.stringify(info)]);
    await client.query("COMMIT");
    if (skippedChecks) await client.query("SET session_replication_role = DEFAULT");
    const t = Date.now();
    // Fresh statistics and visibility maps, as a long-running database would have.
    for (const table of SEEDED_TABLES) {
      await client.query(`VACUUM ANALYZE "${table}"`);
    }
    log(`  vacuum analyze: ${((Date.now() - t) / 1000).toFixed(1)} s`);
    info.seconds = (Date.now() - started) / 1000;
    return info;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const flag = (name: string, fallback: number) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? Number(args[i + 1]) : fallback;
  };
  const url = args[0];
  if (!url || url.startsWith("--")) {
    process.stderr.write("usage: tsx bench/seed-large.ts <databaseUrl> [--users N] [--messages M] [--notifications K]\n");
    process.exit(1);
  }
  seedLarge(url, { users: flag("users", DEFAULT_SIZES.users), messages: flag("messages", DEFAULT_SIZES.messages), notifications: flag("notifications", DEFAULT_SIZES.notifications) }, console.log)
    .then((info) => console.log(`Seeded in ${info.seconds.toFixed(1)} s`))
    .catch((error: Error) => {
      process.stderr.write(`Error: ${error.message}\n`);
      process.exit(1);
    });
}
