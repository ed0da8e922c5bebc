import { Webhook } from "standardwebhooks";
import { describe, expect, expectTypeOf, it } from "vitest";
import { verifyWebhook, WebhookVerificationError, type WebhookEvent } from "@social-dev-platform/sdk";
import { generateWebhookSecret, webhookHeaders } from "../../lib/events/signing";

/**
 * The SDK's verifyWebhook (sdk/src/webhooks.ts, WebCrypto) accepts exactly what the platform signs
 * (lib/events/signing.ts) and what the reference library signs, and refuses a changed body, id or
 * timestamp, a wrong secret and a stale timestamp, each with a WebhookVerificationError.
 */
const now = () => Math.floor(Date.now() / 1000);
const event = { id: "evt_01", type: "chat.message.created", created_at: 1_764_000_000, data: { id: "42", text: "grüße 👋", author: { handle: "alice" } } };
const body = JSON.stringify(event);

async function refusal(promise: Promise<unknown>): Promise<WebhookVerificationError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WebhookVerificationError);
  return error as WebhookVerificationError;
}

describe("verifyWebhook", () => {
  it("verifies what the platform signs and returns the event, typed by its type", async () => {
    const secret = generateWebhookSecret();
    const headers = webhookHeaders(event.id, now(), body, [secret]);
    const verified = await verifyWebhook(body, headers, secret);
    expect(verified).toEqual(event);
    expectTypeOf(verified).toEqualTypeOf<WebhookEvent>();
    if (verified.type === "chat.message.created") expectTypeOf(verified.data.text).toEqualTypeOf<string>();
    // The raw bytes, a Headers object and Node's header arrays work alike.
    expect(await verifyWebhook(new TextEncoder().encode(body), new Headers(headers), [secret])).toEqual(event);
    expect(await verifyWebhook(body, { ...headers, "Webhook-Signature": [headers["webhook-signature"]!], "webhook-signature": undefined }, secret)).toEqual(event);
  });

  it("verifies what the standardwebhooks reference library signs", async () => {
    const secret = generateWebhookSecret();
    const ts = now();
    const signature = new Webhook(secret).sign(event.id, new Date(ts * 1000), body);
    expect(await verifyWebhook(body, { "webhook-id": event.id, "webhook-timestamp": String(ts), "webhook-signature": signature }, secret)).toEqual(event);
  });

  it("during a rotation, any signature matching any secret verifies", async () => {
    const old = generateWebhookSecret();
    const next = generateWebhookSecret();
    const headers = webhookHeaders(event.id, now(), body, [old, next]);
    expect(await verifyWebhook(body, headers, old)).toEqual(event);
    expect(await verifyWebhook(body, headers, next)).toEqual(event);
    expect(await verifyWebhook(body, webhookHeaders(event.id, now(), body, [next]), [old, next])).toEqual(event);
    await refusal(verifyWebhook(body, headers, generateWebhookSecret()));
  });

  it("refuses a changed body, id or timestamp, and a missing signature", async () => {
    const secret = generateWebhookSecret();
    const ts = now();
    const headers = webhookHeaders(event.id, ts, body, [secret]);
    const changed = await refusal(verifyWebhook(body.replace("alice", "mallory"), headers, secret));
    expect(changed.message).toMatch(/No signature .* matches/);
    await refusal(verifyWebhook(body, { ...headers, "webhook-id": "evt_02" }, secret));
    await refusal(verifyWebhook(body, { ...headers, "webhook-timestamp": String(ts + 1) }, secret));
    await refusal(verifyWebhook(body, { ...headers, "webhook-signature": headers["webhook-signature"]!.replace("v1,", "v2,") }, secret));
    await refusal(verifyWebhook(body, { ...headers, "webhook-signature": "v1,not-base64!" }, secret));
    const missing = await refusal(verifyWebhook(body, { "webhook-id": event.id }, secret));
    expect(missing.message).toMatch(/Missing webhook-id/);
  });

  it("refuses a timestamp outside the tolerance (a replay), either way", async () => {
    const secret = generateWebhookSecret();
    const ts = now();
    const old = webhookHeaders(event.id, ts - 301, body, [secret]);
    const stale = await refusal(verifyWebhook(body, old, secret));
    expect(stale.message).toMatch(/more than 300 s/);
    await refusal(verifyWebhook(body, webhookHeaders(event.id, ts + 301, body, [secret]), secret));
    // Inside the tolerance, and with a wider one or a given "now", it verifies.
    expect(await verifyWebhook(body, webhookHeaders(event.id, ts - 299, body, [secret]), secret)).toEqual(event);
    expect(await verifyWebhook(body, old, secret, { toleranceSeconds: 600 })).toEqual(event);
    expect(await verifyWebhook(body, old, secret, { now: ts - 301 })).toEqual(event);
    await refusal(verifyWebhook(body, webhookHeaders(event.id, ts - 11, body, [secret]), secret, { toleranceSeconds: 10 }));
  });

  it("refuses a signed body that is not an event", async () => {
    const secret = generateWebhookSecret();
    for (const text of ["not json", JSON.stringify({ id: "evt_1", type: "ping" }), "null"]) {
      await refusal(verifyWebhook(text, webhookHeaders("evt_1", now(), text, [secret]), secret));
    }
  });
});
