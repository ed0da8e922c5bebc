import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli";
import { parsePrometheusText, sampleValue } from "../helpers/prometheus";
import { startApi, type Api } from "../api/support";

/**
 * The backlog is visible before developers feel it: /metrics (platform_webhook_backlog_events,
 * platform_webhook_backlog_oldest_seconds) and the app's delivery log (`apps webhooks backlog`, the
 * portal's Delivery log) say how many events wait and how long the oldest has waited, and go back
 * to nothing once the receiver catches up.
 */
const TOKEN = "metrics-token-for-the-backlog-test-0123456789";
const ENV = { WEBHOOKS_ALLOW_PRIVATE: "1", METRICS_TOKEN: TOKEN };
const EVENTS = 30;

let api: Api;
let server: http.Server | undefined;

beforeAll(async () => {
  api = await startApi({ env: ENV });
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  await api?.stop();
});

async function scrape(): Promise<{ events: number; oldest: number }> {
  const response = await fetch(`${api.server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(response.status).toBe(200);
  const exposition = parsePrometheusText(await response.text());
  return {
    events: sampleValue(exposition, "platform_webhook_backlog_events") ?? NaN,
    oldest: sampleValue(exposition, "platform_webhook_backlog_oldest_seconds") ?? NaN,
  };
}

async function backlog(clientId: string): Promise<{ waiting: number; events: number; oldest_waiting_seconds: number | null; retries_scheduled: number }> {
  const run = await runCli(api.server.databaseUrl, ["apps", "webhooks", "backlog", clientId, "--json"], { env: ENV });
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
}

async function until(what: string, done: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("the webhook backlog", () => {
  it("shows the events waiting and the oldest's wait in /metrics and the delivery log, and nothing once delivered", async () => {
    // A receiver that holds its answers while `holding`: attempts pile up, in flight and queued.
    let holding = false;
    const held: http.ServerResponse[] = [];
    const received = new Set<string>();
    server = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        received.add(String(req.headers["webhook-id"]));
        if (holding) held.push(res);
        else res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    let clientId = "";
    await api.token({ scopes: ["svc:chat.read"], freshApp: true, onApp: (id) => (clientId = id) });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    const added = await runCli(api.server.databaseUrl, ["apps", "webhooks", "add", clientId, "--url", url, "--event", "chat.message.created", "--json"], { env: ENV });
    expect(added.code, added.stderr).toBe(0);

    const author = await api.createUser();
    const writer = await api.token({ user: author.handle, scopes: ["svc:chat.write"] });
    const model = `backlog model ${author.handle}`;
    expect((await api.call("/global-chat/messages", { method: "POST", token: writer, body: { text: model } })).status).toBe(201);
    await until("the model's delivery", () => received.size === 1);
    await until("nothing waiting", async () => (await scrape()).events === 0);
    expect(await backlog(clientId)).toEqual({ waiting: 0, events: 0, oldest_waiting_seconds: null, retries_scheduled: 0 });

    holding = true;
    await api.sql(
      `INSERT INTO "Event" (id, type, data)
       SELECT platform_public_id('evt'), e.type, jsonb_set(e.data, '{text}', to_jsonb('backlog ' || n)) FROM "Event" e, generate_series(1, $2::int) n
       WHERE e.type = 'chat.message.created' AND e.data->>'text' = $1`,
      [model, EVENTS],
    );
    await until("the first attempts in flight", () => held.length > 0);
    await new Promise((r) => setTimeout(r, 2_100));
    const metrics = await scrape();
    expect(metrics.events).toBe(EVENTS);
    expect(metrics.oldest).toBeGreaterThanOrEqual(2);
    const waiting = await backlog(clientId);
    expect(waiting).toMatchObject({ waiting: EVENTS, events: EVENTS, retries_scheduled: 0 });
    expect(waiting.oldest_waiting_seconds).toBeGreaterThanOrEqual(2);

    holding = false;
    for (const res of held.splice(0)) res.writeHead(204).end();
    await until("every delivery", () => received.size === EVENTS + 1);
    await until("the backlog gone from /metrics", async () => {
      const now = await scrape();
      return now.events === 0 && now.oldest === 0;
    });
    expect(await backlog(clientId)).toEqual({ waiting: 0, events: 0, oldest_waiting_seconds: null, retries_scheduled: 0 });
  }, 60_000);
});
