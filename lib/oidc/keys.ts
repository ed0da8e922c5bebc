import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from "jose";
import { db, pool } from "../db";
import { env } from "../env";
import { logger } from "../logger";

/**
 * Token signing keys, kept in the SigningKey table so every process of a deployment signs with the
 * same keys (PRODUCT.md: keys live in PostgreSQL). Two active keys: ES256 for access tokens (small,
 * fast to verify) and RS256 because ID tokens default to RS256 for every client.
 *
 * Rotation retires the active keys (they stay published until every token they signed can have
 * expired) and generates new ones. A running provider picks the new keys up on its next key-set
 * poll (lib/oidc/index.ts), verifiers on the next unknown `kid`.
 */
export const SIGNING_ALGS = ["ES256", "RS256"] as const;
export type SigningAlg = (typeof SIGNING_ALGS)[number];

/** Access tokens use this; ID tokens and logout hints use RS256 (oidc-provider's default). */
export const ACCESS_TOKEN_ALG: SigningAlg = "ES256";

/** ID tokens live this long (seconds); a retired key must outlive both token kinds. */
export const ID_TOKEN_TTL = 3600;

/** Extra time a retired key stays published, for clock skew and in-flight requests. */
const RETIREMENT_MARGIN_SECONDS = 300;

// Any fixed 64-bit number works; it only has to be the same in every process.
const KEYGEN_LOCK = 0x5167_6e4b;

export interface StoredSigningKey {
  kid: string;
  alg: SigningAlg;
  privateJwk: JWK;
  publicJwk: JWK;
  createdAt: Date;
  retiredAt: Date | null;
  expiresAt: Date | null;
}

async function generateKey(alg: SigningAlg): Promise<{ kid: string; privateJwk: JWK; publicJwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true, ...(alg === "RS256" ? { modulusLength: 2048 } : {}) });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const meta = { kid, alg, use: "sig" };
  return { kid, privateJwk: { ...(await exportJWK(privateKey)), ...meta }, publicJwk: { ...publicJwk, ...meta } };
}

/**
 * Prisma stores UTC wall-clock values in `timestamp(3)` columns; an ISO string with `Z` is read by
 * PostgreSQL the same way whatever the session time zone, so raw SQL writes stay consistent.
 */
function utc(date: Date): string {
  return date.toISOString();
}

function retirementExpiry(now: Date): Date {
  const longest = Math.max(env().ACCESS_TOKEN_TTL, ID_TOKEN_TTL);
  return new Date(now.getTime() + (longest + RETIREMENT_MARGIN_SECONDS) * 1000);
}

/**
 * Runs `fn` holding a transaction-scoped advisory lock, so two processes starting (or rotating) at
 * once do not both generate keys.
 */
async function withKeyLock<T>(fn: (client: import("pg").PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock($1)", [KEYGEN_LOCK]);
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

async function insertKey(client: import("pg").PoolClient, alg: SigningAlg): Promise<void> {
  const key = await generateKey(alg);
  await client.query(
    `INSERT INTO "SigningKey" (kid, alg, "privateJwk", "publicJwk", "createdAt") VALUES ($1, $2, $3, $4, $5)`,
    [key.kid, alg, JSON.stringify(key.privateJwk), JSON.stringify(key.publicJwk), utc(new Date())],
  );
  logger.info("signing key generated", { kid: key.kid, alg });
}

/** Generates the active keys that are missing (first start). Idempotent and safe across processes. */
export async function ensureSigningKeys(): Promise<void> {
  const active = await db.signingKey.findMany({ where: { retiredAt: null }, select: { alg: true } });
  if (SIGNING_ALGS.every((alg) => active.some((k) => k.alg === alg))) return;
  await withKeyLock(async (client) => {
    const { rows } = await client.query<{ alg: string }>(`SELECT alg FROM "SigningKey" WHERE "retiredAt" IS NULL`);
    for (const alg of SIGNING_ALGS) {
      if (!rows.some((r) => r.alg === alg)) await insertKey(client, alg);
    }
  });
}

/**
 * Retires every active key and generates new ones. Retired public keys stay published (and valid
 * for verification) until their `expiresAt`, after which they are deleted.
 */
export async function rotateSigningKeys(): Promise<{ retired: string[] }> {
  return withKeyLock(async (client) => {
    const now = new Date();
    const { rows } = await client.query<{ kid: string }>(
      `UPDATE "SigningKey" SET "retiredAt" = $1, "expiresAt" = $2 WHERE "retiredAt" IS NULL RETURNING kid`,
      [utc(now), utc(retirementExpiry(now))],
    );
    for (const alg of SIGNING_ALGS) await insertKey(client, alg);
    logger.info("signing keys rotated", { retired: rows.map((r) => r.kid) });
    return { retired: rows.map((r) => r.kid) };
  });
}

/**
 * Every key still published: active keys first (newest first), then retired ones. oidc-provider
 * signs with the first matching key of its key set, so this order makes it sign with active keys.
 */
export async function listPublishedKeys(): Promise<StoredSigningKey[]> {
  const now = new Date();
  // Expired retired keys are no longer needed by anyone.
  await db.signingKey.deleteMany({ where: { retiredAt: { not: null }, expiresAt: { lt: now } } });
  const rows = await db.signingKey.findMany({
    where: { OR: [{ retiredAt: null }, { expiresAt: { gte: now } }] },
    orderBy: [{ createdAt: "desc" }, { kid: "asc" }],
  });
  return rows
    .map((r) => ({ ...r, alg: r.alg as SigningAlg, privateJwk: r.privateJwk as JWK, publicJwk: r.publicJwk as JWK }))
    .sort((a, b) => Number(a.retiredAt !== null) - Number(b.retiredAt !== null));
}

/** Private JWKs for oidc-provider's `jwks` configuration (generating the first keys if needed). */
export async function getProviderJwks(): Promise<{ keys: JWK[] }> {
  await ensureSigningKeys();
  return { keys: (await listPublishedKeys()).map((k) => k.privateJwk) };
}

/** Public JWKs only: what the verifier needs. Never returns private material. */
export async function getPublicJwks(): Promise<{ keys: JWK[] }> {
  const rows = await db.signingKey.findMany({
    where: { OR: [{ retiredAt: null }, { expiresAt: { gte: new Date() } }] },
    select: { publicJwk: true },
  });
  return { keys: rows.map((r) => r.publicJwk as JWK) };
}

/** A fingerprint of the published key set; the provider is rebuilt when it changes. */
export function keySetFingerprint(keys: { kid?: string }[]): string {
  return keys.map((k) => k.kid).join(",");
}
