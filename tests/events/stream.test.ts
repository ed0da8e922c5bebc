import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { runCli } from "../helpers/cli";
import { newDatabase } from "../helpers/server";
import { startApi, type Api } from "../api/support";

/** Issue 25: `GET /api/v1/events`, the live stream, through real HTTP. */
interface Frame {
  id?: string;
  event?: string;
  data?: { id: string; type: string; created_at: number; data: Record<string, unknown> };
}

interface Stream {
  status: number;
  headers: Headers;
  frames: Frame[];
  comments: string[];
  close(): void;
  body: string;
}

let api: Api;

beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api?.stop();
});

async function open(token: string, query = "", headers: Record<string, string> = {}): Promise<Stream> {
  const controller = new AbortController();
  const response = await fetch(api.url(`/events${query}`), { headers: { authorization: `Bearer ${token}`, ...headers }, signal: controller.signal });
  const stream: Stream = { status: response.status, headers: response.headers, frames: [], comments: [], body: "", close: () => controller.abort() };
  if (!response.headers.get("content-type")?.startsWith("text/event-stream")) {
    stream.body = await response.text();
    return stream;
  }
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
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const frame: Frame = {};
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) stream.comments.push(line.slice(1).trim());
            else if (line.startsWith("id: ")) frame.id = line.slice(4);
            else if (line.startsWith("event: ")) frame.event = line.slice(7);
            else if (line.startsWith("data: ")) frame.data = JSON.parse(line.slice(6));
          }
          if (frame.data) stream.frames.push(frame);
        }
      }
    } catch {
      /* aborted */
    }
  })();
  return stream;
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function writer() {
  const author = await api.createUser();
  const token = await api.token({ user: author.handle, scopes: ["svc:chat.write"] });
  let n = 0;
  // The chat allows one post per 2 s per person: a new author for each post keeps tests fast.
  return async (text: string) => {
    const person = n++ === 0 ? { token } : { token: await api.token({ user: (await api.createUser()).handle, scopes: ["svc:chat.write"] }) };
    const res = await api.call("/global-chat/messages", { method: "POST", token: person.token, body: { text } });
    expect(res.status).toBe(201);
    return res.body.data as { id: string };
  };
}

