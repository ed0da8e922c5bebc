import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from "jose";
import { env } from "../env";
import { logger } from "../logger";
import {
  findActiveKeyAlgs,
  listPublicSigningJwks,
  listPublishedSigningKeys,
  withSigningKeyLock,
  type SigningKeyWriter,
  type StoredSigningKey as StoredRow,
} from "../services/signing-keys";

/**
 * Token signing keys, stored in the SigningKey table (lib/services/signing-keys.ts) so every
 * process of a deployment signs with the same keys (PRODUCT.md: keys live in PostgreSQL). Two
 * active keys: ES256 for access tokens (small, fast to verify) and RS256 because ID tokens default
 * to RS256 for every client.
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

export interface StoredSigningKey extends StoredRow {
  alg: SigningAlg;
}

async function generateKey(alg: SigningAlg): Promise<{ kid: string; privateJwk: JWK; publicJwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true, ...(alg === "RS256" ? { modulusLength: 2048 } : {}) });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const meta = { kid, alg, use: "sig" };
  return { kid, privateJwk: { ...(await exportJWK(privateKey)), ...meta }, publicJwk: { ...publicJwk, ...meta } };
}

function retirementExpiry(now: Date): Date {
  const longest = Math.max(env().ACCESS_TOKEN_TTL, ID_TOKEN_TTL);
  return new Date(now.getTime() + (longest + RETIREMENT_MARGIN_SECONDS) * 1000);
}

async function insertKey(keys: SigningKeyWriter, alg: SigningAlg): Promise<void> {
  const key = await generateKey(alg);
  await keys.insert({ ...key, alg });
  logger.info("signing key generated", { kid: key.kid, alg });
}

/** Generates the active keys that are missing (first start). Idempotent and safe across processes. */
export async function ensureSigningKeys(): Promise<void> {
  const complete = (algs: string[]) => SIGNING_ALGS.every((alg) => algs.includes(alg));
  if (complete(await findActiveKeyAlgs())) return;
  await withSigningKeyLock(async (keys) => {
    const active = await keys.activeAlgs();
    for (const alg of SIGNING_ALGS) {
      if (!active.includes(alg)) await insertKey(keys, alg);
    }
  });
}

/**
 * Retires every active key and generates new ones. Retired public keys stay published (and valid
 * for verification) until their `expiresAt`, after which they are deleted.
 */
export async function rotateSigningKeys(): Promise<{ retired: string[] }> {
  return withSigningKeyLock(async (keys) => {
    const now = new Date();
    const retired = await keys.retireActive(now, retirementExpiry(now));
    for (const alg of SIGNING_ALGS) await insertKey(keys, alg);
    logger.info("signing keys rotated", { retired });
    return { retired };
  });
}

/**
 * Every key still published: active keys first (newest first), then retired ones. oidc-provider
 * signs with the first matching key of its key set, so this order makes it sign with active keys.
 */
export async function listPublishedKeys(): Promise<StoredSigningKey[]> {
  return (await listPublishedSigningKeys())
    .map((r) => ({ ...r, alg: r.alg as SigningAlg }))
    .sort((a, b) => Number(a.retiredAt !== null) - Number(b.retiredAt !== null));
}

/** Private JWKs for oidc-provider's `jwks` configuration (generating the first keys if needed). */
export async function getProviderJwks(): Promise<{ keys: JWK[] }> {
  await ensureSigningKeys();
  return { keys: (await listPublishedKeys()).map((k) => k.privateJwk) };
}

/** Public JWKs only: what the verifier needs. Never returns private material. */
export async function getPublicJwks(): Promise<{ keys: JWK[] }> {
  return { keys: await listPublicSigningJwks() };
}

/** A fingerprint of the published key set; the provider is rebuilt when it changes. */
export function keySetFingerprint(keys: { kid?: string }[]): string {
  return keys.map((k) => k.kid).join(",");
}
