/**
 * Case W: what one webhook delivery costs, at saturation. A backlog of `chat.message.created`
 * events is committed at once (the live chat's newest messages written again as events, in one
 * transaction, through the Event table's one writer: the trigger announces them and the real
 * fan-out picks them up), for 10 endpoints on 5 apps whose receivers are a bench/events-worker.ts
 * process on this machine, as case E's are. The case measures from the commit until every
 * endpoint has every event and every attempt is recorded:
 *
 * - sustained deliveries per second (delivered ÷ (last receipt − commit));
 * - the app process's CPU per delivery (from /proc), and so deliveries per app-core-second;
 * - what PostgreSQL spends per delivery (bench/database-stats.ts: statements, transactions, CPU
 *   of all its processes, WAL);
 * - lost (an endpoint that never got an event) and duplicates (an event twice at one endpoint).
 *
 * The insert itself is left out: the database meter and the CPU are read after the INSERT ran and
 * before its COMMIT. The bench's own polls for "every attempt recorded" are counted and taken off
 * the statements and transactions.
 */
import pg from "pg";
import { MESSAGE_COLUMNS } from "../lib/queries/chat";
import { insertEventSql } from "../lib/queries/events";
import { LIVE_WORLD_ID } from "../lib/schemas/sandboxes";
import type { BenchConfig } from "./config";
import { counterDelta, DatabaseMeter, readStatements, statementDelta } from "./database-stats";
import { drainWebhookWork, forkWorker, type Deps, type EventsContext } from "./events";
import type { ReceiverSummary } from "./events-worker";
import type { LoadResult, LoadScenario } from "./load";
import { readCpuSeconds, readCpuTimes } from "./processes";
import type { DeliveryCostResult } from "./report";
import { benchHandle } from "./seed-large";

const APPS = 5;
const ENDPOINTS_PER_APP = 2;
/** Events in the backlog per second of --duration (10 endpoints: 3,000 deliveries per second of it). */
const EVENTS_PER_DURATION_SECOND = 300;
const EVENT_TYPE = "chat.message.created";
/** Stop waiting when nothing new arrived for this long, or after this long in all. */
const QUIET_MS = 10_000;
const SETTLE_MAX_MS = 300_000;
const POLL_MS = 100;
/** Statements shown in the report, the costliest first. */
const TOP_STATEMENTS = 8;

/**
 * The newest live chat messages as `chat.message.created` events, with the data a chat post's
 * statement stores (lib/queries/chat.ts POST_SQL: to_jsonb of the same columns).
 */
const BACKLOG_SQL = `${insertEventSql(
  { type: `'${EVENT_TYPE}'`, worldId: String(LIVE_WORLD_ID), data: "to_jsonb(posted)" },
  `(SELECT ${MESSAGE_COLUMNS} FROM "ChatMessage" m JOIN "User" u ON u.id = m."authorId"
      WHERE m."worldId" BETWEEN ${LIVE_WORLD_ID} AND ${LIVE_WORLD_ID} ORDER BY m."worldId" DESC, m.id DESC LIMIT $1) AS posted`,
)}
    RETURNING data->>'id' AS message_id`;

/** The case's attempts by state: whether every one is recorded. */
const STATES_SQL = `SELECT count(*) FILTER (WHERE state = 'pending')::int AS pending, count(*) FILTER (WHERE state = 'delivered')::int AS delivered,
  count(*) FILTER (WHERE state NOT IN ('pending', 'delivered'))::int AS failed
  FROM "WebhookDelivery" WHERE "clientId" = ANY ($1)`;

const round = (n: number, digits = 1) => Number(n.toFixed(digits));

