import { pool } from "../database/client";
import { AppError } from "../errors";
import { POKE_COOLDOWN_SECONDS } from "../schemas/pokes";
import { normalizeHandle } from "./profiles";

/**
 * POST /users/{handle}/poke. The 24-hour cooldown per (caller, target) lives in PostgreSQL so it
 * holds across processes: ONE statement upserts the Poke row only when the pair is open
 * (ON CONFLICT … DO UPDATE … WHERE lastPokedAt is 24 h old) and, only if that wrote a row, adds
 * the target's `poke` notification. Concurrent pokes of one pair serialize on the row lock and
 * the losers see the winner's fresh lastPokedAt, so exactly one succeeds.
 *
 * Timestamps are written as UTC wall-clock (`timezone('UTC', now())`) like Prisma does for
 * `timestamp(3)` columns, whatever the session time zone, and truncated to the second so that
 * `poked_at + 86400` is exactly the `next_allowed_at` at which the pair opens again.
 */
const POKE_SQL = `
  WITH target AS (
    SELECT id, handle FROM "User" WHERE handle = $2 AND NOT disabled
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

export interface PokeRecord {
  targetHandle: string;
  pokedAt: number;
}

export async function pokeUser(callerId: number, handleInput: string): Promise<PokeRecord> {
  const handle = normalizeHandle(handleInput);
  if (handle === null) throw new AppError("user_not_found", "No user with that handle.");
  const { rows } = await pool.query<{ target_id: number; handle: string; poked_at: string | null }>({
    name: "api_poke",
    text: POKE_SQL,
    values: [callerId, handle],
  });
  const row = rows[0];
  if (!row) throw new AppError("user_not_found", "No user with that handle.");
  if (row.target_id === callerId) throw new AppError("invalid_request", "You cannot poke yourself.");
  if (row.poked_at !== null) return { targetHandle: row.handle, pokedAt: Number(row.poked_at) };

  // On cooldown. A fresh statement (new snapshot) sees the row even if a concurrent poke wrote it.
  const { rows: [pair] } = await pool.query<{ last_ms: string }>(
    `SELECT floor(extract(epoch FROM "lastPokedAt") * 1000)::int8 AS last_ms FROM "Poke" WHERE "callerId" = $1 AND "targetId" = $2`,
    [callerId, row.target_id],
  );
  const lastMs = pair ? Number(pair.last_ms) : Date.now();
  const nextAllowedAt = Math.ceil((lastMs + POKE_COOLDOWN_SECONDS * 1000) / 1000);
  const retryAfter = Math.max(1, nextAllowedAt - Math.floor(Date.now() / 1000));
  throw new AppError("poke_cooldown", `You already poked ${row.handle} in the last 24 hours.`, {
    extra: { next_allowed_at: nextAllowedAt },
    headers: { "Retry-After": String(retryAfter) },
  });
}
