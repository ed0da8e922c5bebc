import client from "prom-client";

/**
 * This process's metrics in Prometheus's text exposition format, on one
 * prom-client registry: HTTP requests and latency by route template and status, token grants,
 * which path answered token requests and hosted pages (the fast paths; tests prove with them that a
 * fast path answered, without a header clients would see), the change channel, webhook deliveries,
 * the database pool, and prom-client's default process metrics (memory, event-loop lag, GC).
 * Served by `GET /metrics` behind METRICS_TOKEN and/or on METRICS_PORT (lib/server/platform.ts).
 *
 * Every label value comes from a fixed set or from a table the code declares (the API's route
 * table, the sign-in service's routes): a request can never add a series. Hot paths count through
 * children bound once (per route and status, per token path), not by building label objects per
 * request.
 *
 * Metrics live in memory, per process: with WEB_CONCURRENCY > 1 each scrape reads the worker that
 * took the connection (Prometheus sums the series of every target).
 */

/** Which path answered a token endpoint request (lib/oidc/index.ts). */
const TOKEN_PATHS = ["client_credentials_fast", "refresh_fast", "oidc_provider"] as const;
export type TokenPath = (typeof TOKEN_PATHS)[number];

/** Which path answered a GET of the hosted login and consent page `/interaction/:uid` (lib/server/platform.ts). */
const HOSTED_PAGE_PATHS = ["fast", "next"] as const;
export type HostedPagePath = (typeof HOSTED_PAGE_PATHS)[number];

/** The grant types the platform offers; anything else a client sends is counted as "other". */
const GRANT_TYPES = ["client_credentials", "authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code", "other"] as const;
/** OAuth error codes (RFC 6749 §5.2, RFC 8628 §3.5); anything else is "other_error". */
const GRANT_RESULTS = [
  "success",
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "unauthorized_client",
  "unsupported_grant_type",
  "invalid_scope",
  "authorization_pending",
  "slow_down",
  "access_denied",
  "expired_token",
  "server_error",
  "temporarily_unavailable",
  "other_error",
] as const;

/** What happened to one webhook attempt (lib/events/worker.ts). */
const DELIVERY_RESULTS = ["delivered", "failed", "skipped"] as const;
export type DeliveryResult = (typeof DELIVERY_RESULTS)[number];

/**
 * The delivery loop's trips to the database (lib/events/worker.ts), each one transaction: a fan-out
 * batch, loading what it took, claiming due attempts, recording delivered attempts, recording a
 * failed one (and its retry), renewing leases, handing attempts back.
 */
const WEBHOOK_QUEUE_STEPS = ["fanout", "load", "claim", "record", "record_failure", "renew", "unlock"] as const;
export type WebhookQueueStep = (typeof WEBHOOK_QUEUE_STEPS)[number];

const MCP_PATHS = ["fast", "sdk"] as const;
type McpPath = (typeof MCP_PATHS)[number];

