import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli";
import { withClient } from "../helpers/db";
import { newDatabase } from "../helpers/server";
import { startApi, type Api } from "../api/support";

/**
 * Issue 25 through real HTTP: events written with what they report, fanned out by the job queue,
 * signed (Standard Webhooks, verified by the `standardwebhooks` package), retried, logged.
 * Receivers are real local servers (WEBHOOKS_ALLOW_PRIVATE=1 lets them be on 127.0.0.1).
 */
interface Received {
  headers: Record<string, string>;
  body: string;
}

interface Receiver {
  url: string;
  received: Received[];
  /** Status codes to answer with, in order; 204 once they run out. */
  answers: number[];
  /** Never answer (a receiver that hangs). */
  hang: boolean;
  /** Answer only once this settles (a slow receiver, released by the test). */
  hold: Promise<void> | null;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const answers: number[] = [];
  const receiver = { hang: false, hold: null } as Receiver;
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c));
    req.on("end", () => {
      received.push({ headers: req.headers as Record<string, string>, body });
      if (receiver.hang) return;
      const answer = () => {
        res.writeHead(answers.shift() ?? 204);
        res.end();
      };
      if (receiver.hold) void receiver.hold.then(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    answers,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  });
}

const RETRY = "0.3,0.3,0.3";
const ENV = { WEBHOOKS_ALLOW_PRIVATE: "1", WEBHOOK_RETRY_SCHEDULE: RETRY };

let api: Api;
const receivers: Receiver[] = [];

