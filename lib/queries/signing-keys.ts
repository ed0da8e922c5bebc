// Data layer (STYLE.md Layout): SQL over pg, one statement per export, run on the caller's transaction client; the rules stay in lib/services/signing-keys.ts.
import type { JWK } from "jose";
import type pg from "pg";

/** A pg client inside the caller's transaction (these statements only make sense under its lock). */
type Queryable = Pick<pg.ClientBase, "query">;

// Any fixed 64-bit number works; it only has to be the same in every process.
const KEYGEN_LOCK = 0x5167_6e4b;

/**
 * Prisma stores UTC wall-clock values in `timestamp(3)` columns; an ISO string with `Z` is read by
 * PostgreSQL the same way whatever the session time zone, so raw SQL writes stay consistent.
 */
function utc(date: Date): string {
  return date.toISOString();
}

/** Takes the key-generation advisory lock until the transaction ends (every process waits on the same one). */
export async function lockSigningKeys(client: Queryable): Promise<void> {
  await client.query("SELECT pg_advisory_xact_lock($1)", [KEYGEN_LOCK]);
}

/** Algorithms of the active (not retired) keys. */
export async function listActiveSigningKeyAlgs(client: Queryable): Promise<string[]> {
  const { rows } = await client.query<{ alg: string }>(`SELECT alg FROM "SigningKey" WHERE "retiredAt" IS NULL`);
  return rows.map((r) => r.alg);
}

export async function insertSigningKey(
  client: Queryable,
  key: { kid: string; alg: string; privateJwk: JWK; publicJwk: JWK },
  createdAt: Date,
): Promise<void> {
  await client.query(
    `INSERT INTO "SigningKey" (kid, alg, "privateJwk", "publicJwk", "createdAt") VALUES ($1, $2, $3, $4, $5)`,
    [key.kid, key.alg, JSON.stringify(key.privateJwk), JSON.stringify(key.publicJwk), utc(createdAt)],
  );
}

/** Retires every active key, published until `expiresAt`; returns their kids. */
export async function retireActiveSigningKeys(client: Queryable, now: Date, expiresAt: Date): Promise<string[]> {
  const { rows } = await client.query<{ kid: string }>(
    `UPDATE "SigningKey" SET "retiredAt" = $1, "expiresAt" = $2 WHERE "retiredAt" IS NULL RETURNING kid`,
    [utc(now), utc(expiresAt)],
  );
  return rows.map((r) => r.kid);
}
