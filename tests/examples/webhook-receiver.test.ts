import { afterAll, beforeAll, expect, it } from "vitest";
import { deliverWebhook } from "../../lib/events/deliver-http";
import { generateWebhookSecret, webhookHeaders } from "../../lib/events/signing";
import { startExample, type RunningExample } from "../helpers/example";

/**
 * examples/webhook-receiver, run as its README says (`npm start`: tsx, the SDK from the workspace),
 * receiving what the platform sends: requests signed by lib/events/signing.ts, one of them through
 * the platform's own delivery code (lib/events/deliver-http.ts). A valid event is answered 204 and
 * handled once, a repeat of it is answered 204 and not handled again, a bad signature or a replayed
 * timestamp is answered 400.
 */
const oldSecret = generateWebhookSecret();
const secret = generateWebhookSecret();
let receiver: RunningExample;
let url: string;

beforeAll(async () => {
  // During a rotation, as its README says: both secrets.
  receiver = startExample("webhook-receiver", "src/server.ts", { WEBHOOK_SECRET: `${oldSecret},${secret}`, PORT: "0" });
  const [, address] = await receiver.waitFor(/^webhook-receiver: listening on (\S+) with 2 secret\(s\)$/);
  url = address!;
});

afterAll(async () => {
  await receiver?.stop();
});

const now = () => Math.floor(Date.now() / 1000);

function eventBody(id: string, type: string, data: unknown): string {
  return JSON.stringify({ id, type, created_at: now(), data });
}

async function post(body: string, headers: Record<string, string>): Promise<Response> {
  return fetch(url, { method: "POST", body, headers });
}

/** The lines saying an event was handled: `webhook-receiver: <type> <id>`. */
const handledLines = (id: string) => receiver.lines.filter((line) => new RegExp(`^webhook-receiver: [a-z.]+ ${id}$`).test(line));

it("answers a valid event with 204, once handled; a repeat of the same webhook-id is 204 and not handled again", async () => {
  const body = eventBody("evt_recv_1", "ping", {});
  const headers = webhookHeaders("evt_recv_1", now(), body, [secret]);
  const first = await post(body, headers);
  expect(first.status).toBe(204);
  await receiver.waitFor(/^webhook-receiver: ping evt_recv_1$/, 5_000);

  // The platform retries with the same id (and a fresh timestamp and signature).
  const again = await post(body, webhookHeaders("evt_recv_1", now(), body, [secret]));
  expect(again.status).toBe(204);
  await receiver.waitFor(/^webhook-receiver: evt_recv_1 again/, 5_000);
  expect(handledLines("evt_recv_1")).toEqual(["webhook-receiver: ping evt_recv_1"]);
});

it("receives a delivery made by the platform's delivery code, signed with the old secret of a rotation", async () => {
  const body = eventBody("evt_recv_2", "chat.message.created", { id: "7", text: "hi", created_at: now(), author: { handle: "alice", display_name: "Alice" } });
  const result = await deliverWebhook({ url, body, headers: webhookHeaders("evt_recv_2", now(), body, [oldSecret]), allowPrivate: true });
  expect(result).toMatchObject({ ok: true, statusCode: 204, error: null });
  await receiver.waitFor(/^webhook-receiver: chat message 7 from @alice$/, 5_000);
  expect(receiver.lines).toContain("webhook-receiver: chat.message.created evt_recv_2");
});

it("answers 400 to a bad signature, a changed body and a replayed timestamp, and handles none of them", async () => {
  const body = eventBody("evt_recv_3", "ping", {});
  const forged = await post(body, webhookHeaders("evt_recv_3", now(), body, [generateWebhookSecret()]));
  expect(forged.status).toBe(400);
  expect(await forged.text()).toMatch(/No signature/);

  const headers = webhookHeaders("evt_recv_3", now(), body, [secret]);
  expect((await post(body.replace("ping", "pong"), headers)).status).toBe(400);
  expect((await post(body, webhookHeaders("evt_recv_3", now() - 3600, body, [secret]))).status).toBe(400);
  expect((await post(body, { "content-type": "application/json" })).status).toBe(400);
  expect(handledLines("evt_recv_3")).toEqual([]);

  // The genuine one still goes through afterwards: refusals did not mark the id as seen.
  expect((await post(body, headers)).status).toBe(204);
  await receiver.waitFor(/^webhook-receiver: ping evt_recv_3$/, 5_000);
});

it("answers 405 to anything but POST", async () => {
  const res = await fetch(url);
  expect(res.status).toBe(405);
  expect(res.headers.get("allow")).toBe("POST");
});
