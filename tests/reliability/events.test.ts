import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli";
import { createTestApp, createTestUser, signInAndGetTokens } from "../helpers/oidc";
import { newDatabase, startServer, type TestServer } from "../helpers/server";

/**
 * "never lost": a server killed between an event's commit and its delivery loses nothing
 * (another process takes the attempt once the dead one's lease on it runs out, and delivers it), and two
 * processes on one database deliver each event exactly as often as one does.
 */
const ENV = { WEBHOOKS_ALLOW_PRIVATE: "1", WEBHOOK_RETRY_SCHEDULE: "0.5,0.5,0.5", EVENT_WORKER_STALE_SECONDS: "3", LOG_LEVEL: "warn" };
const REDIRECT = "http://localhost:9/callback";
const PASSWORD = "events-reliability-password";

interface Hit {
  id: string;
  body: string;
  headers: Record<string, string>;
}

const servers: TestServer[] = [];
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const s of servers) if (s.process.exitCode === null && s.process.signalCode === null) await s.stop().catch(() => {});
  await Promise.all(closers.map((c) => c()));
});

/** A receiver; `hold` makes it keep the first request open without answering (a slow receiver). */
async function receiver(options: { holdFirst?: boolean } = {}) {
  const hits: Hit[] = [];
  let held = false;
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c));
    req.on("end", () => {
      hits.push({ id: String(req.headers["webhook-id"]), body, headers: req.headers as Record<string, string> });
      if (options.holdFirst && !held) {
        held = true;
        return; // never answered: the delivery is in flight when its server dies
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  closers.push(() => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, hits };
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function setup(databaseUrl: string, server: TestServer, url: string, posters: number) {
  const reader = await createTestApp(databaseUrl, { type: "api", scopes: ["svc:chat.read"] });
  const run = await runCli(databaseUrl, ["apps", "webhooks", "add", reader.clientId, "--url", url, "--event", "chat.message.created", "--json"], { env: ENV });
  expect(run.code, run.stderr).toBe(0);
  const { secret } = JSON.parse(run.stdout) as { secret: string };
  const app = await createTestApp(databaseUrl, { type: "login", scopes: ["svc:chat.write"], redirectUris: [REDIRECT] });
  const tokens: string[] = [];
  for (let i = 0; i < posters; i++) {
    const handle = `ev_${Date.now().toString(36)}_${i}`;
    await createTestUser(databaseUrl, { handle, password: PASSWORD });
    tokens.push((await signInAndGetTokens(server, { handle, password: PASSWORD, clientId: app.clientId, redirectUri: REDIRECT })).access_token);
  }
  return { secret, tokens, reader };
}

async function post(server: TestServer, token: string, text: string): Promise<string> {
  const res = await fetch(`${server.apiUrl}/global-chat/messages`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ text }),
  });
  const body = await res.text();
  expect(res.status, body).toBe(201);
  return (JSON.parse(body) as { data: { id: string } }).data.id;
}

describe("events survive a killed server", () => {
  it("delivers an event whose delivery was in flight when its server was killed, after another process takes over", async () => {
    const databaseUrl = await newDatabase();
    const first = await startServer({ databaseUrl, env: ENV });
    servers.push(first);
    const hook = await receiver({ holdFirst: true });
    const { secret, tokens } = await setup(databaseUrl, first, hook.url, 1);
    await post(first, tokens[0]!, "in flight when the server dies");
    const held = await until("the first attempt", () => hook.hits[0]);
    first.process.kill("SIGKILL");
    await new Promise((r) => first.process.once("exit", r));

    const second = await startServer({ databaseUrl, env: ENV });
    servers.push(second);
    const again = await until("the delivery after the restart", () => hook.hits[1], 60_000);
    expect(again.id).toBe(held.id);
    expect(() => new Webhook(secret).verify(again.body, again.headers)).not.toThrow();
    expect(JSON.parse(again.body).data.text).toBe("in flight when the server dies");
    expect(second.logs.some((l) => l.includes("attempts of a stopped process taken over"))).toBe(true);
    await second.stop();
  }, 120_000);
});

