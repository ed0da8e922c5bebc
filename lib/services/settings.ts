import { randomBytes } from "node:crypto";
import { db } from "../database/client";
import { env } from "../env";

/**
 * Secrets the platform needs but the operator may not give (PRODUCT.md: generated and stored in the
 * database when not given, never printed). Stored once; every process of a deployment shares them.
 */
export const SETTING_KEYS = ["cookie_secret", "nextauth_secret", "webhook_secrets_key"] as const;
export type SettingKey = (typeof SETTING_KEYS)[number];

const cache = new Map<string, string>();

async function getOrCreate(key: SettingKey): Promise<string> {
  const hit = cache.get(key);
  if (hit) return hit;
  const candidate = randomBytes(32).toString("base64url");
  // Insert-if-absent, then read: two processes starting at once agree on one value. Not `upsert`:
  // with an empty update Prisma does SELECT then INSERT, and the slower process fails on the key.
  await db.setting.createMany({ data: [{ key, value: candidate }], skipDuplicates: true });
  const row = await db.setting.findUniqueOrThrow({ where: { key } });
  cache.set(key, row.value);
  return row.value;
}

export async function ensureSettings(): Promise<void> {
  await Promise.all(SETTING_KEYS.map(getOrCreate));
}

/** Cookie signing keys: COOKIE_SECRETS (comma-separated, newest first) or a generated one. */
export async function getCookieKeys(): Promise<string[]> {
  const given = env().COOKIE_SECRETS;
  if (given) return given.split(",").map((s) => s.trim()).filter(Boolean);
  return [await getOrCreate("cookie_secret")];
}

export async function getNextAuthSecret(): Promise<string> {
  return env().NEXTAUTH_SECRET ?? (await getOrCreate("nextauth_secret"));
}

/**
 * The keys of sealed secrets (lib/events/secret-box.ts). `sealing` is the newest of SEALING_KEYS,
 * or null while it is unset: then new values are sealed under `legacy`, without a key id, as before
 * keyrings. `legacy` is WEBHOOK_SECRETS_KEY, or the key generated and kept in the database (32
 * bytes, base64url) when it is unset: it opens every value sealed without a key id.
 */
export interface SealingKeyring {
  sealing: { id: string; key: Buffer } | null;
  keys: ReadonlyMap<string, Buffer>;
  legacy: Buffer;
}

let keyring: { source: unknown; value: Promise<SealingKeyring> } | undefined;

export function getSealingKeyring(): Promise<SealingKeyring> {
  const config = env();
  // Rebuilt when the environment is re-read (resetEnv gives a new object): tests change the keys.
  if (keyring?.source !== config) {
    const listed = (config.SEALING_KEYS ?? []).map(({ id, key }) => ({ id, key: Buffer.from(key, "base64url") }));
    const value = (async (): Promise<SealingKeyring> => {
      const legacy = Buffer.from(config.WEBHOOK_SECRETS_KEY ?? (await getOrCreate("webhook_secrets_key")), "base64url").subarray(0, 32);
      return { sealing: listed[0] ?? null, keys: new Map(listed.map(({ id, key }) => [id, key])), legacy };
    })();
    keyring = { source: config, value };
    value.catch(() => {
      if (keyring?.value === value) keyring = undefined;
    });
  }
  return keyring.value;
}
