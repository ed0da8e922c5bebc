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

async function chatApp(): Promise<string> {
  let clientId = "";
  await api.token({ scopes: ["svc:chat.read"], freshApp: true, onApp: (id) => (clientId = id) });
  return clientId;
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
    /** Event text → when the fast receiver got it. */
    const arrived = new Map<string, number>();
    const fast = await listen((_req, res, body) => {
      const text = (JSON.parse(body) as { data: { text?: string } }).data.text;
      if (text) arrived.set(text, Date.now());
      res.writeHead(204).end();
    });

    for (let n = 0; n < 2; n += 1) {
      const clientId = await chatApp();
      for (let i = 0; i < 5; i += 1) {
        const run = await runCli(api.server.databaseUrl, ["apps", "webhooks", "add", clientId, "--url", `${slow}/app${n}/hook${i}`, "--event", "chat.message.created", "--json"], { env: ENV });
        expect(run.code, run.stderr).toBe(0);
      }
    }
    const fastApp = await chatApp();
    const added = await runCli(api.server.databaseUrl, ["apps", "webhooks", "add", fastApp, "--url", `${fast}/hook`, "--event", "chat.message.created", "--json"], { env: ENV });
    expect(added.code, added.stderr).toBe(0);

    // One real chat event, whose stored record the others copy (the fan-out reads the Event table).
    const author = await api.createUser();
    const writer = await api.token({ user: author.handle, scopes: ["svc:chat.write"] });
    expect((await api.call("/global-chat/messages", { method: "POST", token: writer, body: { text: "fair 0" } })).status).toBe(201);
    const [model] = await api.sql<{ id: string }>(`SELECT id FROM "Event" WHERE type = 'chat.message.created' AND data->>'text' = 'fair 0'`);
    const post = async (text: string) => {
      await api.sql(
        `INSERT INTO "Event" (id, type, "userId", data) SELECT platform_public_id('evt'), type, "userId", jsonb_set(data, '{text}', to_jsonb($2::text)) FROM "Event" WHERE id = $1`,
        [model!.id, text],
      );
      return Date.now();
    };

    // A burst: 200 attempts for the hanging endpoints, more than the process's 64 slots.
    const sentAt = new Map<string, number>();
    for (let i = 1; i <= 20; i += 1) sentAt.set(`fair ${i}`, await post(`fair ${i}`));
    // Then events one by one while they hang.
    for (let i = 21; i <= 60; i += 1) {
      sentAt.set(`fair ${i}`, await post(`fair ${i}`));
      await new Promise((r) => setTimeout(r, 50));
    }
    const deadline = Date.now() + 15_000;
    while ([...sentAt.keys()].some((t) => !arrived.has(t)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));

    const latencies = [...sentAt].map(([text, at]) => (arrived.get(text) ?? Infinity) - at).sort((a, b) => a - b);
    const p99 = latencies[Math.ceil(latencies.length * 0.99) - 1]!;
    // The hanging receivers did get their share meanwhile: they were busy, not starved.
    expect(slowHits).toBeGreaterThanOrEqual(16);
    expect(p99, `latencies ${latencies.join(", ")}`).toBeLessThan(BOUND_MS);
  });
});
