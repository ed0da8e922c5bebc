import { createHmac, createSecretKey, randomBytes, type KeyObject } from "node:crypto";

/**
 * Webhook signing after the Standard Webhooks specification
 * (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md),
 * so a receiver verifies with the `standardwebhooks` package, any of the spec's libraries, the
 * SDK's verifyWebhook or ten lines of its own: the signature is
 * base64(HMAC-SHA256(key, `${id}.${timestamp}.${body}`)), the key the base64-decoded part after
 * `whsec_`.
 */
const SECRET_PREFIX = "whsec_";

/** A new signing secret: `whsec_` + base64 of 32 random bytes (shown once, stored only encrypted or hashed by the caller). */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString("base64");
}

function secretKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error("a webhook secret starts with whsec_");
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), "base64");
  if (key.length === 0) throw new Error("a webhook secret carries a base64 key after whsec_");
  return key;
}

/** Signs deliveries with one endpoint's current secrets. */
export type WebhookSigner = (id: string, timestampSeconds: number, body: string | Buffer) => Record<string, string>;

/**
 * A signer for `secrets`, their keys decoded once: the delivery loop keeps one per endpoint and
 * secret set, rather than decoding each secret at every attempt. The body may be given as its UTF-8
 * bytes (the bytes sent), which sign exactly as the string does.
 */
export function webhookSigner(secrets: readonly string[]): WebhookSigner {
  if (secrets.length === 0) throw new Error("at least one webhook secret signs a delivery");
  // KeyObjects, not Buffers: Node 24's createHmac tells a Buffer from a KeyObject by catching an
  // exception (node:internal/crypto/keys isKeyObject), ~8 µs a call against ~1.6 µs with a KeyObject.
  const keys: KeyObject[] = secrets.map((secret) => createSecretKey(secretKey(secret)));
  return (id, timestampSeconds, body) => {
    if (!Number.isSafeInteger(timestampSeconds)) throw new Error("webhook-timestamp is whole Unix seconds");
    const prefix = `${id}.${timestampSeconds}.`;
    let signature = "";
    for (const key of keys) {
      const hmac = createHmac("sha256", key).update(prefix, "utf8");
      const digest = (typeof body === "string" ? hmac.update(body, "utf8") : hmac.update(body)).digest("base64");
      signature += `${signature ? " " : ""}v1,${digest}`;
    }
    return {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(timestampSeconds),
      "webhook-signature": signature,
      "user-agent": "SocialDevPlatform-Webhooks/1",
    };
  };
}

/**
 * The `webhook-signature` header: `v1,<sig>` for each secret, space-separated. During a rotation
 * the old and the new secret both sign (for 24 h), so receivers holding either verify.
 */
export function signatureHeader(id: string, timestampSeconds: number, body: string, secrets: readonly string[]): string {
  return webhookSigner(secrets)(id, timestampSeconds, body)["webhook-signature"]!;
}

/** Every header a delivery carries (Standard Webhooks names plus our user agent). */
export function webhookHeaders(id: string, timestampSeconds: number, body: string, secrets: readonly string[]): Record<string, string> {
  return webhookSigner(secrets)(id, timestampSeconds, body);
}
