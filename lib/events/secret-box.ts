import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { getSealingKeyring, type SealingKeyring } from "../services/settings";

/**
 * Secrets the platform must read back, sealed at rest: webhook signing secrets (HMAC signing needs
 * the secret itself) and TOTP secrets. AES-256-GCM under a key of the sealing keyring
 * (lib/services/settings.ts getSealingKeyring), never in plain text.
 *
 * Formats (base64url parts):
 * - `v2.<key id>.<iv>.<tag>.<ciphertext>`: sealed under that key of SEALING_KEYS. The key id is
 *   authenticated with the ciphertext (GCM's additional data), so a box cannot be relabelled.
 * - `v1.<iv>.<tag>.<ciphertext>`: sealed under the legacy key (WEBHOOK_SECRETS_KEY or the generated
 *   one), as every value was before SEALING_KEYS, and as new values still are while it is unset.
 *
 * A value is opened with the key its id names, whichever of the listed keys that is, so a new key
 * can seal while old values stay readable until `platform secrets reseal` moves them over.
 */
export async function sealSecret(secret: string): Promise<string> {
  const { sealing, legacy } = await getSealingKeyring();
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealing?.key ?? legacy, iv);
  const head = sealing ? ["v2", sealing.id] : ["v1"];
  if (sealing) cipher.setAAD(Buffer.from(head.join(".")));
  const body = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return [...head, ...[iv, cipher.getAuthTag(), body].map((p) => p.toString("base64url"))].join(".");
}

/** The id of the key that sealed `box`: null for the legacy key (a `v1` box). */
export function sealedWith(box: string): string | null {
  return box.startsWith("v2.") ? (box.split(".")[1] ?? "") : null;
}

/** Whether `box` is sealed under the key that seals now (nothing to re-seal). */
export function isSealedUnderCurrentKey(box: string, keyring: SealingKeyring): boolean {
  return sealedWith(box) === (keyring.sealing?.id ?? null);
}

export async function openSecret(box: string): Promise<string> {
  const parts = box.split(".");
  const keyring = await getSealingKeyring();
  let key: Buffer | undefined;
  let aad: string | null = null;
  if (parts[0] === "v2" && parts.length === 5) {
    key = keyring.keys.get(parts[1]!);
    // Said without the secret: the operator learns which key to list again.
    if (!key) throw new Error(`sealed secret under key id "${parts[1]}", which SEALING_KEYS does not list`);
    aad = `v2.${parts[1]}`;
    parts.splice(0, 2);
  } else if (parts[0] === "v1" && parts.length === 4) {
    key = keyring.legacy;
    parts.splice(0, 1);
  } else {
    throw new Error("unreadable sealed secret");
  }
  const [iv, tag, body] = parts as [string, string, string];
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
  if (aad !== null) decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
}
