import { env } from "../env";
import { logger } from "../logger";
import { insertUsageBatch, type UsageBatch } from "../queries/usage";
import {
  GRANT_ROUTE_PREFIX,
  LATENCY_BUCKET_COUNT,
  latencyBucket,
  MAX_LOGGED_MESSAGE,
  MAX_LOGGED_PATH,
  UNAUTHENTICATED_ROUTE_PREFIX,
  type RequestLogEntry,
} from "../schemas/usage";

/**
 * Usage metering: every API request made with a verified token (an unknown
 * path or method included) and every token request naming a known client is counted here, in this process's memory, per app × route × minute (a counter per status and error
 * code, plus a fixed log-scale latency histogram), and written to PostgreSQL every USAGE_FLUSH_MS by
 * one additive upsert (lib/queries/usage.ts insertUsageBatch), so processes add up and a crash loses
 * at most the unflushed interval. SIGTERM flushes (lib/server/platform.ts stop()).
 *
 * The request path pays one Map lookup with a short string key, a few integer increments and one
 * small request-log object; nothing else (no database, no I/O). The request log keeps per app and
 * flush interval the last LOG_RECENT_PER_FLUSH requests and up to LOG_ERRORS_PER_FLUSH non-2xx ones,
 * so a flood cannot grow memory or the table without bound (the retention job trims the rest).
 */

/** Per app and flush interval: the newest requests kept for the log (the log keeps 1,000 per app). */
const LOG_RECENT_PER_FLUSH = 1000;
/** Per app and flush interval: non-2xx requests kept beyond those (the log keeps up to 10,000 per app). */
const LOG_ERRORS_PER_FLUSH = 2000;
/** Cells kept after failed flushes (database down); beyond this, new keys are dropped and counted. */
const MAX_CELLS = 200_000;

interface Cell {
  clientId: string;
  route: string;
  minute: number;
  /** status (2xx, no code) or `status code` → count */
  outcomes: Map<number | string, number>;
  latency: Uint32Array;
}

/** One app's log entries of the current interval: a ring of the newest, plus the errors. */
interface AppLog {
  ring: RequestLogEntry[];
  next: number;
  errors: RequestLogEntry[];
}

/** What the API's hook (lib/api/metering.ts) reports of one request: a log entry before its time and handle are known. */
export type ApiRequestUsage = Omit<RequestLogEntry, "atMs" | "userHandle">;

/** `token:<grant_type>` and `unauthenticated:<grant_type>` route names, built once each. */
const grantRoutes = new Map<string, string>();
const unauthenticatedRoutes = new Map<string, string>();

function routeOf(names: Map<string, string>, prefix: string, grantType: string): string {
  let route = names.get(grantType);
  if (route === undefined) {
    route = prefix + grantType;
    // Grant types come from requests: remember only a few (the known ones come first).
    if (names.size < 16) names.set(grantType, route);
  }
  return route;
}

export class UsageMeter {
  private cells = new Map<string, Cell>();
  /** client id → route → the cell being counted (the newest minute's): the request path's index into `cells`. */
  private current = new Map<string, Map<string, Cell>>();
  private logs = new Map<string, AppLog>();
  private dropped = 0;
  private flushing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(readonly enabled: boolean) {}

  /** Counts one API request of `clientId`'s token and keeps it for the request log. */
  recordApiRequest(clientId: string, usage: ApiRequestUsage, nowMs: number): void {
    if (!this.enabled) return;
    this.count(clientId, usage.route, usage.status, usage.errorCode, usage.latencyMs, nowMs);
    this.keep(clientId, usage, nowMs);
  }

  /** Keeps one request for `clientId`'s request log (within this interval's ring and error caps). */
  private keep(clientId: string, usage: ApiRequestUsage, nowMs: number): void {
    let log = this.logs.get(clientId);
    if (!log) {
      log = { ring: [], next: 0, errors: [] };
      this.logs.set(clientId, log);
    }
    if (usage.status >= 200 && usage.status < 300) {
      if (log.ring.length < LOG_RECENT_PER_FLUSH) log.ring.push(toLogEntry(usage, nowMs));
      else {
        // A full ring overwrites its oldest entry in place: under load, no object per request.
        fillLogEntry(log.ring[log.next]!, usage, nowMs);
        log.next = (log.next + 1) % LOG_RECENT_PER_FLUSH;
      }
    } else if (log.errors.length < LOG_ERRORS_PER_FLUSH) log.errors.push(toLogEntry(usage, nowMs));
  }

