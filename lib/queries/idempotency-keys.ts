// Data layer (STYLE.md Layout): hot-path SQL over pg, one statement per export; the rules stay in lib/api/idempotency.ts.
import { pool } from "../database/client";

/**
 * `Idempotency-Key` rows, one per (app, world, user, key). A key is claimed by the first
 * request that carries it (status null while it runs), completed with that request's reply, or
 * released again when it failed. Timestamps are UTC wall-clock like Prisma's `timestamp(3)`.
 */
const IDEMPOTENCY_KEY_TTL_SECONDS = 24 * 3600;
/** A claim whose request never finished (its process died) is taken over after this long. */
const IDEMPOTENCY_CLAIM_STALE_SECONDS = 60;

export interface IdempotencyScope {
  clientId: string;
  worldId: number;
  userId: number;
  key: string;
}

type ClaimResult =
  | { outcome: "claimed" }
  /** The key's row as stored: `status` null while its first request still runs. */
  | { outcome: "exists"; requestHash: Buffer; status: number | null; body: string | null }
  /** A concurrent request claimed it after this statement's snapshot: it is in progress. */
  | { outcome: "busy" };

/**
 * ONE statement: claims the key (insert, or take over an expired or stale row) or returns the row
 * that holds it. A concurrent claim of the same key waits on the unique index for the other insert
 * to commit and then finds it taken; a row committed after this statement's snapshot is not visible
 * to its SELECT, which the caller reads as "busy".
 */
const CLAIM_SQL = `
  WITH claimed AS (
    INSERT INTO "IdempotencyKey" ("clientId", "worldId", "userId", key, "requestHash", status, body, "createdAt")
    VALUES ($1, $2, $3, $4, $5, NULL, NULL, timezone('UTC', now()))
    ON CONFLICT ("clientId", "worldId", "userId", key) DO UPDATE
      SET "requestHash" = EXCLUDED."requestHash", status = NULL, body = NULL, "createdAt" = EXCLUDED."createdAt"
      WHERE "IdempotencyKey"."createdAt" <= EXCLUDED."createdAt" - interval '${IDEMPOTENCY_KEY_TTL_SECONDS} seconds'
         OR ("IdempotencyKey".status IS NULL
             AND "IdempotencyKey"."createdAt" <= EXCLUDED."createdAt" - interval '${IDEMPOTENCY_CLAIM_STALE_SECONDS} seconds')
    RETURNING 1
  )
  SELECT true AS claimed, NULL::bytea AS request_hash, NULL::int4 AS status, NULL::text AS body FROM claimed
  UNION ALL
  SELECT false, k."requestHash", k.status, k.body FROM "IdempotencyKey" k
  WHERE NOT EXISTS (SELECT 1 FROM claimed)
    AND k."clientId" = $1 AND k."worldId" = $2 AND k."userId" = $3 AND k.key = $4`;

export async function claimIdempotencyKey(scope: IdempotencyScope, requestHash: Buffer): Promise<ClaimResult> {
  const { rows } = await pool.query<{ claimed: boolean; request_hash: Buffer | null; status: number | null; body: string | null }>({
    name: "api_idempotency_claim_v1",
    text: CLAIM_SQL,
    values: [scope.clientId, scope.worldId, scope.userId, scope.key, requestHash],
  });
  const row = rows[0];
  if (!row) return { outcome: "busy" };
  if (row.claimed) return { outcome: "claimed" };
  return { outcome: "exists", requestHash: row.request_hash!, status: row.status, body: row.body };
}

/** Stores the reply of the request that claimed the key, to be replayed to its retries. */
export async function completeIdempotencyKey(scope: IdempotencyScope, requestHash: Buffer, status: number, body: string): Promise<void> {
  await pool.query({
    name: "api_idempotency_complete_v1",
    text: `UPDATE "IdempotencyKey" SET status = $6, body = $7
           WHERE "clientId" = $1 AND "worldId" = $2 AND "userId" = $3 AND key = $4 AND "requestHash" = $5 AND status IS NULL`,
    values: [scope.clientId, scope.worldId, scope.userId, scope.key, requestHash, status, body],
  });
}

/** Gives the key up after its request failed, so a retry runs again. */
export async function releaseIdempotencyKey(scope: IdempotencyScope, requestHash: Buffer): Promise<void> {
  await pool.query({
    name: "api_idempotency_release_v1",
    text: `DELETE FROM "IdempotencyKey"
           WHERE "clientId" = $1 AND "worldId" = $2 AND "userId" = $3 AND key = $4 AND "requestHash" = $5 AND status IS NULL`,
    values: [scope.clientId, scope.worldId, scope.userId, scope.key, requestHash],
  });
}

/** Retention: deletes keys older than their 24 hours; returns how many. */
export async function deleteExpiredIdempotencyKeys(): Promise<number> {
  const { rowCount } = await pool.query(
    `DELETE FROM "IdempotencyKey" WHERE "createdAt" <= timezone('UTC', now()) - interval '${IDEMPOTENCY_KEY_TTL_SECONDS} seconds'`,
  );
  return rowCount ?? 0;
}