/** Seconds; from well under a millisecond (a cached read) to the 60 s request timeout. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

function createMetrics() {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });

  const tokenRequests = new client.Counter({
    name: "platform_token_requests_total",
    help: "Token endpoint requests by the path that answered them: a fast path (lib/oidc/client-credentials.ts, refresh-grant.ts) or oidc-provider.",
    labelNames: ["path"] as const,
    registers: [registry],
  });
  const hostedPageRequests = new client.Counter({
    name: "platform_hosted_page_requests_total",
    help: "GETs of the hosted login and consent page by the path that answered them: the server's own renderer (lib/server/hosted-page.ts) or Next.",
    labelNames: ["path"] as const,
    registers: [registry],
  });
  const httpRequests = new client.Counter({
    name: "platform_http_requests_total",
    help: "HTTP requests answered, by route template (never the raw path) and status.",
    labelNames: ["route", "status"] as const,
    registers: [registry],
  });
  const httpDuration = new client.Histogram({
    name: "platform_http_request_duration_seconds",
    help: "Time from a request's arrival to its response's end (an event stream: its lifetime), by route template and status.",
    labelNames: ["route", "status"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const tokenGrants = new client.Counter({
    name: "platform_token_grants_total",
    help: "Token endpoint grants by grant type and result (success, or the OAuth error code).",
    labelNames: ["grant_type", "result"] as const,
    registers: [registry],
  });
  const changeReconnects = new client.Counter({
    name: "platform_change_channel_reconnects_total",
    help: "Times the change channel (LISTEN, lib/database/changes.ts) was lost and listened again; every cache was dropped each time.",
    registers: [registry],
  });
  const changeUp = new client.Gauge({
    name: "platform_change_channel_up",
    help: "1 while the change channel is connected and listening, else 0 (caches then rely on their TTLs).",
    registers: [registry],
  });
  const changeLag = new client.Gauge({
    name: "platform_change_channel_lag_seconds",
    help: "Round trip of the latest heartbeat on the listening connection: how long a notification waits at least before this process hears it.",
    registers: [registry],
  });
  const changeDeaf = new client.Gauge({
    name: "platform_change_channel_deaf",
    help: "1 while the change channel's LISTEN does not hear this process's own probe (a transaction pooler without DATABASE_DIRECT_URL): caches fall back to short lifetimes.",
    registers: [registry],
  });
  const deliveries = new client.Counter({
    name: "platform_webhook_deliveries_total",
    help: "Webhook attempts recorded by this process: delivered (2xx), failed (retried or given up), skipped (endpoint disabled or gone).",
    labelNames: ["result"] as const,
    registers: [registry],
  });
  const queueTransactions = new client.Counter({
    name: "platform_webhook_queue_transactions_total",
    help: "Transactions the webhook delivery loop ran, by step: fan-out batches, loads, claims, recordings of delivered attempts (one per batch), of failed ones (one each), lease renewals, hand-backs.",
    labelNames: ["step"] as const,
    registers: [registry],
  });

  const mcpToolCalls = new client.Counter({
    name: "platform_mcp_tool_calls_total",
    help: "MCP tools/call requests answered by this process (lib/api/mcp), by tool and outcome: success, or the API error code the call answered.",
    labelNames: ["tool", "outcome"] as const,
    registers: [registry],
  });

  const mcpRequests = new client.Counter({
    name: "platform_mcp_requests_total",
    help: "POSTs to /mcp past its edge checks, by the path that answered: fast (a single tools/call of an API tool, lib/api/mcp/http.ts) or sdk (the MCP SDK's server).",
    labelNames: ["path"] as const,
    registers: [registry],
  });

  // Fixed label sets, created at load: a scrape shows every series from 0.
  const bound = <T extends string>(counter: client.Counter<T>, ...values: string[]) => {
    const child = counter.labels(...values);
    child.inc(0);
    return child;
  };
  const tokenPathChildren = new Map(TOKEN_PATHS.map((p) => [p, bound(tokenRequests, p)]));
  const hostedPageChildren = new Map(HOSTED_PAGE_PATHS.map((p) => [p, bound(hostedPageRequests, p)]));
  const mcpPathChildren = new Map(MCP_PATHS.map((p) => [p, bound(mcpRequests, p)]));
  const deliveryChildren = new Map(DELIVERY_RESULTS.map((r) => [r, bound(deliveries, r)]));
  const queueStepChildren = new Map(WEBHOOK_QUEUE_STEPS.map((step) => [step, bound(queueTransactions, step)]));
  // Grants: bound here, shown once counted (5 types × 14 results would be 70 series of zeros).
  const grantChildren = new Map<string, Map<string, client.Counter.Internal>>();
  for (const type of GRANT_TYPES) grantChildren.set(type, new Map(GRANT_RESULTS.map((r) => [r, tokenGrants.labels(type, r)])));
  changeReconnects.inc(0);
  changeUp.set(0);
  changeDeaf.set(0);

  return {
    registry,
    tokenPathChildren,
    hostedPageChildren,
    mcpPathChildren,
    deliveryChildren,
    queueStepChildren,
    grantChildren,
    httpRequests,
    httpDuration,
    mcpToolCalls,
    changeReconnects,
    changeUp,
    changeLag,
    changeDeaf,
    changeChannelDeaf: false,
    /** Gauges registered by start-up (pools, queues): replaced, not duplicated, when registered again. */
    gauges: new Map<string, () => void>(),
    changeChannelListening: false,
  };
}

type Metrics = ReturnType<typeof createMetrics>;
// On globalThis: server.ts and Next's bundled server code are two module graphs in one process;
// both count into one registry.
const store = globalThis as unknown as { __platformMetrics?: Metrics };
const metrics = (store.__platformMetrics ??= createMetrics());

export function countTokenRequest(path: TokenPath): void {
  metrics.tokenPathChildren.get(path)!.inc();
}

export function countHostedPageRequest(path: HostedPagePath): void {
  metrics.hostedPageChildren.get(path)!.inc();
}

/**
 * One token grant's outcome: `grantType` as the client sent it, `error` the OAuth error code of a
 * failed one (null: success). Unknown values are folded into "other" / "other_error".
 */
