import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { getWebhookSecretsKey } from "../services/settings";

/**
 * Webhook signing secrets at rest (issue 25): HMAC signing needs the secret itself, so it is kept
 * encrypted (AES-256-GCM under WEBHOOK_SECRETS_KEY or the generated key in the database), never
 * in plain text, and shown to the developer once. Format: `v1.<iv>.<tag>.<ciphertext>` (base64url).
 */
export async function sealSecret(secret: string): Promise<string> {
  const key = await getWebhookSecretsKey();
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const body = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return ["v1", iv, cipher.getAuthTag(), body].map((p) => (typeof p === "string" ? p : p.toString("base64url"))).join(".");
}

export async function openSecret(box: string): Promise<string> {
  const [version, iv, tag, body] = box.split(".");
  if (version !== "v1" || !iv || !tag || !body) throw new Error("unreadable webhook secret");
  const decipher = createDecipheriv("aes-256-gcm", await getWebhookSecretsKey(), Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
}
