// Data layer (STYLE.md Layout): hot-path SQL over pg, one statement per export; the rules stay in lib/services/pokes.ts.
import { pool } from "../database/client";
import { POKE_COOLDOWN_SECONDS } from "../schemas/pokes";

/**
 * ONE statement upserts the Poke row only when the pair is open (ON CONFLICT … DO UPDATE … WHERE
 * lastPokedAt is POKE_COOLDOWN_SECONDS old) and, only if that wrote a row, adds the target's `poke`
 * notification. Concurrent pokes of one pair serialize on the row lock and the losers see the
 * winner's fresh lastPokedAt, so exactly one succeeds.
 *
 * Timestamps are written as UTC wall-clock (`timezone('UTC', now())`) like Prisma does for
 * `timestamp(3)` columns, whatever the session time zone, and truncated to the second so that
 * `poked_at + 86400` is exactly the `next_allowed_at` at which the pair opens again.
 */
const POKE_SQL = `
  WITH target AS (
    SELECT id, handle FROM "User"
    WHERE "worldId" = (SELECT "worldId" FROM "User" WHERE id = $1) AND handle = $2 AND NOT disabled
  ), poked AS (
    INSERT INTO "Poke" ("callerId", "targetId", "lastPokedAt", count)
    SELECT $1, t.id, date_trunc('second', timezone('UTC', now())), 1 FROM target t WHERE t.id <> $1
    ON CONFLICT ("callerId", "targetId") DO UPDATE
      SET "lastPokedAt" = EXCLUDED."lastPokedAt", count = "Poke".count + 1
      WHERE "Poke"."lastPokedAt" <= EXCLUDED."lastPokedAt" - interval '${POKE_COOLDOWN_SECONDS} seconds'
    RETURNING "targetId", "lastPokedAt", count
  ), notified AS (
    INSERT INTO "Notification" ("userId", type, read, "fromUserId", count, "createdAt")
    SELECT "targetId", 'poke', false, $1, count, "lastPokedAt" FROM poked
    RETURNING id
  )
  SELECT t.id AS target_id, t.handle, floor(extract(epoch FROM p."lastPokedAt"))::int8 AS poked_at
  FROM target t LEFT JOIN poked p ON true`;

export interface PokeAttempt {
  targetId: number;
  targetHandle: string;
  /** Unix seconds of this poke; null when nothing was written (self-poke, or the pair is on cooldown). */
  pokedAt: number | null;
}

/**
 * Pokes the enabled user with stored handle `handle` in the caller's world (a poke never
 * crosses worlds); null when there is no such user.
 */
export async function upsertPoke(callerId: number, handle: string): Promise<PokeAttempt | null> {
  const { rows } = await pool.query<{ target_id: number; handle: string; poked_at: string | null }>({
    name: "api_poke_v2",
    text: POKE_SQL,
    values: [callerId, handle],
  });
  const row = rows[0];
  if (!row) return null;
  return { targetId: row.target_id, targetHandle: row.handle, pokedAt: row.poked_at === null ? null : Number(row.poked_at) };
}

/** When `callerId` last poked `targetId`, in Unix milliseconds; null when never. */
export async function findLastPokedAtMs(callerId: number, targetId: number): Promise<number | null> {
  const { rows: [pair] } = await pool.query<{ last_ms: string }>(
    `SELECT floor(extract(epoch FROM "lastPokedAt") * 1000)::int8 AS last_ms FROM "Poke" WHERE "callerId" = $1 AND "targetId" = $2`,
    [callerId, targetId],
  );
  return pair ? Number(pair.last_ms) : null;
}