  /**
   * Counts one token request (`grantType` as sent: client_credentials, authorization_code,
   * refresh_token). `authenticated: false`: a failed request that carried no client authentication,
   * counted apart as the unauthenticated callers', not as the app's own.
   * With its `requestId` (the answer's X-Request-Id) it is also kept for the app's request log, under
   * the same route name, so a failed grant can be found by the id its client saw. With the
   * answer's `error_description` as `errorMessage`.
   */
  recordGrant(
    clientId: string,
    grantType: string,
    status: number,
    errorCode: string | null,
    latencyMs: number,
    nowMs: number,
    authenticated = true,
    requestId: string | null = null,
    errorMessage: string | null = null,
  ): void {
    if (!this.enabled) return;
    const route = authenticated
      ? routeOf(grantRoutes, GRANT_ROUTE_PREFIX, grantType)
      : routeOf(unauthenticatedRoutes, UNAUTHENTICATED_ROUTE_PREFIX, grantType);
    this.count(clientId, route, status, errorCode, latencyMs, nowMs);
    if (requestId !== null) {
      this.keep(
        clientId,
        { userId: null, method: "POST", route, status, errorCode, latencyMs, requestId, path: null, errorMessage, rateLimit: null, rateRemaining: null },
        nowMs,
      );
    }
  }

  private count(clientId: string, route: string, status: number, errorCode: string | null, latencyMs: number, nowMs: number): void {
    const minute = Math.floor(nowMs / 60_000);
    // The current minute's cell through two lookups with the strings the request already holds (the
    // token's client id, the route table's template): no key string is built per request.
    let byRoute = this.current.get(clientId);
    let cell = byRoute?.get(route);
    if (!cell || cell.minute !== minute) {
      const key = `${clientId}|${route}|${minute}`;
      cell = this.cells.get(key);
      if (!cell) {
        if (this.cells.size >= MAX_CELLS) {
          this.dropped++;
          return;
        }
        cell = { clientId, route, minute, outcomes: new Map(), latency: new Uint32Array(LATENCY_BUCKET_COUNT) };
        this.cells.set(key, cell);
      }
      if (!byRoute) {
        byRoute = new Map();
        this.current.set(clientId, byRoute);
      }
      byRoute.set(route, cell);
    }
    // Successes are keyed by the number itself: no string is built for the common case.
    const outcome = errorCode === null ? status : `${status} ${errorCode}`;
    cell.outcomes.set(outcome, (cell.outcomes.get(outcome) ?? 0) + 1);
    cell.latency[latencyBucket(latencyMs)]!++;
  }

  /** Writes everything counted so far (one statement); concurrent calls share one flush. */
  flush(): Promise<void> {
    if (!this.flushing) {
      this.flushing = this.write().finally(() => {
        this.flushing = null;
      });
    }
    return this.flushing;
  }

  private async write(): Promise<void> {
    if (this.cells.size === 0 && this.logs.size === 0) return;
    const cells = this.cells;
    const logs = this.logs;
    this.cells = new Map();
    this.current = new Map();
    this.logs = new Map();
    const batch = toBatch(cells, logs);
    try {
      await insertUsageBatch(batch);
    } catch (error) {
      // Counts go back for the next flush (additive, so nothing is counted twice); the request
      // log of this interval is given up rather than held while the database is away.
      for (const [key, cell] of cells) this.restore(key, cell);
      logger.warn("usage flush failed: counts kept for the next flush", { error: (error as Error).message });
    }
    if (this.dropped > 0) {
      logger.warn("usage meter full: requests not counted", { dropped: this.dropped });
      this.dropped = 0;
    }
  }

  private restore(key: string, cell: Cell): void {
    const current = this.cells.get(key);
    if (!current) {
      if (this.cells.size < MAX_CELLS) this.cells.set(key, cell);
      return;
    }
    for (const [outcome, n] of cell.outcomes) current.outcomes.set(outcome, (current.outcomes.get(outcome) ?? 0) + n);
    for (let i = 0; i < LATENCY_BUCKET_COUNT; i++) current.latency[i]! += cell.latency[i]!;
  }

  /** Flushes every `intervalMs` until stop(). */
  start(intervalMs: number): void {
    if (!this.enabled || this.timer) return;
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and writes what is left (graceful shutdown: no counted request is lost). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
    // A request counted while that flush ran is written by a second one.
    await this.flush();
  }
}

