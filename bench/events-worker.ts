/**
 * Case E's helpers. bench/events.ts forks this script three times and drives each copy
 * over IPC, so that none shares an event loop with the server, the orchestrator or the others: one
 * holds the webhook receivers (`hooks`), one the event-stream readers (`streams`), one sends the
 * chat posts at a steady rate, open loop (`post`); `report` counts what a listener received.
 *
 * Times are wall-clock milliseconds (performance.timeOrigin + performance.now()), comparable across
 * the processes of one machine. The poster records when each 201 came back, the listeners when each
 * event arrived (the webhook request's headers, the stream chunk that completed the frame).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

const now = () => performance.timeOrigin + performance.now();

export interface PostOutcome {
  /** [message id, time the 201 came back, time the post was sent] for every acknowledged post. */
  acks: [string, number, number][];
  sent: number;
  durationSeconds: number;
  statusCounts: Record<string, number>;
  errors: number;
  samples: Record<string, string>;
  /** Request latencies of the posts (ms), sorted. */
  latencies: number[];
  /** How far the sender fell behind its schedule at worst (ms): > a few ms means the rate was not held. */
  maxLagMs: number;
}

export interface ReceiverSummary {
  receivers: number;
  /** First receipts of acknowledged posts' events, over all receivers. */
  delivered: number;
  /** Acknowledged posts' events that a receiver never got (over all receivers). */
  lost: number;
  /** The same event id at the same receiver more than once. */
  duplicates: number;
  /** Events of posts that were not acknowledged (a 201 that never came back), first receipts. */
  unacknowledged: number;
  /** Receipt − 201 time (ms), clamped at 0; sorted. Sent as percentiles to keep IPC small. */
  latency: { p50: number; p90: number; p99: number; max: number; mean: number };
  /** Receipt − the time the post was sent: an upper bound of commit-to-receipt (the commit came after the send). */
  fromSend: { p50: number; p90: number; p99: number; max: number; mean: number };
  /** Receipts that came before their post's 201 (latency clamped to 0). */
  early: number;
  firstReceipt: number | null;
  lastReceipt: number | null;
  /** Seconds waited after the last 201 for stragglers. */
  settledSeconds: number;
  /** Streams that ended before the report (the server closed them). */
  streamsEnded: number;
}

type Request = { id: number; cmd: string; args: Record<string, unknown> };

function percentiles(sorted: ArrayLike<number>): ReceiverSummary["latency"] {
  const n = sorted.length;
  const at = (q: number) => (n ? sorted[Math.min(n - 1, Math.floor(q * n))]! : 0);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sorted[i]!;
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: n ? sorted[n - 1]! : 0, mean: n ? sum / n : 0 };
}

// ---------------------------------------------------------------------------------------------
// Listener: webhook receivers and event-stream readers.

interface Receiver {
  /** Event index → first receipt time. */
  times: number[];
  duplicates: number;
}

/** Event id → index, and index → the message id in its data (parsed once per event, not per receiver). */
const eventIndex = new Map<string, number>();
const messageOf: string[] = [];
const receivers: Receiver[] = [];
const servers: http.Server[] = [];
const streams: http.ClientRequest[] = [];
let streamsEnded = 0;

function record(receiver: Receiver, eventId: string, t: number, body: () => string): void {
  let index = eventIndex.get(eventId);
  if (index === undefined) {
    let messageId = "";
    try {
      const parsed = JSON.parse(body()) as { data?: { id?: unknown } };
      messageId = String(parsed.data?.id ?? "");
    } catch {
      /* counted as an event of no acknowledged post */
    }
    index = messageOf.push(messageId) - 1;
    eventIndex.set(eventId, index);
  }
  if (receiver.times[index] !== undefined) receiver.duplicates++;
  else receiver.times[index] = t;
}