async function cli<T>(args: string[], env: Record<string, string | undefined> = ENV): Promise<T> {
  const run = await runCli(api.server.databaseUrl, [...args, "--json"], { env });
  if (run.code !== 0) throw new Error(`platform ${args.join(" ")} exited ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const parsed = (r: Received) => JSON.parse(r.body) as { id: string; type: string; created_at: number; data: Record<string, unknown> };

beforeAll(async () => {
  api = await startApi({ env: ENV });
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await api?.stop();
});

async function appWithWebhook(scopes: string[], events: string[] = [], user?: string) {
  let clientId = "";
  const token = await api.token({ scopes, user, freshApp: true, onApp: (id) => (clientId = id) });
  const receiver = await startReceiver();
  receivers.push(receiver);
  const added = await cli<{ id: string; url: string; events: string[]; status: string; secret: string }>([
    "apps", "webhooks", "add", clientId, "--url", receiver.url, ...events.flatMap((e) => ["--event", e]),
  ]);
  return { clientId, token, receiver, webhook: added };
}

describe("webhooks", () => {
  it("delivers chat.message.created once, signed so standardwebhooks verifies it, with data exactly as GET returns", async () => {
    const { receiver, webhook } = await appWithWebhook(["svc:chat.read"], ["chat.message.created"]);
    expect(webhook.secret).toMatch(/^whsec_/);
    expect(webhook.status).toBe("enabled");
    const author = await api.createUser();
    const writer = await api.token({ user: author.handle, scopes: ["svc:chat.write", "svc:chat.read"] });
    const posted = await api.call("/global-chat/messages", { method: "POST", token: writer, body: { text: "hello hooks" } });
    expect(posted.status).toBe(201);
    const hit = await until("the delivery", () => receiver.received.find((r) => parsed(r).data.text === "hello hooks"));
    const event = new Webhook(webhook.secret).verify(hit.body, hit.headers) as { id: string; type: string; data: { id: string } };
    expect(event.type).toBe("chat.message.created");
    expect(event.id).toMatch(/^evt_[a-z2-7]{24}$/);
    expect(hit.headers["webhook-id"]).toBe(event.id);
    const page = await api.call("/global-chat/messages?limit=5", { token: await api.token({ scopes: ["svc:chat.read"] }) });
    const listed = page.body.data.messages.find((m: { id: string }) => m.id === event.data.id);
    expect(parsed(hit).data).toEqual(listed);
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.received.filter((r) => parsed(r).id === event.id)).toHaveLength(1);
  });

  it("retries a receiver answering 500 twice: the same event id three times, three attempts in the log", async () => {
    const { clientId, receiver, webhook } = await appWithWebhook(["svc:chat.read"]);
    receiver.answers.push(500, 500);
    const sent = await cli<{ event_id: string; delivery_id: string }>(["apps", "webhooks", "test", clientId, webhook.id]);
    await until("three attempts", () => (receiver.received.length >= 3 ? true : undefined));
    expect(receiver.received.map((r) => r.headers["webhook-id"])).toEqual([sent.event_id, sent.event_id, sent.event_id]);
    expect(parsed(receiver.received[0]!).type).toBe("ping");
    const log = await until("the third attempt logged", async () => {
      const rows = await cli<{ attempt: number; status_code: number; ok: boolean; event_id: string; next_attempt_at: number | null }[]>([
        "apps", "webhooks", "deliveries", clientId,
      ]);
      return rows.some((r) => r.attempt === 3 && r.ok) ? rows : undefined;
    });
    expect(log.map((r) => [r.attempt, r.status_code, r.ok])).toEqual([[3, 204, true], [2, 500, false], [1, 500, false]]);
    expect(log[2]!.next_attempt_at).not.toBeNull();
    const failed = await cli<{ id: string }[]>(["apps", "webhooks", "deliveries", clientId, "--status", "failed"]);
    expect(failed).toHaveLength(2);
    // Redelivery sends the same event again, as a new attempt.
    const again = await cli<{ delivery_id: string }>(["apps", "webhooks", "redeliver", clientId, failed[0]!.id]);
    expect(again.delivery_id).toMatch(/^dlv_/);
    await until("the redelivery", () => (receiver.received.length >= 4 ? true : undefined));
    expect(receiver.received[3]!.headers["webhook-id"]).toBe(sent.event_id);
  });

  it("writes no event for a chat post that is refused, and none reaches the receiver", async () => {
    const { receiver } = await appWithWebhook(["svc:chat.read"], ["chat.message.created"]);
    const muted = await api.createUser({ muted: true });
    const token = await api.token({ user: muted.handle, scopes: ["svc:chat.write"] });
    const [before] = await api.sql<{ n: number }>(`SELECT count(*)::int AS n FROM "Event" WHERE type = 'chat.message.created'`);
    const refused = await api.call("/global-chat/messages", { method: "POST", token, body: { text: "muted words" } });
    expect(refused.status).toBe(403);
    const [after] = await api.sql<{ n: number }>(`SELECT count(*)::int AS n FROM "Event" WHERE type = 'chat.message.created'`);
    expect(after!.n).toBe(before!.n);
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.received.filter((r) => parsed(r).data.text === "muted words")).toEqual([]);
  });

  it("sends notification.created only to apps the person authorized to read notifications, and nothing after they revoke", async () => {
    const person = await api.createUser();
    const reader = await appWithWebhook(["svc:notifications.read"], [], person.handle);
    const other = await appWithWebhook(["svc:chat.read"], [], person.handle);
    // The consent came before the endpoint existed: its event is recorded, and was sent to no one.
    const granted = await api.sql<{ data: unknown }>(`SELECT data FROM "Event" WHERE type = 'app.authorization.granted' AND "clientId" = $1`, [reader.clientId]);
    expect(granted.map((g) => g.data)).toEqual([{ user: person.handle, scopes: ["openid", "svc:notifications.read"] }]);
    const poker = await api.createUser();
    const pokes = await api.token({ user: poker.handle, scopes: ["svc:pokes.write"] });
    expect((await api.call(`/users/${person.handle}/poke`, { method: "POST", token: pokes })).status).toBe(200);
    const note = await until("notification.created", () => reader.receiver.received.find((r) => parsed(r).type === "notification.created"));
    const notifications = await api.call("/me/notifications?limit=1", { token: await api.token({ user: person.handle, scopes: ["svc:notifications.read"] }) });
    expect(parsed(note).data).toEqual({ ...notifications.body.data.notifications[0], user: person.handle });
    expect(other.receiver.received.filter((r) => parsed(r).type === "notification.created")).toEqual([]);

    await cli(["users", "revoke-app", person.handle, reader.clientId]);
    const revoked = await until("app.authorization.revoked", () => reader.receiver.received.find((r) => parsed(r).type === "app.authorization.revoked"));
    expect(parsed(revoked).data).toEqual({ user: person.handle, scopes: ["openid", "svc:notifications.read"] });
    const second = await api.createUser();
    const pokes2 = await api.token({ user: second.handle, scopes: ["svc:pokes.write"] });
    expect((await api.call(`/users/${person.handle}/poke`, { method: "POST", token: pokes2 })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 800));
    expect(reader.receiver.received.filter((r) => parsed(r).type === "notification.created")).toHaveLength(1);
  });

  it("asks again before each attempt: once the person revoked the app, their notification is not retried, and its redelivery is refused", async () => {
    const person = await api.createUser();
    const { clientId, receiver } = await appWithWebhook(["svc:notifications.read"], ["notification.created"], person.handle);
    let release = () => {};
    receiver.hold = new Promise<void>((resolve) => (release = resolve));
    receiver.answers.push(500);
    const poker = await api.createUser();
    const pokes = await api.token({ user: poker.handle, scopes: ["svc:pokes.write"] });
    expect((await api.call(`/users/${person.handle}/poke`, { method: "POST", token: pokes })).status).toBe(200);
    await until("the first attempt, held by the receiver", () => receiver.received.find((r) => parsed(r).type === "notification.created"));
    // The person revokes the app while the first attempt is in flight; it then fails (500).
    await cli(["users", "revoke-app", person.handle, clientId]);
    receiver.hold = null;
    release();
    type Row = { id: string; attempt: number; status_code: number | null; error: string | null; next_attempt_at: number | null };
    const log = await until("the retry dropped", async () => {
      const rows = await cli<Row[]>(["apps", "webhooks", "deliveries", clientId]);
      return rows.some((r) => r.attempt === 2 && r.error !== null) ? rows : undefined;
    });
    // The log says why: the retry was not sent, and none follows it.
    expect(log.map((r) => [r.attempt, r.status_code, r.error])).toEqual([[2, null, "consent_revoked"], [1, 500, null]]);
    expect(log[0]!.next_attempt_at).toBeNull();
    await new Promise((r) => setTimeout(r, 800));
    expect(receiver.received.filter((r) => parsed(r).type === "notification.created")).toHaveLength(1);

    const redelivered = await runCli(api.server.databaseUrl, ["apps", "webhooks", "redeliver", clientId, log[1]!.id, "--json"], { env: ENV });
    expect(redelivered.code).toBe(1);
    const error = JSON.parse(redelivered.stderr || redelivered.stdout).error as { code: string; message: string };
    expect(error.code).toBe("conflict");
    expect(error.message).toMatch(/no longer authorizes the app/);
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.received.filter((r) => parsed(r).type === "notification.created")).toHaveLength(1);
    expect(await cli<Row[]>(["apps", "webhooks", "deliveries", clientId])).toHaveLength(2);
  });

  it("tells the app about its review decisions (app.status.changed)", async () => {
    const { clientId, receiver } = await appWithWebhook(["svc:chat.read"], ["app.status.changed"]);
    await cli(["apps", "suspend", clientId, "--reason", "Spam reports"]);
    const hit = await until("app.status.changed", () => receiver.received.find((r) => parsed(r).type === "app.status.changed"));
    expect(parsed(hit).data).toEqual({ status: "suspended", reason: "Spam reports" });
  });

  it("keeps delivering to others while one receiver hangs", async () => {
    const slow = await appWithWebhook(["svc:chat.read"], ["chat.message.created"]);
    slow.receiver.hang = true;
    const fast = await appWithWebhook(["svc:chat.read"], ["chat.message.created"]);
    const texts: string[] = [];
    for (let i = 0; i < 10; i++) {
      const author = await api.createUser();
      const token = await api.token({ user: author.handle, scopes: ["svc:chat.write"] });
      texts.push(`while one hangs ${i}`);
      expect((await api.call("/global-chat/messages", { method: "POST", token, body: { text: texts[i] } })).status).toBe(201);
    }
    const started = Date.now();
    await until("every message at the fast receiver", () =>
      texts.every((t) => fast.receiver.received.some((r) => parsed(r).data.text === t)) ? true : undefined,
    );
    // The hanging receiver holds its own slots (10 s each; 8 per endpoint, the docs say), never the others'.
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(slow.receiver.received.length).toBeLessThanOrEqual(8);
  });

  it("disables an endpoint that answers 410 Gone and tells the owner; signs with both secrets for a day after a rotation", async () => {
    const { clientId, receiver, webhook } = await appWithWebhook(["svc:chat.read"]);
    const rotated = await cli<{ id: string; secret: string }>(["apps", "webhooks", "rotate-secret", clientId, webhook.id]);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(webhook.secret);
    await cli(["apps", "webhooks", "test", clientId, webhook.id]);
    const signed = await until("the ping", () => receiver.received[0]);
    expect(signed.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    for (const secret of [webhook.secret, rotated.secret]) expect(() => new Webhook(secret).verify(signed.body, signed.headers)).not.toThrow();

    receiver.answers.push(410);
    await cli(["apps", "webhooks", "test", clientId, webhook.id]);
    const list = await until("the endpoint disabled", async () => {
      const rows = await cli<{ status: string }[]>(["apps", "webhooks", "list", clientId]);
      return rows[0]!.status === "disabled" ? rows : undefined;
    });
    expect(list).toHaveLength(1);
    const [notice] = await api.sql<{ message: string }>(
      `SELECT n.message FROM "Notification" n JOIN "Application" a ON a."ownerId" = n."userId" WHERE a."clientId" = $1 AND n.message LIKE '%webhook endpoint%' ORDER BY n.id DESC LIMIT 1`,
      [clientId],
    );
    expect(notice!.message).toContain("410 Gone");
    expect(receiver.received).toHaveLength(2);
    const refused = await runCli(api.server.databaseUrl, ["apps", "webhooks", "test", clientId, webhook.id, "--json"], { env: ENV });
    expect(refused.code).toBe(1);
  });

  it("disables an endpoint failing for 3 days at its next failure, and tells the owner", async () => {
    const { clientId, receiver, webhook } = await appWithWebhook(["svc:chat.read"]);
    await api.sql(`UPDATE "WebhookEndpoint" SET "failingSince" = timezone('UTC', now()) - interval '3 days 1 hour' WHERE id = $1`, [webhook.id]);
    receiver.answers.push(500);
    await cli(["apps", "webhooks", "test", clientId, webhook.id]);
    const [row] = await until("the endpoint disabled", async () => {
      const rows = await api.sql<{ enabled: boolean; disabledReason: string }>(`SELECT enabled, "disabledReason" FROM "WebhookEndpoint" WHERE id = $1`, [webhook.id]);
      return rows[0]!.enabled ? undefined : rows;
    });
    expect(row!.disabledReason).toBe("failing");
    const notices = await api.sql<{ message: string }>(
      `SELECT n.message FROM "Notification" n JOIN "Application" a ON a."ownerId" = n."userId" WHERE a."clientId" = $1 AND n.message LIKE '%failed for 3 days%'`,
      [clientId],
    );
    expect(notices).toHaveLength(1);
    // Enabling it again starts a fresh count.
    const enabled = await cli<{ status: string }>(["apps", "webhooks", "enable", clientId, webhook.id]);
    expect(enabled.status).toBe("enabled");
  });

  it("queues nothing for an event whose transaction rolls back", async () => {
    const { receiver } = await appWithWebhook(["svc:chat.read"], ["chat.message.created"]);
    await withClient(api.server.databaseUrl, async (client) => {
      await client.query("BEGIN");
      await client.query(
        `INSERT INTO "Event" (id, type, data) VALUES (platform_public_id('evt'), 'chat.message.created', '{"id":"1","text":"rolled back"}')`,
      );
      // Held open past a fan-out: an event of a transaction still running is not read yet…
      await new Promise((r) => setTimeout(r, 1500));
      await client.query("ROLLBACK");
    });
    await new Promise((r) => setTimeout(r, 1500));
    const [left] = await api.sql<{ n: number }>(`SELECT count(*)::int AS n FROM "Event" WHERE data->>'text' = 'rolled back'`);
    expect(left!.n).toBe(0); // …and gone with its transaction: nothing was queued or delivered
    const [queued] = await api.sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM "WebhookDelivery" d LEFT JOIN "Event" e ON e.seq = d."eventSeq" WHERE e.seq IS NULL`,
    );
    expect(queued!.n).toBe(0);
    expect(receiver.received.filter((r) => r.body.includes("rolled back"))).toEqual([]);
  });

  it("is not held back by a transaction left open in another database of the same PostgreSQL", async () => {
    const { receiver } = await appWithWebhook(["svc:chat.read"], ["chat.message.created"]);
    await withClient(await newDatabase({ seed: false }), async (elsewhere) => {
      await elsewhere.query("BEGIN");
      await elsewhere.query("SELECT pg_current_xact_id()");
      const author = await api.createUser();
      const writer = await api.token({ user: author.handle, scopes: ["svc:chat.write"] });
      const posted = await api.call("/global-chat/messages", { method: "POST", token: writer, body: { text: "while another database waits" } });
      expect(posted.status).toBe(201);
      await until("the delivery, with the other transaction still open", () => receiver.received.find((r) => parsed(r).data.text === "while another database waits"), 5_000);
      await elsewhere.query("ROLLBACK");
    });
  });

  it("refuses loopback, private and metadata URLs when WEBHOOKS_ALLOW_PRIVATE is off, and plain http", async () => {
    let clientId = "";
    await api.token({ scopes: ["svc:chat.read"], freshApp: true, onApp: (id) => (clientId = id) });
    for (const url of ["https://127.0.0.1/x", "https://10.1.2.3/x", "https://169.254.169.254/latest", "https://[::1]/x", "http://hooks.example/x"]) {
      const run = await runCli(api.server.databaseUrl, ["apps", "webhooks", "add", clientId, "--url", url, "--json"], { env: { WEBHOOKS_ALLOW_PRIVATE: "0" } });
      expect(run.code, url).toBe(1);
      expect(JSON.parse(run.stderr || run.stdout).error.code, url).toBe("invalid_request");
    }
    const list = await cli<unknown[]>(["apps", "webhooks", "list", clientId]);
    expect(list).toEqual([]);
  });
});