function toLogEntry(usage: ApiRequestUsage, nowMs: number): RequestLogEntry {
  return {
    atMs: nowMs,
    method: usage.method,
    route: usage.route,
    status: usage.status,
    errorCode: usage.errorCode,
    latencyMs: usage.latencyMs,
    requestId: usage.requestId,
    userId: usage.userId,
    userHandle: null,
    path: usage.path,
    errorMessage: usage.errorMessage,
    rateLimit: usage.rateLimit,
    rateRemaining: usage.rateRemaining,
  };
}

function fillLogEntry(entry: RequestLogEntry, usage: ApiRequestUsage, nowMs: number): void {
  entry.atMs = nowMs;
  entry.method = usage.method;
  entry.route = usage.route;
  entry.status = usage.status;
  entry.errorCode = usage.errorCode;
  entry.latencyMs = usage.latencyMs;
  entry.requestId = usage.requestId;
  entry.userId = usage.userId;
  entry.path = usage.path;
  entry.errorMessage = usage.errorMessage;
  entry.rateLimit = usage.rateLimit;
  entry.rateRemaining = usage.rateRemaining;
}

function toBatch(cells: Map<string, Cell>, logs: Map<string, AppLog>): UsageBatch {
  const batch: UsageBatch = {
    counts: { clientId: [], route: [], status: [], errorCode: [], minute: [], count: [] },
    latency: { clientId: [], route: [], minute: [], bucket: [], count: [] },
    log: {
      atMs: [],
      clientId: [],
      method: [],
      route: [],
      status: [],
      errorCode: [],
      latencyMs: [],
      requestId: [],
      userId: [],
      path: [],
      errorMessage: [],
      rateLimit: [],
      rateRemaining: [],
    },
  };
  const { counts, latency, log } = batch;
  for (const cell of cells.values()) {
    for (const [outcome, n] of cell.outcomes) {
      let status: number;
      let code = "";
      if (typeof outcome === "number") status = outcome;
      else {
        const space = outcome.indexOf(" ");
        status = Number(outcome.slice(0, space));
        code = outcome.slice(space + 1);
      }
      counts.clientId.push(cell.clientId);
      counts.route.push(cell.route);
      counts.status.push(status);
      counts.errorCode.push(code);
      counts.minute.push(cell.minute);
      counts.count.push(n);
    }
    for (let b = 0; b < LATENCY_BUCKET_COUNT; b++) {
      const n = cell.latency[b]!;
      if (n === 0) continue;
      latency.clientId.push(cell.clientId);
      latency.route.push(cell.route);
      latency.minute.push(cell.minute);
      latency.bucket.push(b);
      latency.count.push(n);
    }
  }
  for (const [clientId, app] of logs) {
    for (const e of app.ring) pushLog(log, clientId, e);
    for (const e of app.errors) pushLog(log, clientId, e);
  }
  return batch;
}

function pushLog(log: UsageBatch["log"], clientId: string, e: RequestLogEntry): void {
  log.atMs.push(e.atMs);
  log.clientId.push(clientId);
  log.method.push(e.method);
  log.route.push(e.route);
  log.status.push(e.status);
  log.errorCode.push(e.errorCode);
  log.latencyMs.push(Math.round(e.latencyMs * 1000) / 1000);
  log.requestId.push(e.requestId);
  log.userId.push(e.userId);
  // Cut here, at flush time, not on the request path (lib/schemas/usage.ts MAX_LOGGED_*).
  log.path.push(e.path === null ? null : e.path.slice(0, MAX_LOGGED_PATH));
  log.errorMessage.push(e.errorMessage === null ? null : e.errorMessage.slice(0, MAX_LOGGED_MESSAGE));
  log.rateLimit.push(e.rateLimit);
  log.rateRemaining.push(e.rateRemaining);
}

const store = globalThis as unknown as { __platformUsageMeter?: UsageMeter };

/**
 * The process's meter, on globalThis like the database client: server.ts and Next's bundled route
 * modules (app/api/v1 under `next dev`) are two module graphs in one process and must share it.
 * METERING is read once, here.
 */
export function usageMeter(): UsageMeter {
  store.__platformUsageMeter ??= new UsageMeter(env().METERING);
  return store.__platformUsageMeter;
}
