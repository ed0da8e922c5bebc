import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENT_ID_PATTERN, EVENT_TYPES, TRIGGERABLE_EVENT_TYPES, eventEnvelopeSchema, type EventType } from "../../lib/schemas/events";
import { startApi, type Api } from "../api/support";
import { runCli } from "../helpers/cli";
import { createTestApp } from "../helpers/oidc";

/**
 * Through real HTTP: an event in a sandbox world reaches only that sandbox's
 * webhook endpoints (`--sandbox`, stored under its sbx_ client) and its sandbox tokens' streams; a
 * live event never reaches them; two sandboxes never hear each other. "Trigger event" writes a
 * signed event of any catalog type with data from the sandbox's world.
 */
interface Received {
  headers: Record<string, string>;
  body: string;
}

interface Receiver {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

interface EventBody {
  id: string;
  type: string;
  created_at: number;
  data: Record<string, unknown>;
}

const ENV = { WEBHOOKS_ALLOW_PRIVATE: "1", WEBHOOK_RETRY_SCHEDULE: "0.3,0.3,0.3" };
/** Each CLI run is a process of its own (seconds on a shared machine). */
const SLOW = 180_000;
const SCOPES = ["svc:chat.read", "svc:chat.write", "svc:notifications.read", "svc:pokes.write"];

let api: Api;
const receivers: Receiver[] = [];

async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c));
    req.on("end", () => {
      received.push({ headers: req.headers as Record<string, string>, body });
      res.writeHead(204);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const receiver = {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  receivers.push(receiver);
  return receiver;
}

async function cli<T>(args: string[]): Promise<T> {
  const run = await runCli(api.server.databaseUrl, [...args, "--json"], { env: ENV });
  if (run.code !== 0) throw new Error(`platform ${args.join(" ")} exited ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const parsed = (r: Received) => JSON.parse(r.body) as EventBody;
const texts = (receiver: Receiver) => receiver.received.map((r) => parsed(r).data.text);

/** Where fan-out sent an event: one statement writes every first attempt of it, so once one arrived, this is all. */
async function endpointsOf(eventId: string): Promise<string[]> {
  const rows = await api.sql<{ endpointId: string }>(`SELECT "endpointId" FROM "WebhookDelivery" WHERE "eventId" = $1 ORDER BY "endpointId"`, [eventId]);
  return rows.map((r) => r.endpointId);
}

interface SandboxApp {
  appClientId: string;
  sandboxClientId: string;
  worldId: number;
  /** A receiver behind a sandbox endpoint of the app, and its signing secret. */
  receiver: Receiver;
  webhook: { id: string; secret: string };
}

/** An approved API client with a sandbox endpoint; its world is built (a first sandbox call). */
async function sandboxApp(): Promise<SandboxApp> {
  const app = await createTestApp(api.server.databaseUrl, { type: "api", status: "approved", scopes: SCOPES });
  const receiver = await startReceiver();
  const [webhook, shown] = await Promise.all([
    cli<{ id: string; secret: string; status: string }>(["apps", "webhooks", "add", app.clientId, "--url", receiver.url, "--sandbox"]),
    cli<{ client_id: string }>(["apps", "sandbox", "show", app.clientId]),
  ]);
  expect(webhook.status).toBe("enabled");
  const [row] = await api.sql<{ id: number }>(`SELECT id FROM "Sandbox" WHERE "clientId" = $1`, [shown.client_id]);
  const token = await api.mintToken({ clientId: shown.client_id, scopes: ["svc:chat.read"] });
  expect((await api.call("/global-chat/messages", { token })).status).toBe(200);
  return { appClientId: app.clientId, sandboxClientId: shown.client_id, worldId: row!.id, receiver, webhook };
}

/** A user token of a generated person of the sandbox, to post in its chat. */
async function sandboxWriter(sandbox: SandboxApp): Promise<string> {
  const [person] = await api.sql<{ id: number }>(
    `SELECT id FROM "User" WHERE "worldId" = $1 AND NOT disabled AND NOT muted ORDER BY random() LIMIT 1`,
    [sandbox.worldId],
  );
  return api.mintToken({ clientId: sandbox.sandboxClientId, userId: person!.id, scopes: ["svc:chat.write", "svc:chat.read"] });
}

async function liveWriter(): Promise<string> {
  const author = await api.createUser();
  return api.token({ user: author.handle, scopes: ["svc:chat.write", "svc:chat.read"] });
}

async function post(token: string, text: string): Promise<string> {
  const res = await api.call("/global-chat/messages", { method: "POST", token, body: { text } });
  expect(res.status).toBe(201);
  return res.body.data.id as string;
}

async function eventOfMessage(messageId: string): Promise<{ id: string; worldId: number }> {
  return until(`the event of message ${messageId}`, async () => {
    const [row] = await api.sql<{ id: string; worldId: number }>(`SELECT id, "worldId" FROM "Event" WHERE data->>'id' = $1`, [messageId]);
    return row;
  });
}

beforeAll(async () => {
  api = await startApi({ env: ENV });
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await api?.stop();
});

describe("sandbox webhooks", () => {
  it("a sandbox chat post reaches the sandbox endpoint and not the app's live one; a live post reaches the live one and not the sandbox's", async () => {
    const sandbox = await sandboxApp();
    const live = await startReceiver();
    const liveHook = await cli<{ id: string }>(["apps", "webhooks", "add", sandbox.appClientId, "--url", live.url]);
    // Each set of endpoints is listed apart.
    const [liveList, sandboxList] = await Promise.all([
      cli<{ id: string }[]>(["apps", "webhooks", "list", sandbox.appClientId]),
      cli<{ id: string }[]>(["apps", "webhooks", "list", sandbox.appClientId, "--sandbox"]),
    ]);
    expect(liveList.map((w) => w.id)).toEqual([liveHook.id]);
    expect(sandboxList.map((w) => w.id)).toEqual([sandbox.webhook.id]);

    const sandboxPost = await post(await sandboxWriter(sandbox), "sandbox hello");
    const livePost = await post(await liveWriter(), "live hello");

    const hit = await until("the sandbox delivery", () => sandbox.receiver.received.find((r) => parsed(r).data.id === sandboxPost));
    const verified = new Webhook(sandbox.webhook.secret).verify(hit.body, hit.headers) as EventBody;
    expect(verified).toMatchObject({ type: "chat.message.created", data: { id: sandboxPost, text: "sandbox hello" } });
    await until("the live delivery", () => live.received.find((r) => parsed(r).data.id === livePost));

    const sandboxEvent = await eventOfMessage(sandboxPost);
    expect(sandboxEvent.worldId).toBe(sandbox.worldId);
    expect(await endpointsOf(sandboxEvent.id)).toEqual([sandbox.webhook.id]);
    const liveEvent = await eventOfMessage(livePost);
    expect(liveEvent.worldId).toBe(0);
    expect(await endpointsOf(liveEvent.id)).not.toContain(sandbox.webhook.id);
    expect(texts(live)).not.toContain("sandbox hello");
    expect(texts(sandbox.receiver)).not.toContain("live hello");

    // The sandbox's delivery log is its own.
    const log = await cli<{ event_id: string }[]>(["apps", "webhooks", "deliveries", sandbox.appClientId, "--sandbox"]);
    expect(log.map((d) => d.event_id)).toContain(sandboxEvent.id);
    expect(log.map((d) => d.event_id)).not.toContain(liveEvent.id);
  }, SLOW);

  it("two sandboxes do not hear each other's events", async () => {
    const [a, b] = await Promise.all([sandboxApp(), sandboxApp()]);
    const inA = await post(await sandboxWriter(a), "only in A");
    const inB = await post(await sandboxWriter(b), "only in B");
    await until("A's delivery", () => a.receiver.received.find((r) => parsed(r).data.id === inA));
    await until("B's delivery", () => b.receiver.received.find((r) => parsed(r).data.id === inB));
    expect(await endpointsOf((await eventOfMessage(inA)).id)).toEqual([a.webhook.id]);
    expect(await endpointsOf((await eventOfMessage(inB)).id)).toEqual([b.webhook.id]);
    expect(texts(a.receiver)).not.toContain("only in B");
    expect(texts(b.receiver)).not.toContain("only in A");
  }, SLOW);
});

interface Stream {
  status: number;
  frames: EventBody[];
  close(): void;
}

async function openStream(token: string): Promise<Stream> {
  const controller = new AbortController();
  const response = await fetch(api.url("/events"), { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
  const stream: Stream = { status: response.status, frames: [], close: () => controller.abort() };
  if (response.status !== 200) return stream;
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const data = buffer
            .slice(0, end)
            .split("\n")
            .find((l) => l.startsWith("data: "));
          buffer = buffer.slice(end + 2);
          if (data) stream.frames.push(JSON.parse(data.slice(6)) as EventBody);
        }
      }
    } catch {
      /* aborted */
    }
  })();
  return stream;
}

describe("the event stream in the sandbox", () => {
  it("with a sandbox token streams the sandbox's post and not a live one; a live token never sees the sandbox's", async () => {
    const sandbox = await sandboxApp();
    const sandboxStream = await openStream(await api.mintToken({ clientId: sandbox.sandboxClientId, scopes: ["svc:chat.read"] }));
    expect(sandboxStream.status).toBe(200);
    const liveStream = await openStream(await api.token({ scopes: ["svc:chat.read"] }));
    expect(liveStream.status).toBe(200);
    try {
      // Events arrive in commit order: once the later post is in, the earlier one would have been too.
      const livePost = await post(await liveWriter(), "live, before");
      const sandboxPost = await post(await sandboxWriter(sandbox), "sandbox, after");
      const lastLive = await post(await liveWriter(), "live, last");
      await until("the sandbox post on the sandbox stream", () => sandboxStream.frames.find((f) => f.data.id === sandboxPost));
      await until("the last live post on the live stream", () => liveStream.frames.find((f) => f.data.id === lastLive));
      const seenInSandbox = sandboxStream.frames.map((f) => f.data.id);
      expect(seenInSandbox).not.toContain(livePost);
      expect(liveStream.frames.map((f) => f.data.id)).toContain(livePost);
      expect(liveStream.frames.map((f) => f.data.id)).not.toContain(sandboxPost);
    } finally {
      sandboxStream.close();
      liveStream.close();
    }
  }, SLOW);
});

describe("trigger", () => {
  /*
   * Every type in the catalog can be delivered: each one "Trigger event" writes (all but ping, from
   * EVENT_TYPES) reaches the sandbox's endpoint signed and its stream, ping reaches the endpoint
   * ("Send test event"), and every body is valid under the catalog's schema for its type (the same
   * one the OpenAPI document and the SDK's types are built from). A type added to the catalog
   * without a writer, an audience, a renderer or a fan-out rule fails here.
   */
  it("apps sandbox trigger writes a signed event of each catalog type, with data from the sandbox's world, to its sandbox endpoints and stream only", async () => {
    const sandbox = await sandboxApp();
    const live = await startReceiver();
    await cli(["apps", "webhooks", "add", sandbox.appClientId, "--url", live.url]);
    const stream = await openStream(await api.mintToken({ clientId: sandbox.sandboxClientId, scopes: SCOPES }));
    expect(stream.status).toBe(200);

    try {
      const trigger = <T>(type: string) => cli<T>(["apps", "sandbox", "trigger", sandbox.appClientId, type]);
      const [triggered, ping, unknown] = await Promise.all([
        Promise.all(TRIGGERABLE_EVENT_TYPES.map((type) => trigger<{ event_id: string }>(type))),
        cli<{ event_id: string }>(["apps", "webhooks", "test", sandbox.appClientId, sandbox.webhook.id, "--sandbox"]),
        runCli(api.server.databaseUrl, ["apps", "sandbox", "trigger", sandbox.appClientId, "chat.deleted", "--json"], { env: ENV }),
      ]);
      for (const t of triggered) {
        expect(Object.keys(t)).toEqual(["event_id"]);
        expect(t.event_id).toMatch(EVENT_ID_PATTERN);
      }
      expect(unknown.code).not.toBe(0);
      expect(unknown.stderr).toContain(TRIGGERABLE_EVENT_TYPES.join(", "));

      const wh = new Webhook(sandbox.webhook.secret);
      const byId = (id: string) => () => sandbox.receiver.received.find((r) => parsed(r).id === id);
      const sent = new Map<EventType, string>([...TRIGGERABLE_EVENT_TYPES.map((type, i) => [type, triggered[i]!.event_id] as const), ["ping", ping.event_id]]);
      expect([...sent.keys()].sort()).toEqual([...EVENT_TYPES].sort());
      const delivered = new Map<EventType, EventBody>();
      for (const [type, id] of sent) {
        const hit = await until(`the ${type} event by webhook`, byId(id));
        const body = wh.verify(hit.body, hit.headers) as EventBody;
        expect(eventEnvelopeSchema(type).safeParse(body).error, type).toBeUndefined();
        delivered.set(type, body);
        if (type === "ping") continue;
        // The stream sends the same body (ping is for one endpoint only: lib/events/audience.ts `webhook_only`).
        const frame = await until(`the ${type} event on the stream`, () => stream.frames.find((f) => f.id === id));
        expect(frame, type).toEqual(body);
      }
      expect(stream.frames.map((f) => f.id)).not.toContain(ping.event_id);

      // The chat message is in the sandbox's chat, written by one of its people.
      const chatEvent = delivered.get("chat.message.created")!;
      const author = (chatEvent.data.author as { handle: string }).handle;
      const [person] = await api.sql(`SELECT 1 FROM "User" WHERE "worldId" = $1 AND handle = $2`, [sandbox.worldId, author]);
      expect(person).toBeDefined();
      const read = await api.call("/global-chat/messages?limit=5", { token: await api.mintToken({ clientId: sandbox.sandboxClientId, scopes: ["svc:chat.read"] }) });
      expect(read.body.data.messages.map((m: { id: string }) => m.id)).toContain(chatEvent.data.id);
      expect(delivered.get("notification.created")).toMatchObject({ data: { type: "poke", user: expect.any(String) } });
      expect(delivered.get("app.status.changed")).toMatchObject({ data: { status: "approved" } });

      for (const [type, id] of sent) if (type !== "ping") expect(await endpointsOf(id), type).toEqual([sandbox.webhook.id]);
      expect(live.received).toEqual([]);
    } finally {
      stream.close();
    }
  }, SLOW);
});
