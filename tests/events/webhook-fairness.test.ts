import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli";
import { startApi, type Api } from "../api/support";

/**
 * Fair delivery: slow receivers hold their own app's share of a process's delivery slots, never
 * the slots another app's deliveries need. Ten endpoints that answer only after 20 s (past the 10 s
 * deadline), five on each of two apps, hold up to 80 attempts at once (8 per endpoint) against the
 * process's 64 slots; a third app's deliveries still arrive within a bound, at once.
 */
const ENV = { WEBHOOKS_ALLOW_PRIVATE: "1", WEBHOOK_RETRY_SCHEDULE: "60" };
const BOUND_MS = 1_500;

let api: Api;
const servers: http.Server[] = [];

async function listen(handle: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void): Promise<string> {
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c));
    req.on("end", () => handle(req, res, body));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function chatApp(on: Api = api): Promise<string> {
  let clientId = "";
  await on.token({ scopes: ["svc:chat.read"], freshApp: true, onApp: (id) => (clientId = id) });
  return clientId;
}

async function addEndpoint(on: Api, clientId: string, url: string): Promise<void> {
  const run = await runCli(on.server.databaseUrl, ["apps", "webhooks", "add", clientId, "--url", url, "--event", "chat.message.created", "--json"], { env: ENV });
  expect(run.code, run.stderr).toBe(0);
}

/** A function writing a chat event with `text`, copied from one real post's stored record (the fan-out reads the Event table). */
async function chatEvents(on: Api): Promise<(text: string) => Promise<number>> {
  const author = await on.createUser();
  const writer = await on.token({ user: author.handle, scopes: ["svc:chat.write"] });
  const first = `model ${author.handle}`;
  expect((await on.call("/global-chat/messages", { method: "POST", token: writer, body: { text: first } })).status).toBe(201);
  const [model] = await on.sql<{ id: string }>(`SELECT id FROM "Event" WHERE type = 'chat.message.created' AND data->>'text' = $1`, [first]);
  return async (text) => {
    await on.sql(
      `INSERT INTO "Event" (id, type, "userId", data) SELECT platform_public_id('evt'), type, "userId", jsonb_set(data, '{text}', to_jsonb($2::text)) FROM "Event" WHERE id = $1`,
      [model!.id, text],
    );
    return Date.now();
  };
}

/** Event text → when the fast receiver got it. */
async function fastReceiver(): Promise<{ url: string; arrived: Map<string, number> }> {
  const arrived = new Map<string, number>();
  const url = await listen((_req, res, body) => {
    const text = (JSON.parse(body) as { data: { text?: string } }).data.text;
    if (text) arrived.set(text, Date.now());
    res.writeHead(204).end();
  });
  return { url, arrived };
}

/** The p99 of the time from each event's write to its arrival (Infinity: never arrived within 15 s). */
async function p99Of(sentAt: Map<string, number>, arrived: Map<string, number>): Promise<{ p99: number; latencies: number[] }> {
  const deadline = Date.now() + 15_000;
  while ([...sentAt.keys()].some((t) => !arrived.has(t)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const latencies = [...sentAt].map(([text, at]) => (arrived.get(text) ?? Infinity) - at).sort((a, b) => a - b);
  return { p99: latencies[Math.ceil(latencies.length * 0.99) - 1]!, latencies };
}

beforeAll(async () => {
  api = await startApi({ env: ENV });
});
afterAll(async () => {
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  await api?.stop();
});

describe("webhook delivery across apps", () => {
  it("ten hanging endpoints of two apps do not delay a third app's deliveries", { timeout: 90_000 }, async () => {
    let slowHits = 0;
    const slow = await listen((_req, res) => {
      slowHits += 1;
      setTimeout(() => res.writeHead(204).end(), 20_000).unref();
    });
    const { url: fast, arrived } = await fastReceiver();
    for (let n = 0; n < 2; n += 1) {
      const clientId = await chatApp();
      for (let i = 0; i < 5; i += 1) await addEndpoint(api, clientId, `${slow}/app${n}/hook${i}`);
    }
    await addEndpoint(api, await chatApp(), `${fast}/hook`);
    const post = await chatEvents(api);

    // A burst: 200 attempts for the hanging endpoints, more than the process's 64 slots.
    const sentAt = new Map<string, number>();
    for (let i = 1; i <= 20; i += 1) sentAt.set(`fair ${i}`, await post(`fair ${i}`));
    // Then events one by one while they hang.
    for (let i = 21; i <= 60; i += 1) {
      sentAt.set(`fair ${i}`, await post(`fair ${i}`));
      await new Promise((r) => setTimeout(r, 50));
    }
    const { p99, latencies } = await p99Of(sentAt, arrived);
    // The hanging receivers did get their share meanwhile: they were busy, not starved.
    expect(slowHits).toBeGreaterThanOrEqual(16);
    expect(p99, `latencies ${latencies.join(", ")}`).toBeLessThan(BOUND_MS);
  });

  it("an app whose attempts pile up holds its share of a process's attempts, and the fan-out goes on for the others", { timeout: 120_000 }, async () => {
    // 4 slots: a process holds at most 256 attempts, an app 32 of them and 1 slot.
    const small = await startApi({ env: { ...ENV, EVENT_WORKER_CONCURRENCY: "4" } });
    try {
      const slow = await listen((_req, res) => void setTimeout(() => res.writeHead(204).end(), 20_000).unref());
      const { url: fast, arrived } = await fastReceiver();
      const slowApp = await chatApp(small);
      for (let i = 0; i < 5; i += 1) await addEndpoint(small, slowApp, `${slow}/pile${i}`);
      await addEndpoint(small, await chatApp(small), `${fast}/hook`);
      const post = await chatEvents(small);
      // 600 attempts for the slow app, far more than the 256 the process may hold.
      const sentAt = new Map<string, number>();
      for (let i = 1; i <= 120; i += 1) {
        const at = await post(`pile ${i}`);
        if (i > 60) sentAt.set(`pile ${i}`, at);
      }
      for (let i = 121; i <= 150; i += 1) {
        sentAt.set(`pile ${i}`, await post(`pile ${i}`));
        await new Promise((r) => setTimeout(r, 50));
      }
      const { p99, latencies } = await p99Of(sentAt, arrived);
      expect(p99, `latencies ${latencies.join(", ")}`).toBeLessThan(BOUND_MS);
      // What the process did not hold waits in the table, free for any process to take.
      const [waiting] = await small.sql<{ n: number }>(
        `SELECT count(*)::int AS n FROM "WebhookDelivery" WHERE "clientId" = $1 AND state = 'pending' AND "lockedUntil" IS NULL`,
        [slowApp],
      );
      expect(waiting!.n).toBeGreaterThan(400);
    } finally {
      for (const server of servers) server.closeAllConnections();
      await small.stop();
    }
  });
});
