import { onChange } from "../database/changes";
import { pool } from "../database/client";
import { AppError } from "../errors";
import { logger } from "../logger";
import { EVENT_ID_PATTERN, MAX_STREAMS_PER_APP, type EventType } from "../schemas/events";
import { LIVE_WORLD_ID } from "../schemas/sandboxes";
import { EVENT_COLUMNS, EVENT_HORIZON_SQL, toStoredEvent, type EventRenderer, type StoredEvent } from "./worker";

/**
 * The event stream's hub (issue 25, `GET /api/v1/events`): one per process. Events are read from
 * the Event table in (txid, seq) order, and only below the oldest transaction of this database
 * still running (EVENT_HORIZON_SQL): an event written by a transaction that commits after a later one is never
 * skipped, and none is read twice. The Event trigger's NOTIFY (the change channel) wakes the hub,
 * which reads what is new once for all of this process's subscribers; a subscriber that resumes
 * (Last-Event-ID) first reads its backlog itself, then joins the live feed at the same cursor.
 *
 * Who sees what (an app never receives an event it could not read through the API):
 * - chat.message.created: tokens with svc:chat.read;
 * - notification.created: tokens with svc:notifications.read, for a person who authorized the app
 *   with that scope (a user token: only its own person's);
 * - app.authorization.*: the app's own; a user token only its own person's;
 * - app.status.changed: the app's own; ping goes to webhooks only.
 * A suspension ends the app's streams after its event; a person's revocation ends their user
 * token's streams after its event.
 *
 * Issue 26: a caller hears only the events of its token's world. A sandbox token (`sbx_…`) hears its
 * sandbox's events, under the same rules, except that every synthetic person counts as having
 * authorized the sandbox (notification.created needs the scope, not a grant); a live token never
 * hears a sandbox's. The read is the same for every world (the world is tested per row, in memory).
 */
export interface StreamCaller {
  clientId: string;
  userId: number | null;
  scopes: readonly string[];
  /** 0 live, else the caller's sandbox (Sandbox.id). */
  worldId: number;
}

export interface StreamSink {
  write(chunk: string): void;
  end(): void;
}

interface Cursor {
  txid: string;
  seq: string;
}

interface Subscriber {
  caller: StreamCaller;
  types: ReadonlySet<EventType> | null;
  sink: StreamSink;
  cursor: Cursor;
  live: boolean;
  closed: boolean;
  heartbeat: NodeJS.Timeout;
}

const HEARTBEAT_MS = 15_000;
const PAGE = 500;
/** How far back Last-Event-ID may reach (the table keeps 7 days; the promise is 24 hours). */
const RESUME_WINDOW_HOURS = 24 * 7;

/** How soon the hub reads again when committed events wait behind an older transaction. */
const HELD_RETRY_MS = 20;
const READ_PACE_MS = 20;
let lastRead = 0;
let paced: NodeJS.Timeout | null = null;

const subscribers = new Set<Subscriber>();
let heldRetry: NodeJS.Timeout | null = null;
let head: Cursor | null = null;
let reading: Promise<void> | null = null;
let again = false;
let render: EventRenderer | null = null;

interface Row extends StoredEvent {
  txid: string;
}

/** Events after `cursor`, below the oldest running transaction, in order. */
async function readAfter(cursor: Cursor, limit: number): Promise<Row[]> {
  const { rows } = await pool.query<Record<string, unknown>>({
    name: "events_after",
    text: `SELECT e.txid::text AS txid, ${EVENT_COLUMNS} FROM "Event" e
           WHERE (e.txid, e.seq) > ($1::xid8, $2::int8) AND e.txid < ${EVENT_HORIZON_SQL}
           ORDER BY e.txid, e.seq LIMIT $3`,
    values: [cursor.txid, cursor.seq, limit],
  });
  return rows.map((r) => ({ ...toStoredEvent(r), txid: String(r.txid) }));
}

/**
 * Whether events after `cursor` exist, after a read that took everything readable: they wait behind
 * a transaction older than theirs (readAfter stops below it), or committed since. Nothing announces
 * the end of an older transaction that writes no event, so the hub looks again shortly
 * (HELD_RETRY_MS) rather than waiting for the next event. No horizon here: one computed anew could
 * have moved past events the read left behind (the older transaction ended in between), and they
 * would wait for the next event.
 */
async function heldBack(cursor: Cursor): Promise<boolean> {
  const { rows: [row] } = await pool.query<{ held: boolean }>({
    name: "events_held_back_v2",
    text: `SELECT EXISTS (SELECT 1 FROM "Event" e WHERE (e.txid, e.seq) > ($1::xid8, $2::int8)) AS held`,
    values: [cursor.txid, cursor.seq],
  });
  return row!.held;
}