export function deliveryCostCase<C extends EventsContext>(config: BenchConfig, deps: Deps<C>) {
  return {
    id: "W",
    name: `Webhook delivery cost: a backlog to ${APPS * ENDPOINTS_PER_APP} endpoints on ${APPS} apps, at saturation`,
    app: true,
    async prepare(ctx: C) {
      if (!ctx.server) throw new deps.Unavailable("no server");
      const available = Number((await deps.query<{ n: string }>(ctx.databaseUrl, `SELECT count(*) AS n FROM "ChatMessage" WHERE "worldId" = ${LIVE_WORLD_ID}`))[0]?.n ?? 0);
      const events = Math.min(available, Math.round(EVENTS_PER_DURATION_SECOND * config.duration));
      if (events < 100) throw new deps.Unavailable(`${available} live chat messages; the backlog needs at least 100 (--messages)`);
      const drainNote = await drainWebhookWork(deps, ctx);

      const owner = benchHandle(1, ctx.seed.handleWidth);
      const apps = await Promise.all(
        Array.from({ length: APPS }, async (_, i) => {
          const created = await deps.platformCli(ctx.databaseUrl, [
            "apps", "create", "--name", `Bench delivery cost ${i + 1}`, "--type", "api", "--owner", owner, "--scope", "svc:chat.read", "--approve",
          ]);
          if (typeof created.client_id !== "string") throw new Error("apps create printed no client_id");
          return created.client_id;
        }),
      );
      const hooks = forkWorker();
      try {
        const urls = await hooks.call<string[]>("hooks", { count: APPS * ENDPOINTS_PER_APP });
        await Promise.all(
          urls.map((url, i) =>
            deps.platformCli(ctx.databaseUrl, ["apps", "webhooks", "add", apps[i % APPS]!, "--url", url, "--event", EVENT_TYPE], { WEBHOOKS_ALLOW_PRIVATE: "1" }),
          ),
        );
      } catch (error) {
        await hooks.stop();
        throw error;
      }
      const serverPid = ctx.server.pid;
      const scenario: LoadScenario = { url: ctx.origin, connections: 0, duration: config.duration, warmup: 0, path: "/", mode: "fixed" };
      const endpoints = APPS * ENDPOINTS_PER_APP;
      return {
        scenario,
        note: [`${events.toLocaleString("en-US")} events × ${endpoints} endpoints on ${APPS} apps`, drainNote].filter(Boolean).join("; "),
        cleanup: () => hooks.stop(),
        async run(): Promise<{ load: LoadResult; deliveries: DeliveryCostResult; note: string }> {
          const client = new pg.Client({ connectionString: ctx.databaseUrl });
          await client.connect();
          const meter = await DatabaseMeter.open([{ url: ctx.databaseUrl }]);
          let polls = 0;
          try {
            await client.query("BEGIN");
            const { rows } = await client.query<{ message_id: string }>(BACKLOG_SQL, [events]);
            const cpu = async () => ({ server: await readCpuSeconds(serverPid), split: await readCpuTimes(serverPid), bench: await readCpuSeconds(hooks.pid) });
            const statementsBefore = await readStatements(ctx.databaseUrl);
            const before = { cpu: await cpu(), database: await meter.read() };
            await client.query("COMMIT");
            const committedAt = performance.timeOrigin + performance.now();
            const acks = rows.map((r): [string, number, number] => [r.message_id, committedAt, committedAt]);
            const received = await hooks.call<ReceiverSummary>("report", { acks, quietMs: QUIET_MS, maxMs: SETTLE_MAX_MS });
            // Received is not recorded: the outcomes are written up to a flush later.
            const expected = rows.length * endpoints;
            let states = { pending: 0, delivered: 0, failed: 0 };
            const deadline = Date.now() + 30_000;
            for (;;) {
              polls++;
              states = (await client.query<typeof states>(STATES_SQL, [apps])).rows[0]!;
              if ((states.pending === 0 && states.delivered + states.failed >= expected) || Date.now() > deadline) break;
              await new Promise((r) => setTimeout(r, POLL_MS));
            }
            const after = { cpu: await cpu(), database: await meter.read() };
            const statements = statementDelta(statementsBefore, await readStatements(ctx.databaseUrl)).filter((st) => st.query !== STATES_SQL);
            // Every case after this one starts on an empty queue with its own endpoints.
            await client.query(`UPDATE "WebhookEndpoint" SET enabled = false WHERE "clientId" = ANY ($1)`, [apps]);
            scenario.duration = (performance.timeOrigin + performance.now() - committedAt) / 1000;

            const database = counterDelta(before.database, after.database);
            // The polls above are the bench's, not the pipeline's: one statement and one transaction each.
            if (database.statements !== undefined) database.statements -= polls;
            database.transactions -= polls;
            const used = (k: "server" | "bench") => (before.cpu[k] !== undefined && after.cpu[k] !== undefined ? after.cpu[k]! - before.cpu[k]! : undefined);
            const seconds = received.lastReceipt === null ? 0 : (received.lastReceipt - committedAt) / 1000;
            const delivered = received.delivered;
            const serverCpu = used("server");
            const serverSystem = before.cpu.split && after.cpu.split ? after.cpu.split.system - before.cpu.split.system : undefined;
            const perDelivery = (total: number | undefined, scale = 1) => (total !== undefined && delivered > 0 ? (total * scale) / delivered : undefined);
            const serverCpuMs = perDelivery(serverCpu, 1000);
            const deliveries: DeliveryCostResult = {
              apps: APPS,
              endpoints,
              events: rows.length,
              expected,
              delivered,
              seconds: round(seconds, 2),
              perSecond: seconds > 0 ? round(delivered / seconds, 0) : 0,
              latencyMs: { p50: round(received.latency.p50), p99: round(received.latency.p99), max: round(received.latency.max) },
              lost: received.lost,
              duplicates: received.duplicates,
              attemptsFailed: states.failed,
              attemptsPending: states.pending,
              cpuSeconds: { server: serverCpu, serverSystem, postgres: database.cpuSeconds, bench: used("bench") },
              ...(serverCpuMs !== undefined ? { serverCpuMsPerDelivery: serverCpuMs, deliveriesPerAppCoreSecond: round(1000 / serverCpuMs, 0) } : {}),
              database: {
                ...(database.statements !== undefined ? { queries: perDelivery(database.statements) } : {}),
                ...(database.execMs !== undefined ? { execMs: perDelivery(database.execMs) } : {}),
                ...(database.cpuSeconds !== undefined ? { cpuMs: perDelivery(database.cpuSeconds, 1000) } : {}),
                transactions: perDelivery(database.transactions) ?? 0,
                ...(database.walBytes !== undefined ? { walBytes: perDelivery(database.walBytes) } : {}),
              },
              statements: statements.slice(0, TOP_STATEMENTS).map((st) => ({
                query: st.query.replace(/\s+/g, " ").trim().slice(0, 140),
                calls: st.calls,
                perDelivery: perDelivery(st.calls) ?? 0,
                msPerDelivery: perDelivery(st.ms) ?? 0,
                rowsPerCall: st.rows / st.calls,
                walBytesPerDelivery: perDelivery(st.walBytes) ?? 0,
              })),
            };
            const load: LoadResult = {
              duration: seconds,
              requests: delivered,
              ok: delivered,
              non2xx: 0,
              errors: received.lost,
              timeouts: 0,
              rps: deliveries.perSecond,
              okRps: deliveries.perSecond,
              latency: { ...received.latency },
              statusCounts: { "204": delivered },
              warmupRequests: 0,
              ...(serverCpu !== undefined ? { serverCpuSeconds: serverCpu } : {}),
              database,
            };
            const d = deliveries;
            const note =
              `${d.events.toLocaleString("en-US")} events × ${d.endpoints} endpoints: ${d.delivered.toLocaleString("en-US")} delivered in ${d.seconds} s, ${d.perSecond}/s; ` +
              `lost ${d.lost}, duplicates ${d.duplicates}; server CPU ${serverCpuMs === undefined ? "–" : serverCpuMs.toFixed(3)} ms/delivery ` +
              `(${d.deliveriesPerAppCoreSecond ?? "–"} deliveries per app-core-second); ` +
              `database ${d.database.queries?.toFixed(3) ?? "–"} statements, ${d.database.cpuMs?.toFixed(3) ?? "–"} ms CPU, ${d.database.walBytes?.toFixed(0) ?? "–"} B WAL per delivery`;
            return { load, deliveries, note };
          } finally {
            await meter.close();
            await client.end().catch(() => {});
          }
        },
      };
    },
  };
}
