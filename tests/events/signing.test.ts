import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { generateWebhookSecret, signatureHeader, webhookHeaders } from "../../lib/events/signing";

/**
 * lib/events/signing.ts against the reference implementation: what we sign, the `standardwebhooks`
 * package (the spec's own JavaScript library) verifies, with one secret and during a rotation with
 * two; a changed body, timestamp or id does not verify.
 */
const now = () => Math.floor(Date.now() / 1000);
const body = JSON.stringify({ id: "evt_1", type: "ping", created_at: 1_764_000_000, data: {} });

describe("webhook signing", () => {
  it("generates whsec_ secrets carrying 32 random bytes", () => {
    const a = generateWebhookSecret();
    const b = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), "base64")).toHaveLength(32);
    expect(a).not.toBe(b);
  });

  it("signs so that standardwebhooks verifies, and sends the spec's headers", () => {
    const secret = generateWebhookSecret();
    const ts = now();
    const headers = webhookHeaders("evt_1", ts, body, [secret]);
    expect(headers).toEqual({
      "content-type": "application/json",
      "webhook-id": "evt_1",
      "webhook-timestamp": String(ts),
      "webhook-signature": expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
      "user-agent": "SocialDevPlatform-Webhooks/1",
    });
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    // The reference implementation's own signature is the same string.
    expect(new Webhook(secret).sign("evt_1", new Date(ts * 1000), body)).toBe(headers["webhook-signature"]);
  });

  it("signs with both secrets during a rotation: a receiver holding either verifies", () => {
    const old = generateWebhookSecret();
    const next = generateWebhookSecret();
    const ts = now();
    const headers = webhookHeaders("evt_2", ts, body, [old, next]);
    expect(headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(new Webhook(old).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(next).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow(WebhookVerificationError);
  });

  it("does not verify a tampered body, timestamp or id", () => {
    const secret = generateWebhookSecret();
    const ts = now();
    const headers = webhookHeaders("evt_3", ts, body, [secret]);
    const hook = new Webhook(secret);
    expect(() => hook.verify(body.replace("ping", "pong"), headers)).toThrow(WebhookVerificationError);
    expect(() => hook.verify(body, { ...headers, "webhook-timestamp": String(ts - 1) })).toThrow(WebhookVerificationError);
    expect(() => hook.verify(body, { ...headers, "webhook-id": "evt_4" })).toThrow(WebhookVerificationError);
  });

  it("signs a non-ASCII body as UTF-8 bytes", () => {
    const secret = generateWebhookSecret();
    const text = JSON.stringify({ id: "evt_5", type: "chat.message.created", created_at: 1, data: { text: "grüße 👋" } });
    const headers = webhookHeaders("evt_5", now(), text, [secret]);
    expect(new Webhook(secret).verify(Buffer.from(text, "utf8"), headers)).toEqual(JSON.parse(text));
  });

  it("refuses to sign without a secret or with a malformed one", () => {
    expect(() => signatureHeader("evt_6", now(), body, [])).toThrow();
    expect(() => signatureHeader("evt_6", now(), body, ["not-a-secret"])).toThrow();
    expect(() => signatureHeader("evt_6", 1.5, body, [generateWebhookSecret()])).toThrow();
  });
});
