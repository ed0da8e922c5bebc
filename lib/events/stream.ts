import { onChange, type ChangeEvent } from "../database/changes";
import { pool } from "../database/client";
import { env } from "../env";
import { AppError } from "../errors";
import { logger } from "../logger";
import {
  EVENT_ID_PATTERN,
  MAX_STREAMS_PER_APP,
  MAX_STREAMS_PER_USER,
  STREAM_RESUME_WINDOW_HOURS,
  type EventType,
} from "../schemas/events";
import { LIVE_WORLD_ID } from "../schemas/sandboxes";
import { mayReceive } from "./audience";
import { EVENT_COLUMNS, EVENT_HORIZON_SQL, toStoredEvent, type EventRenderer, type StoredEvent } from "./worker";

/**
 * The event stream's hub (`GET /api/v1/events`): one per process. Events are read from
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
 * A caller hears only the events of its token's world. A sandbox token (`sbx_…`) hears its
 * sandbox's events, under the same rules, except that every synthetic person counts as having
 * authorized the sandbox (notification.created needs the scope, not a grant); a live token never
 * hears a sandbox's. The read is the same for every world (the world is tested per row, in memory).
 *
 * A stream lives no longer than its token (STYLE: "Changes that must reach every process"): it ends
 * at the token's `exp`, and when the change channel announces a change that concerns the token
 * and the API's own token check (lib/api/auth.ts) now refuses it — a secret roll, a revocation,
 * the app suspended or deleted, the person's revocation — after one last read, so the event that
 * announced it still arrives. The reason goes out as a comment (`: closed <reason>: …`) first.
 *
 * Memory is bounded per reader: a backlog is read a page at a time, the next page only once the
 * connection took the last one; a live reader whose connection holds more than MAX_BUFFERED_BYTES,
 * or takes nothing for STALL_MS, is disconnected (`slow_reader`) and resumes with Last-Event-ID.
 */
export interface StreamCaller {
  clientId: string;
  userId: number | null;
  scopes: readonly string[];
  /** 0 live, else the caller's sandbox (Sandbox.id). */
  worldId: number;
}

/** The opening token's lifetime (lib/api/auth.ts TokenLifetime). */
export interface StreamToken {
  expiresAtMs: number;
  isAffectedBy(change: ChangeEvent): boolean;
  isStillValid(): Promise<boolean>;
}

/** The response a stream writes to (lib/api/request-reply.ts ReplySink). */
export interface StreamSink {
  write(chunk: string): boolean;
  buffered(): number;
  onDrain(listener: () => void): void;
  end(): void;
}

/** Why the server ended a stream, as the comment before the end names it. */
type CloseReason = "token_expired" | "token_revoked" | "slow_reader" | "server_closing";

interface Cursor {
  txid: string;
  seq: string;
}

/**
 * A surface's own frame for an event it may see (the MCP session's `notifications/resources/updated`),
 * or null to send nothing for it; without one, the event itself goes out.
 */
export type StreamFrame = (event: StoredEvent) => string | null;

interface Subscriber {
  caller: StreamCaller;
  token: StreamToken;
  types: ReadonlySet<EventType> | null;
  frame: StreamFrame | null;
  sink: StreamSink;
  cursor: Cursor;
  live: boolean;
  closed: boolean;
  heartbeat: NodeJS.Timeout;
  expiry: NodeJS.Timeout;
  /** Since when the connection has held more than it wants (its last write returned false); null once drained. */
  blockedSince: number | null;
  /** Called on drain or close: the backlog reader waiting to read its next page. */
  drained: (() => void) | null;
  /** The token check after a change: idle, running, or running with another change to check after it. */
  checking: "idle" | "running" | "again";
}

const HEARTBEAT_MS = 15_000;
const PAGE = 500;
/**
 * A resuming reader's backlog page: at most this many events are rendered and buffered for one
 * reader before its connection takes them (50 paused readers hold 50 pages, not 50 backlogs). Small,
 * because a paused connection still takes a few MB into the kernel's buffers, page by page, before it
 * pushes back, and each page's rows and frames are garbage the heap grows by until a full collection:
 * with 50 paused readers over 3 KB events, pages of 50 grew the server's RSS by 31 to 62 MB, pages of
 * 10 by 11 to 15 MB. A reader that does read gets its backlog at a few thousand events a second.
 */