describe("a server killed while deliveries flow", () => {
  it("every acknowledged post's event reaches a live receiver, with its own webhook-id, after another process takes over", async () => {
    const databaseUrl = await newDatabase();
    const first = await startServer({ databaseUrl, env: ENV });
    servers.push(first);
    // A live receiver that takes 30 ms per answer: attempts are in flight and queued when the server dies.
    const hits: Hit[] = [];
    const slow = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c));
      req.on("end", () => {
        hits.push({ id: String(req.headers["webhook-id"]), body, headers: req.headers as Record<string, string> });
        setTimeout(() => res.writeHead(204).end(), 30);
      });
    });
    await new Promise<void>((r) => slow.listen(0, "127.0.0.1", r));
    closers.push(() => new Promise((r) => { slow.closeAllConnections(); slow.close(() => r()); }));
    const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/hooks`;
    const { secret, tokens } = await setup(databaseUrl, first, url, 60);
    // Posts keep coming while the server is killed: those it acknowledged must all arrive.
    const acknowledged: string[] = [];
    const posting = (async () => {
      for (const [i, token] of tokens.entries()) {
        const res = await fetch(`${first.apiUrl}/global-chat/messages`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ text: `flowing ${i}` }),
        }).catch(() => null);
        if (res?.status === 201) acknowledged.push((JSON.parse(await res.text()) as { data: { id: string } }).data.id);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    await until("deliveries flowing", () => (hits.length >= 10 ? true : undefined));
    first.process.kill("SIGKILL");
    await new Promise((r) => first.process.once("exit", r));
    await posting;
    expect(acknowledged.length).toBeGreaterThanOrEqual(10);

    const second = await startServer({ databaseUrl, env: ENV });
    servers.push(second);
    const messageOf = (hit: Hit) => String((JSON.parse(hit.body) as { data: { id: string } }).data.id);
    await until("every acknowledged post delivered", () => (acknowledged.every((id) => hits.some((h) => messageOf(h) === id)) ? true : undefined), 60_000);
    // At least once, with one webhook-id per event: a delivery cut short by the kill may arrive twice.
    const idsByMessage = new Map<string, Set<string>>();
    for (const hit of hits) idsByMessage.set(messageOf(hit), (idsByMessage.get(messageOf(hit)) ?? new Set()).add(hit.id));
    expect([...idsByMessage.values()].every((ids) => ids.size === 1)).toBe(true);
    for (const hit of hits.slice(-5)) expect(() => new Webhook(secret).verify(hit.body, hit.headers)).not.toThrow();
    await second.stop();
  }, 180_000);
});

describe("two processes", () => {
  it("deliver each event exactly once, wherever it was written, and stream it from either", async () => {
    const databaseUrl = await newDatabase();
    const a = await startServer({ databaseUrl, env: ENV });
    // One deployment: the same public URL (tokens name it as their audience), two processes.
    const b = await startServer({ databaseUrl, env: { ...ENV, APP_URL: a.url } });
    servers.push(a, b);
    const hook = await receiver();
    const { tokens, reader } = await setup(databaseUrl, a, hook.url, 10);
    // A stream on each process, for the reader app.
    const { access_token } = await fetch(`${a.issuer}/protocol/openid-connect/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "client_credentials", client_id: reader.clientId, client_secret: reader.clientSecret!, scope: "svc:chat.read" }),
    }).then((r) => r.json() as Promise<{ access_token: string }>);
    const streamed = [new Set<string>(), new Set<string>()];
    const aborts = [a, b].map((server, i) => {
      const controller = new AbortController();
      void fetch(`${server.apiUrl}/events?types=chat.message.created`, { headers: { authorization: `Bearer ${access_token}` }, signal: controller.signal })
        .then(async (res) => {
          const decoder = new TextDecoder();
          const reader = res.body!.getReader();
          for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
            for (const m of decoder.decode(chunk.value).matchAll(/^id: (evt_\w+)$/gm)) streamed[i]!.add(m[1]!);
          }
        })
        .catch(() => {});
      return controller;
    });
    await new Promise((r) => setTimeout(r, 500));
    const ids: string[] = [];
    for (let i = 0; i < tokens.length; i++) ids.push(await post(i % 2 ? b : a, tokens[i]!, `two processes ${i}`));
    await until("every delivery", () => (hook.hits.length >= ids.length ? true : undefined));
    await until("both streams", () => (streamed.every((s) => s.size >= ids.length) ? true : undefined));
    await new Promise((r) => setTimeout(r, 1500));
    for (const c of aborts) c.abort();
    const byEvent = new Map<string, number>();
    for (const h of hook.hits) byEvent.set(h.id, (byEvent.get(h.id) ?? 0) + 1);
    expect(byEvent.size).toBe(ids.length);
    expect([...byEvent.values()].every((n) => n === 1)).toBe(true);
    expect(streamed.map((s) => [...s].sort())).toEqual([[...byEvent.keys()].sort(), [...byEvent.keys()].sort()]);
    await a.stop();
    await b.stop();
  }, 120_000);
});
