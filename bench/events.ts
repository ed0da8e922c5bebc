/**
 * Case E: chat posts at a steady rate while 10 webhook endpoints and 200 event-stream
 * subscribers receive every one. Measures commit-to-receipt latency for both, deliveries per second,
 * lost events (every acknowledged post at every endpoint and subscriber), duplicates, the server's
 * CPU per delivery and its peak RSS (the group's sampler phase, bench/run.ts).
 *
 * Commit time: the event's `created_at` is whole seconds, so the bench takes the time the post's 201
 * came back as the commit (an upper bound: the statement committed before its answer was written).
 * Latency = receipt − that time; a receipt can come before the 201 is read (the event raced the
 * answer), which is clamped to 0 and counted ("early").
 */
import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import pg from "pg";
import type { BenchConfig } from "./config";
import type { PostOutcome, ReceiverSummary } from "./events-worker";
import type { LoadResult, LoadScenario } from "./load";
import { postmasterPid } from "./database-stats";
import { readCpuSeconds, readTreeCpuSeconds, ROOT } from "./processes";
import type { EventsResult } from "./report";
import { benchHandle, type SeedInfo } from "./seed-large";
import { clientCredentialsToken, type Discovery } from "./tokens";

/** The issue's set-up: 10 webhook endpoints and 200 stream subscribers. */
export const EVENT_WEBHOOKS = 10;
export const EVENT_STREAMS = 200;
/** lib/schemas/events.ts MAX_STREAMS_PER_APP (streams per app per process), and 5 endpoints per app. */
const STREAMS_PER_APP = 20;
const EVENT_TYPE = "chat.message.created";
/** After the last 201: wait until everything arrived, or until nothing new came for this long. */
const QUIET_MS = 5_000;
const SETTLE_MAX_MS = 60_000;
/** A post per user per 2 s at most (SPEC Limits): spread the posts so each user's are ≥ 4 s apart (server-side queueing under load brings them closer). */
const USER_SPACING_SECONDS = 4;

export interface EventsContext {
  config: BenchConfig;
  databaseUrl: string;
  origin: string;
  seed: SeedInfo;
  discovery?: Discovery;
  server?: { pid: number };
}

export interface Deps<C extends EventsContext> {
  needUserTokens(ctx: C): string[];
  platformCli(databaseUrl: string, args: string[], extraEnv?: Record<string, string>): Promise<Record<string, unknown>>;
  query<T extends pg.QueryResultRow>(url: string, sql: string, params?: unknown[]): Promise<T[]>;
  resetChatStamps(ctx: C): Promise<unknown>;
  Unavailable: new (message: string) => Error;
}

export interface Worker {
  pid: number;
  call<T>(cmd: string, args?: Record<string, unknown>): Promise<T>;
  stop(): Promise<void>;
}