export function countTokenGrant(grantType: string, error: string | null): void {
  const byResult = metrics.grantChildren.get(grantType) ?? metrics.grantChildren.get("other")!;
  (byResult.get(error ?? "success") ?? byResult.get("other_error")!).inc();
}

/**
 * One MCP tool call's outcome. `tool` is a name from the tool catalog and `outcome` "success" or an
 * API error code (ERROR_STATUS's keys): both bounded sets, so the series stay few.
 */
export function countMcpRequest(path: McpPath): void {
  metrics.mcpPathChildren.get(path)!.inc();
}

export function countMcpToolCall(tool: string, outcome: string): void {
  metrics.mcpToolCalls.labels(tool, outcome).inc();
}

export function countWebhookDelivery(result: DeliveryResult, n = 1): void {
  if (n > 0) metrics.deliveryChildren.get(result)!.inc(n);
}

export function countWebhookQueueTransaction(step: WebhookQueueStep): void {
  metrics.queueStepChildren.get(step)!.inc();
}

/** The change channel (lib/database/changes.ts): listening now, lost, or a heartbeat's round trip. */
export const changeChannelMetrics = {
  listening(reconnect: boolean): void {
    metrics.changeChannelListening = true;
    metrics.changeUp.set(1);
    if (reconnect) metrics.changeReconnects.inc();
  },
  lost(): void {
    metrics.changeChannelListening = false;
    metrics.changeUp.set(0);
  },
  heartbeat(seconds: number): void {
    metrics.changeLag.set(seconds);
  },
  /** LISTEN does not hear this process's own probe (part 1): the process serves, with short cache lifetimes. */
  deaf(deaf: boolean): void {
    metrics.changeChannelDeaf = deaf;
    metrics.changeDeaf.set(deaf ? 1 : 0);
  },
};

/**
 * The change channel as GET /readyz reports it: down (not connected and listening), deaf (listening,
 * but its own probe went unheard: the process serves with short cache lifetimes), or up.
 */
export function changeChannelState(): "up" | "deaf" | "down" {
  if (!metrics.changeChannelListening) return "down";
  return metrics.changeChannelDeaf ? "deaf" : "up";
}

/**
 * A series of HTTP metrics for one route template, its children bound per status on first use
 * (at most one per status code the route answers), so counting a request builds nothing.
 */
export class HttpRoute {
  private readonly byStatus = new Map<number, { count: client.Counter.Internal; duration: client.Histogram.Internal<"route" | "status"> }>();
  constructor(readonly template: string) {}

  observe(status: number, seconds: number): void {
    let children = this.byStatus.get(status);
    if (!children) {
      const code = status >= 100 && status < 600 ? String(status) : "other";
      children = { count: metrics.httpRequests.labels(this.template, code), duration: metrics.httpDuration.labels(this.template, code) };
      this.byStatus.set(status, children);
    }
    children.count.inc();
    children.duration.observe(seconds);
  }
}

/** One HttpRoute per template, shared by every caller that names it. */
const routes = new Map<string, HttpRoute>();
export function httpRoute(template: string): HttpRoute {
  let route = routes.get(template);
  if (!route) routes.set(template, (route = new HttpRoute(template)));
  return route;
}

/** What a pg pool reports (pg.Pool's counts). */
interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/**
 * The database pool's use, read at each scrape: connections open and idle, and requests waiting
 * for one. `name` labels it (primary; a replica's pool may be added the same way).
 */
export function watchDatabasePool(name: string, pool: PoolCounts, max: number): void {
  const existing = metrics.registry.getSingleMetric("platform_database_pool_connections") as client.Gauge<"pool" | "state"> | undefined;
  const gauge =
    existing ??
    new client.Gauge({
      name: "platform_database_pool_connections",
      help: "Database pool connections by pool and state: total (open), idle, waiting (callers queued for a connection), max (the pool's size).",
      labelNames: ["pool", "state"] as const,
      registers: [metrics.registry],
      collect() {
        for (const read of metrics.gauges.values()) read();
      },
    });
  const total = gauge.labels(name, "total");
  const idle = gauge.labels(name, "idle");
  const waiting = gauge.labels(name, "waiting");
  gauge.labels(name, "max").set(max);
  metrics.gauges.set(`pool:${name}`, () => {
    total.set(pool.totalCount);
    idle.set(pool.idleCount);
    waiting.set(pool.waitingCount);
  });
}

/** The webhook backlog over all processes (lib/events/worker.ts): events waiting, and how long the oldest work has waited. */
export interface WebhookBacklog {
  events: number;
  oldestSeconds: number;
}