const BACKLOG_PAGE = 10;
/** A live reader whose connection holds more than this is behind for good: it is disconnected. */
const MAX_BUFFERED_BYTES = 1024 * 1024;
/** A reader whose connection takes nothing for this long is disconnected too (checked with the heartbeat). */
const STALL_MS = 60_000;
const RESUME_WINDOW_HOURS = STREAM_RESUME_WINDOW_HOURS;

/** How soon the hub reads again when committed events wait behind an older transaction. */
const HELD_RETRY_MS = 20;
const READ_PACE_MS = 20;
let lastRead = 0;
let paced: NodeJS.Timeout | null = null;

const subscribers = new Set<Subscriber>();
/** Readers whose token went void: they get the next read (a read that starts after this) and then end. */
let voided = new Set<Subscriber>();
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
  if (sub.types && !sub.types.has(event.type)) return false;
  const { caller } = sub;
  // The audience rule every surface shares (lib/events/audience.ts); the grants read above hold svc:notifications.read only.
  return mayReceive(
    {
      clientId: caller.clientId,
      worldId: caller.worldId,
      status: null,
      scopes: caller.scopes,
      userId: caller.userId,
      via: "stream",
      granted: (userId, scope) => scope === "svc:notifications.read" && grants.has(`${userId}:${caller.clientId}`),
    },
    event,
  );
}

/** Whether the event ends this stream (after it was sent): the app suspended, the person's grant revoked. */
function ends(sub: Subscriber, event: Row): boolean {
  if (event.clientId !== sub.caller.clientId) return false;
  if (event.type === "app.status.changed") return (event.data as { status?: string }).status === "suspended";
  return event.type === "app.authorization.revoked" && sub.caller.userId !== null && sub.caller.userId === event.userId;
}

/** Each event's SSE frame, rendered once per read however many subscribers get it. */
type Frames = (event: Row) => string;

