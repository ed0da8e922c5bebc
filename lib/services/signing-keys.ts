import type { JWK } from "jose";
import type { PoolClient } from "pg";
import { pgTransactionWithChanges } from "../database/changes";
import { db } from "../database/client";
import { insertSigningKey, listActiveSigningKeyAlgs, lockSigningKeys, retireActiveSigningKeys } from "../queries/signing-keys";

/**
 * Storage of the token signing keys (the SigningKey table), for lib/oidc/keys.ts, which decides
 * which keys exist, generates them and rotates them. Every process of a deployment reads the same
 * rows, so all of them sign and verify with the same keys (PRODUCT.md: keys live in PostgreSQL).
 * The key change's transaction (connection, lock, NOTIFY, commit) is here; its statements are in
 * lib/queries/signing-keys.ts.
 */
export interface StoredSigningKey {
  kid: string;
  alg: string;
  privateJwk: JWK;
  publicJwk: JWK;
  createdAt: Date;
  retiredAt: Date | null;
  expiresAt: Date | null;
}

export type NewSigningKey = Pick<StoredSigningKey, "kid" | "alg" | "privateJwk" | "publicJwk">;

/** What a key change may do while it holds the key lock (one transaction). */
export interface SigningKeyWriter {
  /** Algorithms of the active (not retired) keys. */
  activeAlgs(): Promise<string[]>;
  insert(key: NewSigningKey): Promise<void>;
  /** Retires every active key, published until `expiresAt`; returns their kids. */
  retireActive(now: Date, expiresAt: Date): Promise<string[]>;
}

function writer(client: PoolClient): SigningKeyWriter {
  return {
    activeAlgs: () => listActiveSigningKeyAlgs(client),
    insert: (key) => insertSigningKey(client, key, new Date()),
    retireActive: (now, expiresAt) => retireActiveSigningKeys(client, now, expiresAt),
  };
}

/**
 * Runs `fn` in one transaction holding an advisory lock, so two processes starting (or rotating)
 * at once do not both generate keys. The key change is announced on the change channel, so every
 * process signs with the new keys at once (SIGNING_KEY_POLL_SECONDS only bounds a missed message).
 */
export async function withSigningKeyLock<T>(fn: (keys: SigningKeyWriter) => Promise<T>): Promise<T> {
  return pgTransactionWithChanges(async (client, announce) => {
    await lockSigningKeys(client);
    const result = await fn(writer(client));
    await announce({ kind: "keys" });
    return result;
  });
}

/** Algorithms of the active keys, without the lock (the common case: nothing to generate). */
export async function findActiveKeyAlgs(): Promise<string[]> {
  const rows = await db.signingKey.findMany({ where: { retiredAt: null }, select: { alg: true } });
  return rows.map((r) => r.alg);
}

const published = (now: Date) => ({ OR: [{ retiredAt: null }, { expiresAt: { gte: now } }] });

/** Every key still published (active, or retired but not yet expired); expired ones are deleted. */
export async function listPublishedSigningKeys(now = new Date()): Promise<StoredSigningKey[]> {
  await db.signingKey.deleteMany({ where: { retiredAt: { not: null }, expiresAt: { lt: now } } });
  const rows = await db.signingKey.findMany({ where: published(now), orderBy: [{ createdAt: "desc" }, { kid: "asc" }] });
  return rows.map((r) => ({ ...r, privateJwk: r.privateJwk as JWK, publicJwk: r.publicJwk as JWK }));
}

/** The public halves of the published keys only: never private material. */
export async function listPublicSigningJwks(now = new Date()): Promise<JWK[]> {
  const rows = await db.signingKey.findMany({ where: published(now), select: { publicJwk: true } });
  return rows.map((r) => r.publicJwk as JWK);
}
