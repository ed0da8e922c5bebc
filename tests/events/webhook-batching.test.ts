import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli";
import { parsePrometheusText, sampleValue } from "../helpers/prometheus";
import { startApi, type Api } from "../api/support";

/**
 * What one delivery costs the database is set by how the delivery loop batches (lib/events/worker.ts):
 * a fan-out writes the attempts of many events in one transaction, and delivered attempts are
 * recorded many to a statement. The loop counts its transactions by step
 * (platform_webhook_queue_transactions_total); a backlog of 300 events to two endpoints must take a
 * small fraction of a transaction per delivery. Counted, not timed: a loop that went back to one
 * transaction per delivery fails here however fast the machine.
 */
const TOKEN = "metrics-token-for-the-batching-test-0123456789";
const ENV = { WEBHOOKS_ALLOW_PRIVATE: "1", METRICS_TOKEN: TOKEN };
const EVENTS = 300;
const ENDPOINTS = 2;

let api: Api;
const servers: http.Server[] = [];

beforeAll(async () => {
  api = await startApi({ env: ENV });
});
afterAll(async () => {
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  await api?.stop();
});

/** A receiver answering 204 at once; the event ids it got, and how often. */
async function receiver(): Promise<{ url: string; got: Map<string, number> }> {
  const got = new Map<string, number>();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const id = String(req.headers["webhook-id"]);
      got.set(id, (got.get(id) ?? 0) + 1);
      res.writeHead(204).end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, got };
}

async function scrape(): Promise<{ transactions: Record<string, number>; delivered: number }> {
  const response = await fetch(`${api.server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(response.status).toBe(200);
  const exposition = parsePrometheusText(await response.text());
  const steps = ["fanout", "load", "claim", "record", "record_failure", "renew", "unlock"];
  const transactions = Object.fromEntries(steps.map((step) => [step, sampleValue(exposition, "platform_webhook_queue_transactions_total", { step }) ?? NaN]));
  return { transactions, delivered: sampleValue(exposition, "platform_webhook_deliveries_total", { result: "delivered" }) ?? NaN };
}

describe("webhook delivery batching", () => {
  it("delivers a backlog of 300 events to two endpoints in a small fraction of a transaction per delivery", async () => {
    let clientId = "";
    await api.token({ scopes: ["svc:chat.read"], freshApp: true, onApp: (id) => (clientId = id) });
    const receivers = await Promise.all(Array.from({ length: ENDPOINTS }, () => receiver()));
    for (const r of receivers) {
      const run = await runCli(api.server.databaseUrl, ["apps", "webhooks", "add", clientId, "--url", r.url, "--event", "chat.message.created", "--json"], { env: ENV });
      expect(run.code, run.stderr).toBe(0);
    }
    // One real post's stored event as the model; the backlog is copies of it, committed at once.
    const author = await api.createUser();
    const writer = await api.token({ user: author.handle, scopes: ["svc:chat.write"] });
    const model = `batching model ${author.handle}`;
    expect((await api.call("/global-chat/messages", { method: "POST", token: writer, body: { text: model } })).status).toBe(201);
    const until = async (what: string, done: () => boolean, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!done()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await until("the model's deliveries", () => receivers.every((r) => r.got.size === 1));
    // Recorded too (a flush after the receipt), so the counters below are the backlog's alone.
    await new Promise((r) => setTimeout(r, 300));
    const before = await scrape();

    await api.sql(
      `INSERT INTO "Event" (id, type, data)
       SELECT platform_public_id('evt'), e.type, jsonb_set(e.data, '{text}', to_jsonb('backlog ' || n)) FROM "Event" e, generate_series(1, $2::int) n
       WHERE e.type = 'chat.message.created' AND e.data->>'text' = $1`,
      [model, EVENTS],
    );
    await until("every delivery", () => receivers.every((r) => r.got.size === EVENTS + 1));
    let after = await scrape();
    const deadline = Date.now() + 10_000;
    while (after.delivered - before.delivered < EVENTS * ENDPOINTS && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      after = await scrape();
    }
    const delivered = after.delivered - before.delivered;
    expect(delivered).toBe(EVENTS * ENDPOINTS);
    for (const r of receivers) expect([...r.got.values()].every((n) => n === 1)).toBe(true);

    const used = Object.fromEntries(Object.entries(after.transactions).map(([step, n]) => [step, n - before.transactions[step]!]));
    const total = Object.values(used).reduce((a, b) => a + b, 0);
    // One transaction per delivery would be 600 recordings alone; batched, a handful.
    expect(used.record, JSON.stringify(used)).toBeLessThanOrEqual(delivered / 20);
    expect(used.record_failure).toBe(0);
    expect(total, JSON.stringify(used)).toBeLessThanOrEqual(delivered / 10);
  }, 60_000);
});
