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
 * The key that encrypts webhook signing secrets at rest (issue 25, lib/events/secret-box.ts):
 * WEBHOOK_SECRETS_KEY, or one generated and kept in the database (32 bytes, base64url).
 */
export async function getWebhookSecretsKey(): Promise<Buffer> {
  const value = env().WEBHOOK_SECRETS_KEY ?? (await getOrCreate("webhook_secrets_key"));
  return Buffer.from(value, "base64url").subarray(0, 32);
}