function frameOf(event: Row): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(render!(event))}\n\n`;
}

function framesOf(): Frames {
  const made = new Map<string, string>();
  return (event) => {
    let text = made.get(event.seq);
    if (text === undefined) {
      text = frameOf(event);
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
    out += (sub.frame ? sub.frame(event) : frames(event)) ?? "";
    if (ends(sub, event)) {
      ended = true;
      break;
    }
  }
  if (out) send(sub, out);
  if (ended) close(sub, "token_revoked");
}

/**
 * A backlog page to a resuming reader, one event per write, until its connection pushes back: the
 * rest of the page is neither rendered nor buffered, and is read again after the drain. A page
 * written whole left every paused reader's last page, and the socket's copy of it, in the server's
 * memory. Says whether it stopped for the connection.
 */
function deliverBacklog(sub: Subscriber, rows: readonly Row[], grants: ReadonlySet<string>): boolean {
  for (const event of rows) {
    if (sub.closed) return false;
    if (compare(event, sub.cursor) <= 0) continue;
    sub.cursor = { txid: event.txid, seq: event.seq };
    if (!visible(sub, event, grants)) continue;
    const frame = sub.frame ? sub.frame(event) : frameOf(event);
    const wantsMore = frame === null || send(sub, frame);
    if (ends(sub, event)) {
      close(sub, "token_revoked");
      return false;
    }
    if (!wantsMore) return !sub.closed;
  }
  return false;
}

/**
 * Writes to one reader, noting back-pressure: a backlog reader waits for the drain before its next
 * event (catchUp); a live one is written to until its connection holds MAX_BUFFERED_BYTES, then
 * disconnected, since the hub cannot wait for one reader without delaying all the others. Says
 * whether the connection takes more.
 */
function send(sub: Subscriber, chunk: string): boolean {
  if (sub.closed) return false;
  if (!sub.sink.write(chunk) && sub.blockedSince === null) {
    sub.blockedSince = Date.now();
    sub.sink.onDrain(() => {
      sub.blockedSince = null;
      sub.drained?.();
    });
  }
  if (sub.live && sub.sink.buffered() > MAX_BUFFERED_BYTES) close(sub, "slow_reader");
  return !sub.closed && sub.blockedSince === null;
}

/** Resolves once the reader's connection took what was buffered, or the stream closed. */
function drainOf(sub: Subscriber): Promise<void> {
  if (sub.blockedSince === null || sub.closed) return Promise.resolve();
  return new Promise((resolve) => {
    sub.drained = () => {
      sub.drained = null;
      resolve();
    };
  });
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
  const ending = voided;
  voided = new Set();
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
      for (const sub of ending) close(sub, "token_revoked");
      if (again || voided.size) wake();
    });
}

/**
 * Backlog pages being read and rendered at once in this process, over all resuming readers: many
 * readers resuming together (a restart, a network blip) cost one page of memory and one pool
 * connection at a time, not one each; the live feed never waits for them. A paused reader's
 * connection still takes a few MB into the kernel's buffers before it pushes back: 50 such readers
 * with 4 pages of 100 at once grew the server's RSS by 76 MB, one page at a time far less (BACKLOG_PAGE).
 */
const BACKLOG_READS_AT_ONCE = 1;
let backlogReads = 0;
const backlogWaiting: (() => void)[] = [];

async function withBacklogSlot<T>(work: () => Promise<T>): Promise<T> {
  if (backlogReads < BACKLOG_READS_AT_ONCE) backlogReads++;
  else await new Promise<void>((resolve) => backlogWaiting.push(resolve));
  try {
    return await work();
  } finally {
    // The slot passes straight to the next waiter, or is given back.
    const next = backlogWaiting.shift();
    if (next) next();
    else backlogReads--;
  }
}

/**
 * Reads a resuming subscriber's backlog, a page at a time under back-pressure, then lets it join
 * the live feed without a gap or a repeat.
 */
async function catchUp(sub: Subscriber): Promise<void> {
  for (;;) {
    const more = await withBacklogSlot(async () => {
      if (sub.closed) return false;
      const rows = await readAfter(sub.cursor, BACKLOG_PAGE);
      if (sub.closed) return false;
      const pushedBack = deliverBacklog(sub, rows, await notificationGrants(rows));
      return pushedBack || rows.length === BACKLOG_PAGE;
    });
    if (sub.closed) return;
    if (!more) break;
    await drainOf(sub);
    if (sub.closed) return;
  }
  // Join: the hub may be ahead of us; whatever lies between is read once more by us, in order.
  sub.live = true;
  if (head && compare(head, sub.cursor) > 0) {
    sub.live = false;
    return catchUp(sub);
  }
}

const CLOSE_MESSAGES: Record<CloseReason, string> = {
  token_expired: "the access token expired; reconnect with a new one and Last-Event-ID",
  token_revoked:
    "the access token is no longer valid (revoked, the app's secret rolled, the app suspended or deleted, or the person revoked the app)",
  slow_reader: "this reader fell too far behind; reconnect with Last-Event-ID to resume",
  server_closing: "the server is shutting down; reconnect with Last-Event-ID to resume",
};

/** Ends a stream; `reason` (the server's own decision) is named in a comment first. */
function close(sub: Subscriber, reason?: CloseReason): void {
  if (sub.closed) return;
  sub.closed = true;
  clearInterval(sub.heartbeat);
  clearTimeout(sub.expiry);
  subscribers.delete(sub);
  voided.delete(sub);
  sub.drained?.();
  // Nobody left to read for: the next subscriber's arrival sets the hub's place anew.
  if (!subscribers.size) head = null;
  if (reason) sub.sink.write(`: closed ${reason}: ${CLOSE_MESSAGES[reason]}\n\n`);
  sub.sink.end();
}

/**
 * Asks the API's token check again for a reader its change may concern. A change that arrives
 * while a check runs is checked after it: the running one may have read the state before it.
 * Queued as a microtask: every listener of the change (the token check's caches first) has run.
 */
function recheckToken(sub: Subscriber): void {
  if (sub.checking !== "idle") {
    sub.checking = "again";
    return;
  }
  sub.checking = "running";
  queueMicrotask(() => {
    sub.token
      .isStillValid()
      .then((valid) => {
        if (valid || sub.closed) return;
        // A live reader gets what committed up to now (the event that voided it among them) first.
        if (!sub.live) return close(sub, "token_revoked");
        voided.add(sub);
        wake();
      })
      .catch((error: Error) => logger.warn("event stream: token check failed", { error: error.message }))
      .finally(() => {
        const rerun = sub.checking === "again";
        sub.checking = "idle";
        if (rerun && !sub.closed) recheckToken(sub);
      });
  });
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
    if (change.kind === "event") return;
    for (const sub of subscribers) if (sub.token.isAffectedBy(change)) recheckToken(sub);
  });
  return {
    closeAll() {
      for (const sub of [...subscribers]) close(sub, "server_closing");
    },
  };
}

/** Open streams of this app in this process, and of this person among them (user tokens). */
export function streamCount(clientId: string, userId: number | null = null): { app: number; user: number } {
  let app = 0;
  let user = 0;
  for (const sub of subscribers) {
    if (sub.caller.clientId !== clientId) continue;
    app++;
    if (userId !== null && sub.caller.userId === userId) user++;
  }
  return { app, user };
}

/** The limits a new stream must fit: this process's, the app's, and the person's share of the app's. */
function checkStreamLimits(caller: StreamCaller): void {
  const retry = { headers: { "Retry-After": "5" } };
  // SPEC Errors has no 503: a full process answers like a full app, 429 with Retry-After.
  if (subscribers.size >= env().EVENT_STREAMS_MAX) {
    throw new AppError("rate_limited", "This server holds as many event streams as it may; retry shortly.", retry);
  }
  const open = streamCount(caller.clientId, caller.userId);
  if (open.app >= MAX_STREAMS_PER_APP) {
    throw new AppError("rate_limited", `An app may hold ${MAX_STREAMS_PER_APP} event streams at once; close one first.`, retry);
  }
  if (caller.userId !== null && open.user >= MAX_STREAMS_PER_USER) {
    throw new AppError(
      "rate_limited",
      `One person's tokens may hold ${MAX_STREAMS_PER_USER} of an app's ${MAX_STREAMS_PER_APP} event streams at once; close one first.`,
      retry,
    );
  }
}

/**
 * Opens a stream for `caller`: refused (429) beyond this process's EVENT_STREAMS_MAX, the app's
 * MAX_STREAMS_PER_APP or a person's MAX_STREAMS_PER_USER, 400 for a Last-Event-ID that cannot be
 * resumed. Returns the function that starts writing to the sink (after the response's headers
 * are out) and the one that ends it when the client goes away.
 */
export async function openEventStream(
  caller: StreamCaller,
  token: StreamToken,
  options: { types: readonly EventType[] | null; lastEventId: string | null; frame?: StreamFrame },
): Promise<{ start(sink: StreamSink): () => void }> {
  if (!render) throw new AppError("service_unavailable", "The event stream is not running in this process.");
  checkStreamLimits(caller);
  let cursor: Cursor;
  if (options.lastEventId !== null) {
    const found = await cursorOf(options.lastEventId);
    if (!found) {
      throw new AppError(
        "invalid_request",
        `Last-Event-ID names no event this stream can resume from (unknown, or older than ${RESUME_WINDOW_HOURS} hours); reconnect without it.`,
      );
    }
    cursor = found;
  } else {
    // From now: everything committed before this request is history.
    cursor = await currentHead();
  }
  // Again after the lookups: streams opened meanwhile count too.
  checkStreamLimits(caller);
  return {
    start(sink) {
      const sub: Subscriber = {
        caller,
        token,
        types: options.types && options.types.length ? new Set(options.types) : null,
        frame: options.frame ?? null,
        sink,
        cursor,
        live: false,
        closed: false,
        heartbeat: setInterval(() => {
          if (sub.blockedSince !== null && Date.now() - sub.blockedSince > STALL_MS) return close(sub, "slow_reader");
          send(sub, ": heartbeat\n\n");
        }, HEARTBEAT_MS),
        // setTimeout's longest wait is 2^31 - 1 ms (24.8 days); no token lives that long.
        expiry: setTimeout(() => close(sub, "token_expired"), Math.min(Math.max(0, token.expiresAtMs - Date.now()), 2 ** 31 - 1)),
        blockedSince: null,
        drained: null,
        checking: "idle",
      };
      sub.heartbeat.unref();
      sub.expiry.unref();
      subscribers.add(sub);
      // The retry hint and a first comment: the client knows the stream is open before any event.
      send(sub, `retry: 2000\n: connected\n\n`);
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
