import { readFile } from "node:fs/promises";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { runCli } from "../helpers/cli";
import { createTestApp, signInAndGetTokens } from "../helpers/oidc";
import { newDatabase, pointAppAt } from "../helpers/server";
import { startApi, TEST_PASSWORD, type Api } from "../api/support";

/** `GET /api/v1/events`, the live stream, through real HTTP. */
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
  /** When the server ended the stream (the body's end), Date.now(). */
  endedAt?: number;
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
        if (done) {
          stream.endedAt = Date.now();
          return;
        }
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

/**
 * A stream lives no longer than its token, costs a bounded amount of memory however far
 * behind its reader is, and shares the app's slots fairly. The control actions run in this process
 * (the services the portal and CLI call) or through the sign-in service's HTTP endpoints; the
 * server hears of them on the change channel, like the API's token check.
 */
describe("GET /api/v1/events: the stream's limits", () => {
  const REDIRECT = "http://localhost:9/callback";
  const operator = { kind: "system", name: "test" } as const;
  /** The platform's bound for a control action to hold everywhere (STYLE: "Changes that must reach every process"). */
  const BOUND_MS = 250;
  let closeDb: () => Promise<void>;

  beforeAll(async () => {
    closeDb = await pointAppAt(api.server.databaseUrl, { LOG_LEVEL: "silent" });
  });
  afterAll(async () => {
    await closeDb?.();
  });

  async function connected(stream: Stream): Promise<void> {
    expect(stream.status, stream.body).toBe(200);
    await until("connected", () => (stream.comments.includes("connected") ? true : undefined));
  }

  /** Waits for the server to end `stream` and says how long after `since` it did. */
  async function endedWithin(stream: Stream, since: number): Promise<number> {
    const endedAt = await until("the stream's end", () => stream.endedAt, 5_000);
    return endedAt - since;
  }

  /** A person's user-delegated tokens for a login app of their own, with the refresh token. */
  async function personTokens(scopes = ["svc:notifications.read"]) {
    const person = await api.createUser();
    const app = await createTestApp(api.server.databaseUrl, { type: "login", scopes, redirectUris: [REDIRECT] });
    const tokens = await signInAndGetTokens(api.server, { handle: person.handle, password: TEST_PASSWORD, clientId: app.clientId, redirectUri: REDIRECT });
    return { person, clientId: app.clientId, ...tokens };
  }

  it("ends within 250 ms of the app's secret roll, and the API refuses the token too", async () => {
    const secrets = await import("../../lib/services/app-secrets");
    let clientId = "";
    const token = await api.token({ scopes: ["svc:chat.read"], freshApp: true, onApp: (id) => (clientId = id) });
    const bystander = await open(await api.token({ scopes: ["svc:chat.read"], freshApp: true }));
    const stream = await open(token);
    await connected(stream);
    await connected(bystander);
    await secrets.rollSecret(clientId, operator);
    const rolledAt = Date.now();
    expect(await endedWithin(stream, rolledAt)).toBeLessThanOrEqual(BOUND_MS);
    expect(stream.comments.some((c) => c.startsWith("closed token_revoked"))).toBe(true);
    expect((await api.call("/global-chat/messages?limit=1", { token })).status).toBe(401);
    // Another app's stream is not this roll's business.
    expect(bystander.endedAt).toBeUndefined();
    bystander.close();
  });

  it("ends within 250 ms of the token's revocation (RFC 7009, its refresh token) and of the person's revocation of the app", async () => {
    const revoked = await personTokens();
    const byToken = await open(revoked.access_token);
    await connected(byToken);
    const answer = await fetch(`${api.server.issuer}/protocol/openid-connect/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: revoked.refresh_token, client_id: revoked.clientId }),
    });
    const revokedAt = Date.now();
    expect(answer.status).toBe(200);
    expect(await endedWithin(byToken, revokedAt)).toBeLessThanOrEqual(BOUND_MS);
    expect(byToken.comments.some((c) => c.startsWith("closed token_revoked"))).toBe(true);

    const consents = await import("../../lib/services/consents");
    const person = await personTokens();
    const byPerson = await open(person.access_token);
    await connected(byPerson);
    await consents.revokeConsent(person.person.id, person.clientId, operator);
    expect(await endedWithin(byPerson, Date.now())).toBeLessThanOrEqual(BOUND_MS);
  });

  it("ends within 250 ms of the app's deletion", async () => {
    const apps = await import("../../lib/services/apps");
    let clientId = "";
    const token = await api.token({ scopes: ["svc:chat.read"], freshApp: true, onApp: (id) => (clientId = id) });
    const stream = await open(token, "?types=chat.message.created");
    await connected(stream);
    await apps.deleteApp(clientId, operator);
    expect(await endedWithin(stream, Date.now())).toBeLessThanOrEqual(BOUND_MS);
    expect(stream.comments.some((c) => c.startsWith("closed token_revoked"))).toBe(true);
  });

  it("ends within 250 ms of its token's expiry", async () => {
    let clientId = "";
    await api.token({ scopes: ["svc:chat.read"], freshApp: true, onApp: (id) => (clientId = id) });
    const token = await api.mintToken({ clientId, scopes: ["svc:chat.read"], expiresIn: 2 });
    const expiresAtMs = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()).exp * 1000;
    const stream = await open(token);
    await connected(stream);
    const late = await endedWithin(stream, expiresAtMs);
    expect(late).toBeGreaterThanOrEqual(-50);
    expect(late).toBeLessThanOrEqual(BOUND_MS);
    expect(stream.comments.some((c) => c.startsWith("closed token_expired"))).toBe(true);
  });

  it("resumes from Last-Event-ID for 24 hours, and answers 400 for an older one", async () => {
    let clientId = "";
    const token = await api.token({ scopes: ["svc:chat.read"], freshApp: true, onApp: (id) => (clientId = id) });
    const [recent, old] = await api.sql<{ id: string }>(
      `INSERT INTO "Event" (id, type, "clientId", data, "createdAt")
       SELECT 'evt_' || translate(substr(md5(random()::text), 1, 24), '0189', 'wxyz'), 'app.status.changed', $1,
              '{"status": "approved"}', timezone('UTC', now()) - make_interval(hours => h)
       FROM unnest(ARRAY[23, 25]) AS h RETURNING id`,
      [clientId],
    );
    const fromRecent = await open(token, "", { "last-event-id": recent!.id });
    await connected(fromRecent);
    fromRecent.close();
    const fromOld = await open(token, "", { "last-event-id": old!.id });
    expect(fromOld.status).toBe(400);
    expect(JSON.parse(fromOld.body).error).toMatchObject({ code: "invalid_request", message: expect.stringContaining("24 hours") });
  });

  it("gives one person of a login app 5 of its 20 stream slots", async () => {
    const app = await createTestApp(api.server.databaseUrl, { type: "login", scopes: ["svc:chat.read"], redirectUris: [REDIRECT] });
    const signIn = async () => {
      const person = await api.createUser();
      return (await signInAndGetTokens(api.server, { handle: person.handle, password: TEST_PASSWORD, clientId: app.clientId, redirectUri: REDIRECT }))
        .access_token;
    };
    const greedy = await signIn();
    const streams: Stream[] = [];
    for (let i = 0; i < 5; i++) streams.push(await open(greedy));
    expect(streams.map((s) => s.status)).toEqual(Array(5).fill(200));
    const over = await open(greedy);
    expect(over.status).toBe(429);
    expect(JSON.parse(over.body).error).toMatchObject({ code: "rate_limited", message: expect.stringContaining("One person") });
    expect(over.headers.get("retry-after")).toBe("5");
    // The app's other users still get theirs.
    const other = await open(await signIn());
    expect(other.status).toBe(200);
    for (const s of [...streams, other]) s.close();
  });

  it("keeps the server's memory within 50 MB of idle with 50 paused readers resuming from the oldest event", async () => {
    const APPS = 3;
    const READERS = 50;
    const EVENTS_PER_APP = 3000;
    const tokens: string[] = [];
    const clientIds: string[] = [];
    for (let i = 0; i < APPS; i++) tokens.push(await api.token({ scopes: ["svc:chat.read"], freshApp: true, onApp: (id) => clientIds.push(id) }));
    // A backlog of ~27 MB (3 KB an event), the apps' events interleaved: each reader's ~9 MB is
    // more than twice what its connection takes into the kernel's buffers while it does not read.
    const inserted = await api.sql<{ id: string; clientId: string }>(
      `INSERT INTO "Event" (id, type, "clientId", data)
       SELECT 'evt_' || translate(substr(md5(n::text || random()::text), 1, 24), '0189', 'wxyz'), 'app.status.changed',
              ($1::text[])[n % $2 + 1], jsonb_build_object('status', 'approved', 'reason', repeat('x', 3000)) 
       FROM generate_series(0, $3 - 1) AS n ORDER BY n RETURNING id, "clientId"`,
      [clientIds, APPS, APPS * EVENTS_PER_APP],
    );
    const oldest = inserted[0]!.id;
    const last = clientIds.map((c) => inserted.filter((e) => e.clientId === c).at(-1)!.id);

    const pid = api.server.process.pid!;
    const rss = async () => Number(/VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, "utf8"))![1]) * 1024;
    // utime + stime, in clock ticks of 10 ms (USER_HZ).
    const cpuMs = async () => {
      const fields = (await readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1]!.split(" ");
      return (Number(fields[11]) + Number(fields[12])) * 10;
    };
    const url = new URL(api.url("/events"));
    // Idle is the server's steady state, not its cold start: one reader first resumes a whole backlog
    // and leaves, so the one-time costs of the path (compiled code, the heap's first growth, the
    // pool's connections) are in the baseline, and what follows measures what paused readers add.
    {
      const warm = net.connect(Number(url.port), url.hostname);
      let text = "";
      warm.on("data", (chunk: Buffer) => (text += chunk.toString("latin1")));
      warm.write(`GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${tokens[0]}\r\nLast-Event-ID: ${oldest}\r\n\r\n`);
      await until("the warm-up reader's last event", () => (text.includes(`id: ${last[0]}\n`) ? true : undefined), 60_000);
      warm.destroy();
      await new Promise((r) => setTimeout(r, 1000));
    }
    const idle = await rss();

    const readers: { socket: net.Socket; app: number }[] = [];
    for (let i = 0; i < READERS; i++) {
      const socket = net.connect(Number(url.port), url.hostname);
      // Paused from the start: the reader takes nothing, not even the response's headers.
      socket.pause();
      socket.write(
        `GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${tokens[i % APPS]}\r\nLast-Event-ID: ${oldest}\r\n\r\n`,
      );
      readers.push({ socket, app: i % APPS });
    }
    try {
      // The server reads and writes as much as the paused connections take, then has nothing to do:
      // its peak until it is quiet (under 10 % of a core for a second).
      let peak = idle;
      for (let quiet = false, deadline = Date.now() + 90_000; !quiet; ) {
        expect(Date.now(), "the server never went quiet").toBeLessThan(deadline);
        const before = await cpuMs();
        for (let t = 0; t < 10; t++) {
          peak = Math.max(peak, await rss());
          await new Promise((r) => setTimeout(r, 100));
        }
        quiet = (await cpuMs()) - before < 100;
      }
      expect((peak - idle) / 2 ** 20, `idle ${(idle / 2 ** 20).toFixed(0)} MB, peak ${(peak / 2 ** 20).toFixed(0)} MB`).toBeLessThan(50);

      // Paused is not dropped: a reader that reads again gets its whole backlog, to the last event.
      for (const reader of readers.slice(0, APPS)) {
        let text = "";
        reader.socket.on("data", (chunk: Buffer) => (text += chunk.toString("latin1")));
        reader.socket.resume();
        await until(`reader ${reader.app}'s last event`, () => (text.includes(`id: ${last[reader.app]}\n`) ? true : undefined), 30_000);
        // Everything after the oldest event, which is the first app's.
        expect(text.split("\nid: evt_").length - 1).toBe(EVENTS_PER_APP - (reader.app === 0 ? 1 : 0));
        expect(text).not.toContain("closed slow_reader");
      }
    } finally {
      for (const { socket } of readers) socket.destroy();
    }
  }, 240_000);
});