describe("GET /api/v1/events", () => {
  it("streams chat.message.created with id lines, the same body a webhook gets, and resumes from Last-Event-ID without a gap or a repeat", async () => {
    const reader = await api.token({ scopes: ["svc:chat.read"] });
    const post = await writer();
    const first = await open(reader, "?types=chat.message.created");
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toContain("no-cache");
    await until("the connected comment", () => (first.comments.includes("connected") ? true : undefined));
    const a = await post("stream one");
    await until("event one", () => first.frames.find((f) => f.data!.data.id === a.id));
    first.close();
    const b = await post("stream two");
    const c = await post("stream three");
    const lastSeen = first.frames.at(-1)!;
    expect(lastSeen.event).toBe("chat.message.created");
    expect(lastSeen.id).toBe(lastSeen.data!.id);
    const resumed = await open(reader, "?types=chat.message.created", { "last-event-id": lastSeen.id! });
    await until("events two and three", () => (resumed.frames.some((f) => f.data!.data.id === c.id) ? true : undefined));
    const ids = resumed.frames.map((f) => f.data!.data.id);
    expect(ids).toEqual([b.id, c.id]);
    const page = await api.call("/global-chat/messages?limit=3", { token: reader });
    expect(resumed.frames.map((f) => f.data!.data)).toEqual(page.body.data.messages.slice(1));
    resumed.close();
  });

  it("filters by type, and an app token sees its own status changes", async () => {
    let clientId = "";
    const token = await api.token({ scopes: ["svc:chat.read"], freshApp: true, onApp: (id) => (clientId = id) });
    const post = await writer();
    const status = await open(token, "?types=app.status.changed");
    await until("connected", () => (status.comments.includes("connected") ? true : undefined));
    await post("not for the status stream");
    const run = await runCli(api.server.databaseUrl, ["apps", "suspend", clientId, "--reason", "Testing the stream", "--json"]);
    expect(run.code).toBe(0);
    const frame = await until("the suspension", () => status.frames[0]);
    expect(frame.data).toMatchObject({ type: "app.status.changed", data: { status: "suspended", reason: "Testing the stream" } });
    expect(status.frames.filter((f) => f.event === "chat.message.created")).toEqual([]);
  });

  it("gives a user token only its own person's notifications", async () => {
    const me = await api.createUser();
    const other = await api.createUser();
    const mine = await api.token({ user: me.handle, scopes: ["svc:notifications.read"] });
    await api.token({ user: other.handle, scopes: ["svc:notifications.read"] });
    const stream = await open(mine, "?types=notification.created");
    await until("connected", () => (stream.comments.includes("connected") ? true : undefined));
    const poker = await api.token({ user: (await api.createUser()).handle, scopes: ["svc:pokes.write"] });
    expect((await api.call(`/users/${other.handle}/poke`, { method: "POST", token: poker })).status).toBe(200);
    expect((await api.call(`/users/${me.handle}/poke`, { method: "POST", token: poker })).status).toBe(200);
    const frame = await until("my notification", () => stream.frames[0]);
    expect(frame.data!.data).toMatchObject({ type: "poke", user: me.handle });
    await new Promise((r) => setTimeout(r, 500));
    expect(stream.frames.map((f) => f.data!.data.user)).toEqual([me.handle]);
    stream.close();
  });

  it("is not held back by a transaction left open in another database of the same PostgreSQL", async () => {
    // Transaction ids and snapshots span the whole cluster: pg_snapshot_xmin alone waited for this
    // transaction, which can never write our events (tests share one PostgreSQL; so do some deployments).
    const elsewhere = new pg.Client({ connectionString: await newDatabase({ seed: false }) });
    await elsewhere.connect();
    try {
      await elsewhere.query("BEGIN");
      await elsewhere.query("SELECT pg_current_xact_id()");
      const reader = await api.token({ scopes: ["svc:chat.read"] });
      const stream = await open(reader, "?types=chat.message.created");
      await until("connected", () => (stream.comments.includes("connected") ? true : undefined));
      const post = await writer();
      const message = await post("while another database waits");
      await until("the post, with the other transaction still open", () => stream.frames.find((f) => f.data!.data.id === message.id), 5_000);
      stream.close();
    } finally {
      await elsewhere.query("ROLLBACK").catch(() => undefined);
      await elsewhere.end();
    }
  });

  it("reads an event held back by an older transaction as soon as that one ends, though it writes no event", async () => {
    // The hub reads below the oldest running transaction, then asks whether committed events wait
    // behind one. Ended between the two (here: at random moments, many times), the older transaction
    // must not leave the event unread until some later event wakes the hub.
    const older = new pg.Client({ connectionString: api.server.databaseUrl });
    await older.connect();
    const reader = await api.token({ scopes: ["svc:chat.read"] });
    const stream = await open(reader, "?types=chat.message.created");
    const post = await writer();
    try {
      await until("connected", () => (stream.comments.includes("connected") ? true : undefined));
      for (let i = 0; i < 80; i++) {
        await older.query("BEGIN");
        await older.query("SELECT pg_current_xact_id()");
        const message = await post(`held back ${i}`);
        await new Promise((r) => setTimeout(r, Math.random() * 25));
        await older.query("COMMIT");
        await until(`held-back post ${i}`, () => stream.frames.find((f) => f.data!.data.id === message.id), 3_000);
      }
    } finally {
      await older.query("ROLLBACK").catch(() => undefined);
      await older.end();
      stream.close();
    }
  }, 120_000);

  it("refuses an unknown type or Last-Event-ID with 400, and a 21st stream of one app with 429", async () => {
    const token = await api.token({ scopes: ["svc:directory.read"], freshApp: true });
    const badType = await open(token, "?types=chat.everything");
    expect(badType.status).toBe(400);
    expect(JSON.parse(badType.body).error.code).toBe("invalid_request");
    const badId = await open(token, "", { "last-event-id": "evt_aaaaaaaaaaaaaaaaaaaaaaaa" });
    expect(badId.status).toBe(400);
    const streams = [];
    for (let i = 0; i < 20; i++) streams.push(await open(token));
    expect(streams.map((s) => s.status)).toEqual(Array(20).fill(200));
    const over = await open(token);
    expect(over.status).toBe(429);
    expect(JSON.parse(over.body).error.code).toBe("rate_limited");
    for (const s of streams) s.close();
  });
});
