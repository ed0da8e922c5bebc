import type { webhooks } from "./generated/openapi.js";

/**
 * Verifying the platform's webhooks (Standard Webhooks, https://www.standardwebhooks.com): the
 * `webhook-signature` header carries `v1,<base64 HMAC-SHA256>` over `${webhook-id}.${webhook-timestamp}.${body}`,
 * keyed with the base64 part of the endpoint's `whsec_…` secret; during a secret rotation it carries
 * one signature per secret. WebCrypto only (`globalThis.crypto.subtle`), so it runs in Node.js 20+,
 * browsers, Deno, Bun and edge runtimes alike.
 */

/** The body of each event type, as the OpenAPI document's `webhooks` section publishes it. */
type EventBodies = { [Type in keyof webhooks]: webhooks[Type]["post"]["requestBody"]["content"]["application/json"] };

/**
 * Every event the platform sends, by webhook and on the event stream: generated with the rest of the
 * SDK's types from the OpenAPI document, whose `webhooks` section is the platform's event catalog.
 * Switch on `type` and `data` is typed; keep a `default` branch: types added to the catalog later
 * reach receivers before they update the SDK.
 */
export type WebhookEvent = EventBodies[keyof webhooks];

/** Who consented to or revoked the app, and with which scopes. */
export type AuthorizationEventData = EventBodies["app.authorization.granted" | "app.authorization.revoked"]["data"];

/** An app's review decision: `reason` on a rejection or suspension, `change` when a pending change of the app was decided. */
export type AppStatusEventData = EventBodies["app.status.changed"]["data"];

export type WebhookEventType = WebhookEvent["type"];

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from now, either way, in seconds (default 300: replays are refused). */
  toleranceSeconds?: number;
  /** "Now" in Unix seconds (default the clock). */
  now?: number;
}

/** The request is not a genuine, fresh webhook from the platform: answer it with 400 and do not act on it. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

const DEFAULT_TOLERANCE_SECONDS = 300;
const encoder = new TextEncoder();

function readHeader(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    return Array.isArray(value) ? value.join(" ") : value;
  }
  return undefined;
}

function decodeBase64(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return null;
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Compares in time that depends only on the lengths, never on where the bytes differ. */
function equalConstantTime(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i += 1) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

async function hmacKey(secret: string): Promise<CryptoKey> {
  const key = decodeBase64(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret);
  if (!key || key.length === 0) throw new TypeError("verifyWebhook: a webhook secret is `whsec_` followed by base64 (copy it as the portal or CLI showed it)");
  return globalThis.crypto.subtle.importKey("raw", new Uint8Array(key), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

/**
 * Verifies a webhook request and returns its event. Pass the raw body exactly as received (before
 * any JSON parsing: one changed byte fails the signature), the request's headers (a `Headers`, or
 * Node's `req.headers`) and the endpoint's secret — or, while rotating, both the old and the new
 * one: any `v1` signature matching any secret verifies.
 *
 * @throws {WebhookVerificationError} when a header is missing, the timestamp is outside the
 *   tolerance, no signature matches, or the body is not an event.
 */
export async function verifyWebhook(
  body: string | Uint8Array,
  headers: HeaderBag,
  secrets: string | string[],
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const id = readHeader(headers, "webhook-id");
  const timestamp = readHeader(headers, "webhook-timestamp");
  const signatures = readHeader(headers, "webhook-signature");
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError("Missing webhook-id, webhook-timestamp or webhook-signature header: not a webhook request.");
  }
  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError("webhook-timestamp is not a Unix time in seconds.");
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(now - Number(timestamp)) > tolerance) {
    throw new WebhookVerificationError(
      `webhook-timestamp is more than ${tolerance} s away from now: a replayed or delayed request, or a clock that is off.`,
    );
  }

  const secretList = typeof secrets === "string" ? [secrets] : secrets;
  if (secretList.length === 0) throw new TypeError("verifyWebhook: pass the endpoint's webhook secret");
  const bodyBytes = typeof body === "string" ? encoder.encode(body) : body;
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + bodyBytes.length);
  signed.set(prefix, 0);
  signed.set(bodyBytes, prefix.length);

  const candidates = signatures
    .split(" ")
    .filter((part) => part.startsWith("v1,"))
    .map((part) => decodeBase64(part.slice(3)))
    .filter((bytes): bytes is Uint8Array => bytes !== null);
  let matched = false;
  for (const secret of secretList) {
    const expected = new Uint8Array(await globalThis.crypto.subtle.sign("HMAC", await hmacKey(secret), signed));
    // Every candidate is compared (no early exit), so timing tells nothing about which one matched.
    for (const candidate of candidates) matched = equalConstantTime(expected, candidate) || matched;
  }
  if (!matched) throw new WebhookVerificationError("No signature in webhook-signature matches the secret: the body, id or timestamp was changed, or the secret is not this endpoint's.");

  let event: unknown;
  try {
    event = JSON.parse(typeof body === "string" ? body : new TextDecoder().decode(body));
  } catch {
    throw new WebhookVerificationError("The signed body is not JSON.");
  }
  const e = event as Partial<Record<keyof WebhookEvent, unknown>> | null;
  if (!e || typeof e !== "object" || typeof e.id !== "string" || typeof e.type !== "string" || typeof e.created_at !== "number" || !("data" in e)) {
    throw new WebhookVerificationError("The signed body is not an event ({ id, type, created_at, data }).");
  }
  return event as WebhookEvent;
}