/** Where a new stream starts: after everything committed so far. */
async function currentHead(): Promise<Cursor> {
  const { rows: [row] } = await pool.query<Cursor>(
    `SELECT coalesce(last.txid::text, '0') AS txid, coalesce(last.seq::text, '0') AS seq
     FROM (SELECT 1) AS one
     LEFT JOIN LATERAL (SELECT txid, seq FROM "Event" WHERE txid < ${EVENT_HORIZON_SQL} ORDER BY txid DESC, seq DESC LIMIT 1) AS last ON true`,
  );
  return row!;
}

/** People who authorized an app to read notifications: `${userId}:${clientId}` for the notification events of a batch. */
async function notificationGrants(rows: readonly Row[]): Promise<Set<string>> {
  // Live people only: in a sandbox every synthetic person counts as having authorized it.
  const users = [...new Set(rows.filter((r) => r.type === "notification.created" && r.userId !== null && r.worldId === LIVE_WORLD_ID).map((r) => r.userId!))];
  if (!users.length) return new Set();
  const { rows: grants } = await pool.query<{ userId: number; clientId: string }>(
    `SELECT c."userId", c."clientId" FROM "Consent" c JOIN "User" u ON u.id = c."userId"
     WHERE c."userId" = ANY($1::int[]) AND 'svc:notifications.read' = ANY (c.scopes) AND NOT u.disabled`,
    [users],
  );
  return new Set(grants.map((g) => `${g.userId}:${g.clientId}`));
}

function visible(sub: Subscriber, event: Row, grants: ReadonlySet<string>): boolean {
  const { caller } = sub;
  if (event.worldId !== caller.worldId) return false;
  if (sub.types && !sub.types.has(event.type)) return false;
  switch (event.type) {
    case "chat.message.created":
      return caller.scopes.includes("svc:chat.read");
    case "notification.created":
      return (
        caller.scopes.includes("svc:notifications.read") &&
        (caller.userId === null || caller.userId === event.userId) &&
        (event.worldId !== LIVE_WORLD_ID || grants.has(`${event.userId}:${caller.clientId}`))
      );
    case "app.authorization.granted":
    case "app.authorization.revoked":
      return event.clientId === caller.clientId && (caller.userId === null || caller.userId === event.userId);
    case "app.status.changed":
      return event.clientId === caller.clientId;
    default:
      return false;
  }
}

/** Whether the event ends this stream (after it was sent): the app suspended, the person's grant revoked. */
function ends(sub: Subscriber, event: Row): boolean {
  if (event.clientId !== sub.caller.clientId) return false;
  if (event.type === "app.status.changed") return (event.data as { status?: string }).status === "suspended";
  return event.type === "app.authorization.revoked" && sub.caller.userId !== null && sub.caller.userId === event.userId;
}

/** Each event's SSE frame, rendered once per read however many subscribers get it. */
type Frames = (event: Row) => string;

function framesOf(): Frames {
  const made = new Map<string, string>();
  return (event) => {
    let text = made.get(event.seq);
    if (text === undefined) {
      text = `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(render!(event))}\n\n`;
      made.set(event.seq, text);
    }
    return text;
  };
}

/** A batch of events to one subscriber: what it may see, in order, in one write. */
function deliver(sub: Subscriber, rows: readonly Row[], grants: ReadonlySet<string>, frames: Frames): void {
  let out = "";
  let ended = false;
  for (const event of rows) {
    if (compare(event, sub.cursor) <= 0) continue;
    sub.cursor = { txid: event.txid, seq: event.seq };
    if (!visible(sub, event, grants)) continue;
    out += frames(event);
    if (ends(sub, event)) {
      ended = true;
      break;
    }
  }
  if (out && !sub.closed) sub.sink.write(out);
  if (ended) close(sub);
}

function compare(a: Cursor, b: Cursor): number {
  const [ta, tb] = [BigInt(a.txid), BigInt(b.txid)];
  if (ta !== tb) return ta < tb ? -1 : 1;
  const [sa, sb] = [BigInt(a.seq), BigInt(b.seq)];
  return sa === sb ? 0 : sa < sb ? -1 : 1;
}

/**
 * Reads everything new once for every live subscriber; a wake-up during a read reads again after it.
 * Reads start at most every READ_PACE_MS: under a burst, each subscriber gets a few events in one
 * write rather than one write per event (a write is a system call per subscriber).
 */