async function startHooks(count: number): Promise<string[]> {
  const urls: string[] = [];
  for (let i = 0; i < count; i++) {
    const receiver: Receiver = { times: [], duplicates: 0 };
    receivers.push(receiver);
    const server = http.createServer((req, res) => {
      const t = now();
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        record(receiver, String(req.headers["webhook-id"] ?? ""), t, () => Buffer.concat(chunks).toString("utf8"));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers.push(server);
    urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/${i}`);
  }
  return urls;
}

/** One SSE reader; resolves when the server's first comment (": connected") arrived, rejects on a refusal. */
function openStream(agent: http.Agent, url: string, token: string): Promise<void> {
  const receiver: Receiver = { times: [], duplicates: 0 };
  receivers.push(receiver);
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" } }, (res) => {
      if (res.statusCode !== 200) {
        let text = "";
        res.on("data", (c: Buffer) => (text += c));
        res.on("end", () => reject(new Error(`GET /events answered ${res.statusCode}: ${text.slice(0, 200)}`)));
        return;
      }
      res.setEncoding("utf8");
      let buffer = "";
      let connected = false;
      res.on("data", (chunk: string) => {
        const t = now();
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (!connected && frame.includes(": connected")) {
            connected = true;
            resolve();
          }
          if (!frame.startsWith("id: ")) continue;
          const eol = frame.indexOf("\n");
          const eventId = frame.slice(4, eol);
          record(receiver, eventId, t, () => /^data: (.*)$/m.exec(frame)?.[1] ?? "");
        }
      });
      res.on("end", () => streamsEnded++);
    });
    req.on("error", (error) => reject(error));
    streams.push(req);
  });
}

async function openStreams(origin: string, types: string, subscriptions: { token: string; count: number }[]): Promise<{ opened: number; failed: string[] }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const url = `${origin}/api/v1/events?types=${encodeURIComponent(types)}`;
  const outcomes = await Promise.allSettled(subscriptions.flatMap((s) => Array.from({ length: s.count }, () => openStream(agent, url, s.token))));
  const failed = outcomes.flatMap((o) => (o.status === "rejected" ? [(o.reason as Error).message] : []));
  return { opened: outcomes.length - failed.length, failed };
}

/**
 * Waits until every receiver has every acknowledged post's event, or until nothing new arrived for
 * `quietMs` (at most `maxMs`), then counts.
 */
async function report(acks: [string, number, number][], quietMs: number, maxMs: number): Promise<ReceiverSummary> {
  const started = now();
  const ackOf = new Map(acks.map(([id, at]) => [id, at]));
  const sentOf = new Map(acks.map(([id, , sent]) => [id, sent]));
  const missing = () => {
    const ackedIndexes: number[] = [];
    for (const [index, messageId] of messageOf.entries()) if (ackOf.has(messageId)) ackedIndexes.push(index);
    let received = 0;
    for (const r of receivers) for (const index of ackedIndexes) if (r.times[index] !== undefined) received++;
    return acks.length * receivers.length - received;
  };
  let lastCount = -1;
  let lastChange = now();
  for (;;) {
    const left = missing();
    if (left === 0) break;
    if (left !== lastCount) {
      lastCount = left;
      lastChange = now();
    }
    if (now() - lastChange > quietMs || now() - started > maxMs) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const settledSeconds = (now() - started) / 1000;
  const latencies: number[] = [];
  const fromSend: number[] = [];
  let early = 0;
  let unacknowledged = 0;
  let duplicates = 0;
  let first: number | null = null;
  let last: number | null = null;
  for (const r of receivers) {
    duplicates += r.duplicates;
    for (const [index, t] of r.times.entries()) {
      if (t === undefined) continue;
      first = first === null ? t : Math.min(first, t);
      last = last === null ? t : Math.max(last, t);
      const acked = ackOf.get(messageOf[index]!);
      if (acked === undefined) {
        unacknowledged++;
        continue;
      }
      const latency = t - acked;
      if (latency < 0) early++;
      latencies.push(Math.max(0, latency));
      fromSend.push(t - sentOf.get(messageOf[index]!)!);
    }
  }
  const sorted = Float64Array.from(latencies).sort();
  return {
    receivers: receivers.length,
    delivered: latencies.length,
    lost: acks.length * receivers.length - latencies.length,
    duplicates,
    unacknowledged,
    latency: percentiles(sorted),
    fromSend: percentiles(Float64Array.from(fromSend).sort()),
    early,
    firstReceipt: first,
    lastReceipt: last,
    settledSeconds,
    streamsEnded,
  };
}

// ---------------------------------------------------------------------------------------------
// Poster: chat posts at a steady rate, round-robin over the signed-in users.

async function post(origin: string, tokens: string[], rate: number, duration: number): Promise<PostOutcome> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
  const target = new URL("/api/v1/global-chat/messages", origin);
  const total = Math.round(rate * duration);
  const outcome: PostOutcome = { acks: [], sent: 0, durationSeconds: 0, statusCounts: {}, errors: 0, samples: {}, latencies: [], maxLagMs: 0 };
  let inFlight = 0;
  let allSent: () => void = () => {};
  const done = new Promise<void>((resolve) => (allSent = resolve));
  const finishOne = () => {
    inFlight--;
    if (outcome.sent === total && inFlight === 0) allSent();
  };
  const send = (i: number) => {
    const body = JSON.stringify({ text: `bench event post ${i}: hello to every webhook and stream` });
    const sentAt = now();
    inFlight++;
    const req = http.request(
      target,
      {
        method: "POST",
        agent,
        headers: { authorization: `Bearer ${tokens[i % tokens.length]!}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        const at = now();
        const status = String(res.statusCode);
        outcome.statusCounts[status] = (outcome.statusCounts[status] ?? 0) + 1;
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => {
          outcome.latencies.push(at - sentAt);
          if (res.statusCode === 201) {
            try {
              outcome.acks.push([String((JSON.parse(text) as { data: { id: unknown } }).data.id), at, sentAt]);
            } catch {
              outcome.samples.malformed ??= text.slice(0, 300);
            }
          } else {
            outcome.samples[status] ??= text.slice(0, 300);
          }
          finishOne();
        });
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error("timeout")));
    req.on("error", (error) => {
      outcome.errors++;
      outcome.samples.error ??= error.message;
      finishOne();
    });
    req.end(body);
  };
  const started = now();
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const t = now();
      const due = Math.min(total, Math.floor(((t - started) / 1000) * rate) + 1);
      if (due > outcome.sent) outcome.maxLagMs = Math.max(outcome.maxLagMs, t - (started + (outcome.sent / rate) * 1000));
      while (outcome.sent < due) send(outcome.sent++);
      if (outcome.sent === total) {
        clearInterval(timer);
        resolve();
      }
    }, 2);
  });
  outcome.durationSeconds = (now() - started) / 1000;
  if (inFlight > 0) await Promise.race([done, new Promise((r) => setTimeout(r, 15_000))]);
  agent.destroy();
  outcome.latencies.sort((a, b) => a - b);
  return outcome;
}

// ---------------------------------------------------------------------------------------------

async function handle({ cmd, args }: Request): Promise<unknown> {
  switch (cmd) {
    case "hooks":
      return startHooks(args.count as number);
    case "streams":
      return openStreams(args.origin as string, args.types as string, args.subscriptions as { token: string; count: number }[]);
    case "report":
      return report(args.acks as [string, number, number][], args.quietMs as number, args.maxMs as number);
    case "post":
      return post(args.origin as string, args.tokens as string[], args.rate as number, args.duration as number);
    case "stop":
      for (const req of streams) req.destroy();
      for (const server of servers) server.closeAllConnections();
      await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
      setImmediate(() => process.exit(0));
      return null;
    default:
      throw new Error(`unknown command ${cmd}`);
  }
}

process.on("message", (message: Request) => {
  handle(message).then(
    (result) => process.send!({ id: message.id, result }),
    (error: Error) => process.send!({ id: message.id, error: error.message }),
  );
});
process.on("disconnect", () => process.exit(0));