/** A bench/events-worker.ts process, driven over IPC. */
export function forkWorker(): Worker {
  const child: ChildProcess = fork(path.join(ROOT, "bench", "events-worker.ts"), [], {
    cwd: ROOT,
    execArgv: ["--import", "tsx"],
    env: { ...process.env, NODE_ENV: "production" },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  let next = 0;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  child.on("message", (m: { id: number; result?: unknown; error?: string }) => {
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (m.error !== undefined) p?.reject(new Error(m.error));
    else p?.resolve(m.result);
  });
  child.on("exit", (code) => {
    for (const p of pending.values()) p.reject(new Error(`events worker exited (${code})`));
    pending.clear();
  });
  return {
    pid: child.pid!,
    call<T>(cmd: string, args: Record<string, unknown> = {}) {
      return new Promise<T>((resolve, reject) => {
        const id = next++;
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ id, cmd, args });
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.send({ id: next++, cmd: "stop", args: {} });
      const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** Webhook work not done yet (events not fanned out, attempts pending) that the previous cases left. */
async function queuedJobs<C extends EventsContext>(deps: Pick<Deps<C>, "query">, ctx: C): Promise<number> {
  const rows = await deps.query<{ n: string }>(
    ctx.databaseUrl,
    `SELECT (SELECT count(*) FROM "WebhookDelivery" WHERE state = 'pending')
          + (SELECT count(*) FROM "Event" e, "EventCursor" c WHERE c.name = 'webhooks' AND (e.txid, e.seq) > (c.txid, c.seq)) AS n`,
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * Waits (at most 3 minutes) until the webhook work earlier cases left is done, so a case's
 * endpoints hear only its own events and its CPU is its own; a note when that took a while.
 */
export async function drainWebhookWork<C extends EventsContext>(deps: Pick<Deps<C>, "query">, ctx: C): Promise<string | undefined> {
  const started = Date.now();
  let queued = await queuedJobs(deps, ctx);
  while (queued > 0 && Date.now() - started < 180_000) {
    await new Promise((r) => setTimeout(r, 1000));
    queued = await queuedJobs(deps, ctx);
  }
  return Date.now() - started > 1500 ? `queue drained in ${((Date.now() - started) / 1000).toFixed(0)} s first${queued ? ` (${queued} jobs still queued)` : ""}` : undefined;
}

const round = (n: number, digits = 1) => Number(n.toFixed(digits));

function toLoad(posted: PostOutcome, serverCpuSeconds: number | undefined): LoadResult {
  const l = posted.latencies;
  const at = (q: number) => (l.length ? l[Math.min(l.length - 1, Math.floor(q * l.length))]! : 0);
  const ok = posted.statusCounts["201"] ?? 0;
  const requests = posted.sent;
  return {
    duration: posted.durationSeconds,
    requests,
    ok,
    non2xx: Object.entries(posted.statusCounts).reduce((n, [code, c]) => n + (code.startsWith("2") ? 0 : c), 0),
    errors: posted.errors,
    timeouts: 0,
    rps: requests / posted.durationSeconds,
    okRps: ok / posted.durationSeconds,
    latency: { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: l.at(-1) ?? 0, mean: l.length ? l.reduce((a, b) => a + b, 0) / l.length : 0 },
    statusCounts: posted.statusCounts,
    warmupRequests: 0,
    ...(serverCpuSeconds !== undefined ? { serverCpuSeconds } : {}),
    ...(Object.keys(posted.samples).length ? { samples: posted.samples } : {}),
  };
}

function summarize(kind: string, s: ReceiverSummary, firstPostAt: number): EventsResult["webhooks"] {
  const span = s.lastReceipt === null ? 0 : (s.lastReceipt - firstPostAt) / 1000;
  return {
    receivers: s.receivers,
    delivered: s.delivered,
    perSecond: span > 0 ? round(s.delivered / span, 0) : 0,
    latencyMs: { p50: round(s.latency.p50), p90: round(s.latency.p90), p99: round(s.latency.p99), max: round(s.latency.max), mean: round(s.latency.mean) },
    fromSendMs: { p50: round(s.fromSend.p50), p99: round(s.fromSend.p99) },
    lost: s.lost,
    duplicates: s.duplicates,
    early: s.early,
    unacknowledged: s.unacknowledged,
    settledSeconds: round(s.settledSeconds),
    ...(kind === "stream" ? { ended: s.streamsEnded } : {}),
  };
}

/**
 * Case E at `rate` posts/s: `E` at --events-rate (the issue's 200/s, the row the committed run
 * has), and `E<rate>` for each rate of --events-curve, so the report shows latency against load.
 */
export function eventsCase<C extends EventsContext>(config: BenchConfig, deps: Deps<C>, id: string, rate: number) {
  return {
    id,
    name: `Events: chat posts at ${rate}/s with ${EVENT_WEBHOOKS} webhooks and ${EVENT_STREAMS} stream subscribers`,
    app: true,
    async prepare(ctx: C) {
      const tokens = deps.needUserTokens(ctx);
      const needed = Math.ceil(rate * USER_SPACING_SECONDS);
      if (tokens.length < needed) {
        throw new deps.Unavailable(`${tokens.length} signed-in users post ${Math.floor(tokens.length / USER_SPACING_SECONDS)}/s at most without a 429; ${rate}/s needs ${needed} (--signed-in)`);
      }
      if (!ctx.discovery || !ctx.server) throw new deps.Unavailable("sign-in service unavailable");
      const discovery = ctx.discovery;
      // Chat posts of earlier cases queued fan-outs; the case starts on an empty queue, so its
      // endpoints hear only its own posts and its CPU is its own.
      const drainNote = await drainWebhookWork(deps, ctx);

      // One reader app per 20 streams (the per-app limit), the first ten with a webhook endpoint each.
      const owner = benchHandle(1, ctx.seed.handleWidth);
      const appCount = Math.max(Math.ceil(EVENT_STREAMS / STREAMS_PER_APP), Math.ceil(EVENT_WEBHOOKS / 5));
      const apps: { clientId: string; clientSecret: string }[] = [];
      for (let i = 0; i < appCount; i += 5) {
        apps.push(
          ...(await Promise.all(
            Array.from({ length: Math.min(5, appCount - i) }, async (_, j) => {
              const created = await deps.platformCli(ctx.databaseUrl, [
                "apps", "create", "--name", `Bench events reader ${i + j + 1}`, "--type", "api", "--owner", owner, "--scope", "svc:chat.read", "--approve",
              ]);
              if (typeof created.client_id !== "string" || typeof created.client_secret !== "string") throw new Error("apps create --approve printed no client_secret");
              return { clientId: created.client_id, clientSecret: created.client_secret };
            }),
          )),
        );
      }

      const hooks = forkWorker();
      const streams = forkWorker();
      const poster = forkWorker();
      const workers = [hooks, streams, poster];
      const stopAll = () => Promise.all(workers.map((w) => w.stop())).then(() => undefined);
      try {
        const urls = await hooks.call<string[]>("hooks", { count: EVENT_WEBHOOKS });
        for (let i = 0; i < urls.length; i += 5) {
          await Promise.all(
            urls.slice(i, i + 5).map((url, j) =>
              deps.platformCli(ctx.databaseUrl, ["apps", "webhooks", "add", apps[(i + j) % apps.length]!.clientId, "--url", url, "--event", EVENT_TYPE], {
                WEBHOOKS_ALLOW_PRIVATE: "1",
              }),
            ),
          );
        }
        const appTokens = await Promise.all(apps.map((a) => clientCredentialsToken(discovery.token_endpoint, a.clientId, a.clientSecret)));
        const subscriptions = appTokens.map((token, i) => ({ token, count: Math.min(STREAMS_PER_APP, EVENT_STREAMS - i * STREAMS_PER_APP) })).filter((s) => s.count > 0);
        const opened = await streams.call<{ opened: number; failed: string[] }>("streams", { origin: ctx.origin, types: EVENT_TYPE, subscriptions });
        if (opened.failed.length) throw new Error(`${opened.failed.length} of ${EVENT_STREAMS} streams refused: ${opened.failed[0]}`);
        // Earlier posts (case 8a, the probe) must not make a user's first post here a 429.
        await deps.resetChatStamps(ctx);
        const serverPid = ctx.server.pid;
        const pgPid = await postmasterPid(ctx.databaseUrl).catch(() => undefined);
        const scenario: LoadScenario = { url: ctx.origin, connections: 0, duration: config.duration, warmup: 0, method: "POST", path: "/api/v1/global-chat/messages", mode: "fixed" };
        return {
          scenario,
          note: [`${urls.length} webhook endpoints and ${opened.opened} streams on ${apps.length} apps`, drainNote].filter(Boolean).join("; "),
          cleanup: stopAll,
          async run() {
            const cpu = async () => ({
              server: await readCpuSeconds(serverPid),
              pg: pgPid ? (await readTreeCpuSeconds(pgPid))?.total : undefined,
              bench: (await Promise.all(workers.map((w) => readCpuSeconds(w.pid)))).reduce<number | undefined>((a, b) => (a === undefined || b === undefined ? undefined : a + b), 0),
            });
            const before = await cpu();
            const startedAt = performance.timeOrigin + performance.now();
            const posted = await poster.call<PostOutcome>("post", { origin: ctx.origin, tokens, rate, duration: config.duration });
            const args = { acks: posted.acks, quietMs: QUIET_MS, maxMs: SETTLE_MAX_MS };
            const [hooked, streamed] = await Promise.all([hooks.call<ReceiverSummary>("report", args), streams.call<ReceiverSummary>("report", args)]);
            const after = await cpu();
            // The posting and the settle period: what `--profile`'s window for this case covers (bench/run.ts).
            scenario.duration = (performance.timeOrigin + performance.now() - startedAt) / 1000;
            const used = (k: "server" | "pg" | "bench") => (before[k] !== undefined && after[k] !== undefined ? after[k]! - before[k]! : undefined);
            const deliveries = hooked.delivered + streamed.delivered;
            const serverCpu = used("server");
            // Attempts not delivered: still queued (late, not lost: the settle period ended first) or failed.
            const states = await deps.query<{ state: string; n: string }>(
              ctx.databaseUrl,
              `SELECT d.state, count(*) AS n FROM "WebhookDelivery" d JOIN "WebhookEndpoint" w ON w.id = d."endpointId"
               WHERE w."clientId" = ANY($1) AND d.state <> 'delivered' GROUP BY d.state`,
              [apps.map((a) => a.clientId)],
            );
            const attempts = (state: string) => Number(states.find((r) => r.state === state)?.n ?? 0);
            // The next run of E (a DATABASE_URL reused) adds its own apps: these stop receiving.
            await deps.query(ctx.databaseUrl, `UPDATE "WebhookEndpoint" SET enabled = false WHERE "clientId" = ANY($1)`, [apps.map((a) => a.clientId)]);
            const events: EventsResult = {
              rate,
              posted: posted.sent,
              acknowledged: posted.acks.length,
              postsPerSecond: round(posted.acks.length / posted.durationSeconds),
              maxSendLagMs: round(posted.maxLagMs),
              webhooks: summarize("webhook", hooked, startedAt),
              stream: summarize("stream", streamed, startedAt),
              webhookAttemptsPending: attempts("pending"),
              webhookAttemptsFailed: states.reduce((n, r) => n + (r.state === "pending" ? 0 : Number(r.n)), 0),
              cpuSeconds: { server: serverCpu, postgres: used("pg"), bench: used("bench") },
              serverCpuMsPerDelivery: serverCpu !== undefined && deliveries > 0 ? (serverCpu * 1000) / deliveries : undefined,
            };
            const e = events;
            const note =
              `${e.acknowledged.toLocaleString("en-US")} posts acknowledged of ${e.posted.toLocaleString("en-US")} at ${rate}/s; ` +
              `webhooks p50 ${e.webhooks.latencyMs.p50} / p99 ${e.webhooks.latencyMs.p99} ms, ${e.webhooks.perSecond}/s, lost ${e.webhooks.lost}, duplicates ${e.webhooks.duplicates}; ` +
              `stream p50 ${e.stream.latencyMs.p50} / p99 ${e.stream.latencyMs.p99} ms, ${e.stream.perSecond}/s, lost ${e.stream.lost}, duplicates ${e.stream.duplicates}; ` +
              `server CPU ${e.serverCpuMsPerDelivery === undefined ? "–" : e.serverCpuMsPerDelivery.toFixed(3)} ms/delivery`;
            return { load: toLoad(posted, serverCpu), events, note };
          },
        };
      } catch (error) {
        await stopAll();
        throw error;
      }
    },
  };
}