function wake(): void {
  if (!subscribers.size) return;
  if (reading) {
    again = true;
    return;
  }
  const wait = lastRead + READ_PACE_MS - Date.now();
  if (wait > 0) {
    paced ??= setTimeout(() => {
      paced = null;
      wake();
    }, wait);
    return;
  }
  lastRead = Date.now();
  again = false;
  reading = (async () => {
    head ??= await currentHead();
    for (;;) {
      const rows = await readAfter(head, PAGE);
      if (!rows.length) break;
      const grants = await notificationGrants(rows);
      const frames = framesOf();
      for (const sub of subscribers) if (sub.live) deliver(sub, rows, grants, frames);
      head = { txid: rows.at(-1)!.txid, seq: rows.at(-1)!.seq };
      if (rows.length < PAGE) break;
    }
    if (!again && !heldRetry && (await heldBack(head))) {
      heldRetry = setTimeout(() => {
        heldRetry = null;
        wake();
      }, HELD_RETRY_MS);
    }
  })()
    .catch((error: Error) => logger.warn("event stream: read failed", { error: error.message }))
    .finally(() => {
      reading = null;
      if (again) wake();
    });
}

/** Reads a resuming subscriber's backlog, then lets it join the live feed without a gap or a repeat. */
async function catchUp(sub: Subscriber): Promise<void> {
  for (;;) {
    const rows = await readAfter(sub.cursor, PAGE);
    if (sub.closed) return;
    deliver(sub, rows, await notificationGrants(rows), framesOf());
    if (rows.length < PAGE) break;
  }
  // Join: the hub may be ahead of us; whatever lies between is read once more by us, in order.
  sub.live = true;
  if (head && compare(head, sub.cursor) > 0) {
    sub.live = false;
    return catchUp(sub);
  }
}

function close(sub: Subscriber): void {
  if (sub.closed) return;
  sub.closed = true;
  clearInterval(sub.heartbeat);
  subscribers.delete(sub);
  // Nobody left to read for: the next subscriber's arrival sets the hub's place anew.
  if (!subscribers.size) head = null;
  sub.sink.end();
}

/** The cursor of a Last-Event-ID, or null when the id is unknown or too old to resume from. */
async function cursorOf(eventId: string): Promise<Cursor | null> {
  if (!EVENT_ID_PATTERN.test(eventId)) return null;
  const { rows: [row] } = await pool.query<Cursor>(
    `SELECT txid::text AS txid, seq::text AS seq FROM "Event" WHERE id = $1 AND "createdAt" > timezone('UTC', now()) - make_interval(hours => $2)`,
    [eventId, RESUME_WINDOW_HOURS],
  );
  return row ?? null;
}

let stopListening: (() => void) | null = null;

/** Starts this process's hub (server start-up): the renderer of event bodies, and the wake-up on every event. */
export function startEventStreams(renderer: EventRenderer): { closeAll(): void } {
  render = renderer;
  stopListening ??= onChange((change) => {
    if (change.kind === "event" || change.kind === "all") wake();
  });
  return {
    closeAll() {
      for (const sub of [...subscribers]) close(sub);
    },
  };
}

export function streamCount(clientId: string): number {
  let n = 0;
  for (const sub of subscribers) if (sub.caller.clientId === clientId) n++;
  return n;
}

/**
 * Opens a stream for `caller`: refused (429) beyond MAX_STREAMS_PER_APP in this process, 400 for a
 * Last-Event-ID that cannot be resumed. Returns the function that starts writing to the sink (after
 * the response's headers are out) and the one that ends it when the client goes away.
 */
export async function openEventStream(
  caller: StreamCaller,
  options: { types: readonly EventType[] | null; lastEventId: string | null },
): Promise<{ start(sink: StreamSink): () => void }> {
  if (!render) throw new AppError("service_unavailable", "The event stream is not running in this process.");
  if (streamCount(caller.clientId) >= MAX_STREAMS_PER_APP) {
    throw new AppError("rate_limited", `An app may hold ${MAX_STREAMS_PER_APP} event streams at once; close one first.`, {
      headers: { "Retry-After": "5" },
    });
  }
  let cursor: Cursor;
  if (options.lastEventId !== null) {
    const found = await cursorOf(options.lastEventId);
    if (!found) {
      throw new AppError("invalid_request", "Last-Event-ID names no event this stream can resume from (unknown, or older than 7 days).");
    }
    cursor = found;
  } else {
    // From now: everything committed before this request is history.
    cursor = await currentHead();
  }
  return {
    start(sink) {
      const sub: Subscriber = {
        caller,
        types: options.types && options.types.length ? new Set(options.types) : null,
        sink,
        cursor,
        live: false,
        closed: false,
        heartbeat: setInterval(() => sink.write(": heartbeat\n\n"), HEARTBEAT_MS),
      };
      sub.heartbeat.unref();
      subscribers.add(sub);
      // The retry hint and a first comment: the client knows the stream is open before any event.
      sink.write(`retry: 2000\n: connected\n\n`);
      catchUp(sub)
        .then(() => wake())
        .catch((error: Error) => {
          logger.warn("event stream: catch-up failed", { error: error.message });
          close(sub);
        });
      return () => close(sub);
    },
  };
}
