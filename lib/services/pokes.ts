import { noteWrite } from "../database/replicas";
import { AppError } from "../errors";
import { findLastPokedAtMs, upsertPoke } from "../queries/pokes";
import { POKE_COOLDOWN_SECONDS } from "../schemas/pokes";
import { normalizeHandle } from "./profiles";

/**
 * POST /users/{handle}/poke. The 24-hour cooldown per (caller, target) lives in PostgreSQL so it
 * holds across processes: ONE statement (lib/queries/pokes.ts) writes the poke and the target's
 * notification only when the pair is open, so of concurrent pokes of one pair exactly one succeeds.
 */
export interface PokeRecord {
  targetHandle: string;
  pokedAt: number;
}

export async function pokeUser(callerId: number, handleInput: string, clientId?: string): Promise<PokeRecord> {
  const handle = normalizeHandle(handleInput);
  if (handle === null) throw new AppError("user_not_found", "No user with that handle.");
  const attempt = await upsertPoke(callerId, handle);
  if (!attempt) throw new AppError("user_not_found", "No user with that handle.");
  if (attempt.targetId === callerId) throw new AppError("invalid_request", "You cannot poke yourself.");
  if (attempt.pokedAt !== null) {
    // Read-your-writes (lib/database/replicas.ts): the caller's reads stay on the primary until replicas have the poke.
    const announced = noteWrite({ kind: "user", userId: callerId, clientId });
    if (announced) await announced;
    return { targetHandle: attempt.targetHandle, pokedAt: attempt.pokedAt };
  }

  // On cooldown. A fresh statement (new snapshot) sees the row even if a concurrent poke wrote it.
  const lastMs = (await findLastPokedAtMs(callerId, attempt.targetId)) ?? Date.now();
  const nextAllowedAt = Math.ceil((lastMs + POKE_COOLDOWN_SECONDS * 1000) / 1000);
  const retryAfter = Math.max(1, nextAllowedAt - Math.floor(Date.now() / 1000));
  throw new AppError("poke_cooldown", `You already poked ${attempt.targetHandle} in the last 24 hours.`, {
    extra: { next_allowed_at: nextAllowedAt },
    headers: { "Retry-After": String(retryAfter) },
  });
}