/**
 * Webhook work, read at each scrape: attempts this process holds (queued, running or waiting to be
 * recorded), pending attempts in the database (`pending()`, bounded), and the backlog (`backlog()`:
 * one statement for both of its gauges). A read that fails (null) leaves a gauge at its last value.
 */
export function watchWebhookQueue(held: () => number, pending: () => Promise<number | null>, backlog: () => Promise<WebhookBacklog | null>): void {
  for (const name of ["platform_webhook_queue_depth", "platform_webhook_backlog_events", "platform_webhook_backlog_oldest_seconds"]) {
    if (metrics.registry.getSingleMetric(name)) metrics.registry.removeSingleMetric(name);
  }
  new client.Gauge({
    name: "platform_webhook_queue_depth",
    help: "Webhook attempts waiting: held by this process (queued, running, being recorded), and pending in the database (all processes; counted up to 100000).",
    labelNames: ["scope"] as const,
    registers: [metrics.registry],
    async collect() {
      this.labels("process").set(held());
      const count = await pending().catch(() => null);
      if (count !== null) this.labels("database").set(count);
    },
  });
  // Both backlog gauges come from one read per scrape.
  let read: { at: number; value: Promise<WebhookBacklog | null> } | null = null;
  const current = () => {
    if (!read || Date.now() - read.at > 1000) read = { at: Date.now(), value: backlog().catch(() => null) };
    return read.value;
  };
  new client.Gauge({
    name: "platform_webhook_backlog_events",
    help: "Events waiting to reach their webhook endpoints, all processes: not fanned out yet, or with an attempt due and not delivered (each counted up to 100000).",
    registers: [metrics.registry],
    async collect() {
      const value = await current();
      if (value) this.set(value.events);
    },
  });
  new client.Gauge({
    name: "platform_webhook_backlog_oldest_seconds",
    help: "How long the oldest waiting webhook work has waited, all processes: the oldest event not fanned out yet, or the attempt due the longest; 0 when nothing waits.",
    registers: [metrics.registry],
    async collect() {
      const value = await current();
      if (value) this.set(value.oldestSeconds);
    },
  });
}

export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** Every metric, as `GET /metrics` answers (text/plain; version=0.0.4). */
export function renderMetrics(): Promise<string> {
  return metrics.registry.metrics();
}

/**
 * Issue 30, read replicas (lib/database/replicas.ts): each replica's health and lag as the last
 * check saw them, the replica-routable reads by the pool that answered them, and the reads a
 * replica failed that the primary answered. Registered at start-up only when replicas are
 * configured (labels: "primary" and the replicas' names, replica1…: never a URL).
 */
export function replicaMetrics(names: readonly string[]) {
  // Registered once per process (both module graphs share the registry), found again after.
  const gauge = (name: string, help: string, label: string) =>
    (metrics.registry.getSingleMetric(name) as client.Gauge<string> | undefined) ??
    new client.Gauge({ name, help, labelNames: [label], registers: [metrics.registry] });
  const counter = (name: string, help: string, label: string) =>
    (metrics.registry.getSingleMetric(name) as client.Counter<string> | undefined) ??
    new client.Counter({ name, help, labelNames: [label], registers: [metrics.registry] });
  const up = gauge(
    "platform_database_replica_up",
    "1 while the read replica answers and is at most REPLICA_MAX_LAG_SECONDS behind the primary (reads may go to it), else 0.",
    "replica",
  );
  const lag = gauge(
    "platform_database_replica_lag_seconds",
    "How far the replica's replay is behind the primary's WAL, in seconds (0 when it has replayed everything; +Inf when unreachable).",
    "replica",
  );
  const reads = counter(
    "platform_database_routed_reads_total",
    "Replica-routable API reads (profiles, stats, directory, chat history, notifications) by the pool that answered them.",
    "pool",
  );
  const fallbacks = counter(
    "platform_database_replica_fallbacks_total",
    "Reads sent to a replica that failed there and were answered by the primary.",
    "replica",
  );
  const readsOf = new Map(["primary", ...names].map((name) => [name, reads.labels(name)]));
  for (const child of readsOf.values()) child.inc(0);
  return {
    reads: (pool: string) => readsOf.get(pool)!,
    replica(name: string) {
      const fallback = fallbacks.labels(name);
      fallback.inc(0);
      const upChild = up.labels(name);
      const lagChild = lag.labels(name);
      upChild.set(0);
      lagChild.set(Infinity);
      return {
        fallback: () => fallback.inc(),
        state(healthy: boolean, lagSeconds: number) {
          upChild.set(healthy ? 1 : 0);
          lagChild.set(lagSeconds);
        },
      };
    },
  };
}
