import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ARGON2_PARAMETERS, MAX_CONCURRENT_HASHES } from "../lib/crypto/passwords";
import type { QueryPlan } from "./explain";
import type { LoadResult } from "./load";
import { ROOT } from "./processes";

export interface CaseResult {
  id: string;
  name: string;
  status: "ok" | "unavailable" | "failed";
  reason?: string;
  load?: Omit<LoadResult, "ackedIds">;
  /** Peak RSS of the app's process while this case ran (MiB); absent for baselines. */
  peakRssMb?: number;
  /**
   * CPU time of the app's process per request (ms, from /proc, warm-up included): steadier than
   * throughput on a busy machine. Shared by the app cases of one group (first/deep pages).
   */
  serverCpuMsPerRequest?: number;
  /**
   * What the database servers the case reaches (primary, and replica for case P) spent
   * per measured request: statements and their execution time (pg_stat_statements), transactions,
   * and the CPU of all their processes (bench/database-stats.ts). Absent for baselines.
   */
  database?: DatabasePerRequest;
  note?: string;
  /** Case E: what the webhooks and the streams received. */
  events?: EventsResult;
  /** Case W: what one webhook delivery costs at saturation. */
  deliveries?: DeliveryCostResult;
}

/**
 * Case W (bench/deliveries.ts): a backlog of events committed at once to endpoints on this
 * machine, measured from the commit until every attempt is recorded.
 */
export interface DeliveryCostResult {
  apps: number;
  endpoints: number;
  events: number;
  /** events × endpoints. */
  expected: number;
  /** First receipts at the endpoints. */
  delivered: number;
  /** Commit to the last receipt. */
  seconds: number;
  /** delivered ÷ seconds: sustained deliveries per second. */
  perSecond: number;
  /** Receipt − commit: how long the backlog's deliveries waited. */
  latencyMs: { p50: number; p99: number; max: number };
  lost: number;
  duplicates: number;
  /** Attempts recorded failed (a retry follows each) and still pending when the case ended. */
  attemptsFailed: number;
  attemptsPending: number;
  /**
   * From the commit until every attempt was recorded: the app's process (and the part of it spent in
   * the kernel: sockets), PostgreSQL (all its processes), the receivers' process.
   */
  cpuSeconds: { server?: number; serverSystem?: number; postgres?: number; bench?: number };
  serverCpuMsPerDelivery?: number;
  /** 1,000 ÷ serverCpuMsPerDelivery. */
  deliveriesPerAppCoreSecond?: number;
  /** What the database spent per delivery (statements, transactions, CPU, WAL). */
  database: DatabasePerRequest;
  /** The costliest statements (pg_stat_statements), per delivery. */
  statements?: { query: string; calls: number; perDelivery: number; msPerDelivery: number; rowsPerCall: number; walBytesPerDelivery: number }[];
}

/** One kind of receiver in case E: webhook endpoints, or event-stream subscribers. */
export interface EventReceipts {
  receivers: number;
  /** Events of acknowledged posts received (first receipt per receiver). */
  delivered: number;
  /** delivered ÷ (last receipt − first post). */
  perSecond: number;
  /** Receipt − the time the post's 201 came back (an upper bound of its commit), clamped at 0. */
  latencyMs: { p50: number; p90: number; p99: number; max: number; mean: number };
  /**
   * Receipt − the time the post was sent: an upper bound (the commit came after the send), so the
   * true commit-to-receipt latency lies between latencyMs and this; far apart when posts queue.
   */
  fromSendMs: { p50: number; p99: number };
  /** An acknowledged post's event that a receiver never got, after the settle period. */
  lost: number;
  /** The same event id at one receiver more than once. */
  duplicates: number;
  /** Receipts before the 201 was read (latency clamped to 0). */
  early: number;
  /** Events of posts whose 201 never came back. */
  unacknowledged: number;
  /** Seconds waited after the last 201 until everything arrived (or nothing more came). */
  settledSeconds: number;
  /** Streams the server ended during the case. */
  ended?: number;
}

export interface EventsResult {
  /** Chat posts per second asked for (--events-rate). */
  rate: number;
  posted: number;
  acknowledged: number;
  postsPerSecond: number;
  /** How far the poster fell behind its schedule at worst (ms). */
  maxSendLagMs: number;
  webhooks: EventReceipts;
  stream: EventReceipts;
  /**
   * Delivery attempts to the case's endpoints still queued when the settle period ended: their
   * events count as lost above, but were late rather than dropped.
   */
  webhookAttemptsPending: number;
  /** Delivery attempts that failed (each retried on the schedule as a new attempt). */
  webhookAttemptsFailed: number;
  /** CPU seconds over the posting and settle time: the app's process, PostgreSQL (all its processes), the bench's helpers. */
  cpuSeconds: { server?: number; postgres?: number; bench?: number };
  /** The app process's CPU over the case ÷ (webhook deliveries + stream deliveries). */
  serverCpuMsPerDelivery?: number;
}

export interface DatabasePerRequest {
  queries?: number;
  execMs?: number;
  cpuMs?: number;
  transactions: number;
  /** WAL bytes the primary wrote per request. */
  walBytes?: number;
}

export interface Target {
  name: string;
  goal: string;
  measured: string;
  /** null: not measurable in this run. */
  pass: boolean | null;
}

export interface Ratio {
  name: string;
  value: number | null;
  detail: string;
}

export interface BenchReport {
  date: string;
  machine: { cores: number; cpu: string; memoryGb: number; node: string; platform: string };
  config: {
    users: number;
    messages: number;
    notifications: number;
    /** Apps whose sandbox worlds were in the database (absent in runs before it). */
    sandboxes?: number;
    duration: number;
    warmup: number;
    connections: number;
    signedIn: number;
    /** WEB_CONCURRENCY of the process of cases 4w and 5w (0 or 1: not run). */
    workers?: number;
    next: boolean;
    database: "embedded" | "DATABASE_URL";
  };
  setup: { seedSeconds: number; seedReused: boolean; signInSeconds: number | null; totalSeconds: number };
  cases: CaseResult[];
  ratios: Ratio[];
  targets: Target[];
  peakRssMb: number | null;
  notes: string[];
  /** EXPLAIN (ANALYZE, BUFFERS) of the list statements behind cases 7a–7d. */
  plans?: QueryPlan[];
}

/**
 * Case 8a of the committed run (bench/results/latest.json), read before this run writes anything,
 * with that run's baselines A and B: what the host could do that day.
 */
export interface CommittedChat {
  date: string;
  okRps: number;
  baselines: Partial<Record<HostBaseline, number>>;
}

/** The baselines that stand for the host's speed in the chat comparison: node:http alone, and node:http + pg. */
const HOST_BASELINES = ["A", "B"] as const;
type HostBaseline = (typeof HOST_BASELINES)[number];

export async function readCommittedResults(): Promise<CommittedChat | null> {
  try {
    const report = JSON.parse(await readFile(path.join(ROOT, "bench", "results", "latest.json"), "utf8")) as BenchReport;
    const chat = report.cases.find((c) => c.id === "8a");
    if (!ok(chat)) return null;
    const baselines: CommittedChat["baselines"] = {};
    for (const id of HOST_BASELINES) {
      const baseline = report.cases.find((c) => c.id === id);
      if (ok(baseline)) baselines[id] = baseline.load.okRps;
    }
    return { date: report.date, okRps: chat.load.okRps, baselines };
  } catch {
    return null;
  }
}

/** Chat posts may not get slower than the committed run "beyond noise" once every post writes an event. */
export const CHAT_VS_COMMITTED_FLOOR = 0.9;

/**
 * The committed run's chat posts, scaled to this host: two runs of the same code on this kind of VM
 * differ by up to 2× from one day to the next (baseline A 88,063 req/s on 2026-11-24, 51,393 on
 * 2026-11-27), so the comparison is made as the bench's others are, against baselines run in the same
 * process. Each of A and B gives a factor (this run ÷ the committed run); the larger one is used, which
 * expects the most of this run. Without either baseline in this run, the comparison is the raw one.
 */
export function expectedChat(committed: CommittedChat, cases: CaseResult[]): { okRps: number; factor: number; baseline: HostBaseline | null } {
  let best: { factor: number; baseline: HostBaseline | null } = { factor: 1, baseline: null };
  for (const id of HOST_BASELINES) {
    const now = cases.find((c) => c.id === id);
    const then = committed.baselines[id];
    if (!ok(now) || !then) continue;
    const factor = now.load.okRps / then;
    if (best.baseline === null || factor > best.factor) best = { factor, baseline: id };
  }
  return { okRps: committed.okRps * best.factor, ...best };
}

/** Case E's targets hold at this rate of chat posts. */
export const EVENTS_TARGET_RATE = 200;
/** At twice that rate, webhooks may wait twice as long, no more (latency degrades, it does not collapse). */
export const EVENTS_DOUBLE_RATE = 2 * EVENTS_TARGET_RATE;

export function machineInfo(): BenchReport["machine"] {
  const cpus = os.cpus();
  return {
    cores: cpus.length,
    cpu: cpus[0]?.model.trim() ?? "unknown",
    memoryGb: Math.round(os.totalmem() / 1024 ** 3),
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
  };
}

const fmt = (n: number | undefined, digits = 0) =>
  n === undefined || !Number.isFinite(n) ? "–" : n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Requests per second: whole numbers, but a tenth for the slow cases (sign-ins). */
const rate = (n: number | undefined) => fmt(n, n !== undefined && n < 100 ? 1 : 0);

export function ok(result: CaseResult | undefined): result is CaseResult & { load: NonNullable<CaseResult["load"]> } {
  return result?.status === "ok" && result.load !== undefined;
}

/**
 * Keycloak's published sizing (https://www.keycloak.org/high-availability/concepts-memory-and-cpu-sizing):
 * one vCPU for each 15 password-based user logins per second, and for each 120 refresh-token
 * requests per second.
 */
export const KEYCLOAK_LOGINS_PER_VCPU = 15;
export const KEYCLOAK_REFRESHES_PER_VCPU = 120;
/** The production password hash the sign-in flow pays (lib/crypto/passwords.ts). */
export const PASSWORD_HASH_NAME = `Argon2id m=${ARGON2_PARAMETERS.memoryCost / 1024} MiB, t=${ARGON2_PARAMETERS.timeCost}, p=${ARGON2_PARAMETERS.parallelism}, at most ${MAX_CONCURRENT_HASHES} at once per process (the cores less one, at most 2)`;

export function buildRatiosAndTargets(
  cases: CaseResult[],
  peakRssMb: number | null,
  workers = 0,
  cores = 1,
  committedChat: CommittedChat | null = null,
): { ratios: Ratio[]; targets: Target[] } {
  const byId = new Map(cases.map((c) => [c.id, c]));
  const get = (id: string) => byId.get(id);
  const ratios: Ratio[] = [];
  const targets: Target[] = [];

  const share = (id: string, base: string, name: string) => {
    const a = get(id);
    const b = get(base);
    const value = ok(a) && ok(b) && b.load.okRps > 0 ? a.load.okRps / b.load.okRps : null;
    ratios.push({
      name,
      value,
      detail: value === null ? "not measured" : `${rate(a!.load!.okRps)} / ${rate(b!.load!.okRps)} req/s`,
    });
    return value;
  };
  // Cost of a deep page relative to the first: time per request (inverse throughput) and p50.
  const depth = (first: string, deep: string, name: string) => {
    const a = get(first);
    const b = get(deep);
    const value = ok(a) && ok(b) && b.load.okRps > 0 ? a.load.okRps / b.load.okRps : null;
    ratios.push({
      name,
      value,
      detail:
        value === null
          ? "not measured"
          : `${fmt(a!.load!.okRps)} vs ${fmt(b!.load!.okRps)} req/s; p50 ${fmt(a!.load!.latency.p50, 1)} vs ${fmt(b!.load!.latency.p50, 1)} ms`,
    });
    return value;
  };

  const tokenShare = share("4", "C", "Token endpoint / baseline C");
  const readShare = share("5", "B", "GET /users/{username} / baseline B");
  // The whole sign-in against the password hash it must pay, and refresh rotation.
  const flowShare = share("F", "D", "Sign-in flow / baseline D (logins/s vs password checks/s)");
  const refreshShare = share("R", "C", "Refresh grant / baseline C");
  // DPoP against the same request without it, measured interleaved (a proof checked and its jti
  // claimed per request; the load generator's proofs signed before the warm-up).
  const dpopShares = [
    ["Token endpoint, client credentials with DPoP / without (4d / 4)", share("4d", "4", "Token endpoint with a DPoP proof / without (4d / 4)")],
    ["GET /users/{username}, DPoP-bound tokens / bearer tokens (5d / 5)", share("5d", "5", "GET /users/{username}, DPoP-bound tokens / bearer (5d / 5)")],
  ] as const;
  share("R", "Rp", "Refresh grant, fast path / through oidc-provider (R / Rp)");
  const flow = get("F");
  const perCore = ok(flow) ? flow.load.okRps / cores : null;
  ratios.push({
    name: `Sign-in flow, logins/s per core / Keycloak's sizing (${KEYCLOAK_LOGINS_PER_VCPU} password logins/s per vCPU)`,
    value: perCore === null ? null : perCore / KEYCLOAK_LOGINS_PER_VCPU,
    detail:
      perCore === null
        ? "not measured"
        : `${fmt(perCore, 1)} logins/s per core (${fmt(flow!.load!.okRps, 1)}/s on ${cores} cores shared with PostgreSQL and the load generator), ${PASSWORD_HASH_NAME}`,
  });
  const refresh = get("R");
  const refreshPerCore = ok(refresh) ? refresh.load.okRps / cores : null;
  ratios.push({
    name: `Refresh grant, per core / Keycloak's sizing (${KEYCLOAK_REFRESHES_PER_VCPU} refresh requests/s per vCPU)`,
    value: refreshPerCore === null ? null : refreshPerCore / KEYCLOAK_REFRESHES_PER_VCPU,
    detail: refreshPerCore === null ? "not measured" : `${fmt(refreshPerCore)} refreshes/s per core (${fmt(refresh!.load!.okRps)}/s on ${cores} cores)`,
  });
  const usersDepth = depth("7a", "7b", "GET /users deep / first page (time per request)");
  const chatDepth = depth("7c", "7d", "GET /global-chat/messages deep / first page (time per request)");

  // What usage metering costs, as server CPU per request of two twin processes started
  // alike, one with METERING=on (4on, 5on) and one off (4off, 5off), measured interleaved.
  const overheads: number[] = [];
  for (const [on, off, name] of [
    ["4on", "4off", "Metering on / off, token endpoint (server CPU per request, 4on / 4off)"],
    ["5on", "5off", "Metering on / off, GET /users/{username} (server CPU per request, 5on / 5off)"],
  ] as const) {
    const a = get(on)?.serverCpuMsPerRequest;
    const b = get(off)?.serverCpuMsPerRequest;
    const value = a !== undefined && b !== undefined && b > 0 ? a / b : null;
    if (value !== null) overheads.push(value - 1);
    ratios.push({
      name,
      value,
      detail:
        value === null ? "not measured" : `${fmt(a!, 3)} vs ${fmt(b!, 3)} ms/request: ${value >= 1 ? "+" : ""}${fmt((value - 1) * 100, 1)}%`,
    });
  }
  // Scaling from one process to `workers` (WEB_CONCURRENCY), both started alike after the
  // sign-in phase and measured interleaved: 4w / 4on and 5w / 5on in 2xx/s, CPU per request (the
  // workers process's primary and workers summed) alongside. A report, not a target: on 2 cores
  // shared with PostgreSQL and the load generator the bound is the machine (docs/performance.md).
  if (workers > 1) {
    for (const [many, one, name] of [
      ["4w", "4on", "Token endpoint"],
      ["5w", "5on", "GET /users/{username}"],
    ] as const) {
      const a = get(many);
      const b = get(one);
      const value = ok(a) && ok(b) && b.load.okRps > 0 ? a.load.okRps / b.load.okRps : null;
      ratios.push({
        name: `${name}, ${workers} workers / 1 worker (2xx/s, ${many} / ${one})`,
        value,
        detail:
          value === null
            ? `not measured (needs cases ${many} and ${one})`
            : `${fmt(a!.load!.okRps)} vs ${fmt(b!.load!.okRps)} 2xx/s; server CPU ${fmt(a!.serverCpuMsPerRequest, 3)} vs ` +
              `${fmt(b!.serverCpuMsPerRequest, 3)} ms/request`,
      });
    }
  }
  // The API mix on 2 processes through PgBouncer (transaction mode) with a streaming
  // replica, against 1 process straight to the single database, measured interleaved. A report:
  // on 2 cores shared by everything, the machine bounds both (docs/operations.md).
  const pooled = get("P");
  const direct = get("M");
  const mixValue = ok(pooled) && ok(direct) && direct.load.okRps > 0 ? pooled.load.okRps / direct.load.okRps : null;
  ratios.push({
    name: "API mix, 2 processes through PgBouncer + 1 replica / 1 process direct to one database (2xx/s, P / M)",
    value: mixValue,
    detail:
      mixValue === null
        ? "not measured (needs cases P and M)"
        : `${fmt(pooled!.load!.okRps)} vs ${fmt(direct!.load!.okRps)} 2xx/s; server CPU ${fmt(pooled!.serverCpuMsPerRequest, 3)} vs ` +
          `${fmt(direct!.serverCpuMsPerRequest, 3)} ms/request; database CPU ${fmt(pooled!.database?.cpuMs, 3)} vs ${fmt(direct!.database?.cpuMs, 3)} ms/request`,
  });
  targets.push({
    name: "Usage metering overhead (server CPU per request)",
    goal: "≤ 5%",
    measured: overheads.length ? overheads.map((v) => `${v >= 0 ? "+" : ""}${fmt(v * 100, 1)}%`).join(", ") : "not measured",
    pass: overheads.length ? overheads.every((v) => v <= 0.05) : null,
  });

  const token = get("4");
  targets.push({
    name: "Token endpoint (client credentials)",
    goal: "≥ 3,000 grants/s",
    measured: ok(token) ? `${fmt(token.load.okRps)} /s` : "not measured",
    pass: ok(token) ? token.load.okRps >= 3000 : null,
  });
  targets.push({
    name: "Token endpoint vs baseline C",
    goal: "≥ 25%",
    measured: tokenShare === null ? "not measured" : `${fmt(tokenShare * 100, 1)}%`,
    pass: tokenShare === null ? null : tokenShare >= 0.25,
  });
  const read = get("5");
  targets.push({
    name: "GET /users/{username} vs baseline B",
    goal: "≥ 30%",
    measured: readShare === null ? "not measured" : `${fmt(readShare * 100, 1)}%`,
    pass: readShare === null ? null : readShare >= 0.3,
  });
  targets.push({
    name: "GET /users/{username} p99",
    goal: "≤ 25 ms",
    measured: ok(read) ? `${fmt(read.load.latency.p99, 1)} ms` : "not measured",
    pass: ok(read) ? read.load.latency.p99 <= 25 : null,
  });
  for (const [name, value] of dpopShares) {
    targets.push({
      name,
      goal: "≥ 70%",
      measured: value === null ? "not measured" : `${fmt(value * 100, 1)}%`,
      pass: value === null ? null : value >= 0.7,
    });
  }
  for (const [name, value] of [
    ["GET /users deep / first", usersDepth],
    ["GET /global-chat/messages deep / first", chatDepth],
  ] as const) {
    targets.push({
      name,
      goal: "≤ 1.2",
      measured: value === null ? "not measured" : fmt(value, 2),
      pass: value === null ? null : value <= 1.2,
    });
  }
  targets.push({
    name: "Sign-in flow vs baseline D (password hash alone)",
    goal: "≥ 80%",
    measured: flowShare === null ? "not measured" : `${fmt(flowShare * 100, 1)}%`,
    pass: flowShare === null ? null : flowShare >= 0.8,
  });
  targets.push({
    name: "Refresh grant (rotation) vs baseline C",
    goal: "≥ 30%",
    measured: refreshShare === null ? "not measured" : `${fmt(refreshShare * 100, 1)}%`,
    pass: refreshShare === null ? null : refreshShare >= 0.3,
  });
  const chat = get("8a");
  targets.push({
    name: "Chat posts across users",
    goal: "≥ 1,000/s, every 201 stored",
    measured: ok(chat) ? `${fmt(chat.load.okRps)} /s; ${chat.note ?? ""}`.trim() : "not measured",
    pass: ok(chat) ? chat.load.okRps >= 1000 && !/NOT stored|missing/.test(chat.note ?? "") : null,
  });
  const expected = ok(chat) && committedChat ? expectedChat(committedChat, cases) : null;
  targets.push({
    name: "Chat posts vs the committed run (8a, every post now writes its event; host-adjusted by baselines A and B)",
    goal: `≥ ${fmt(CHAT_VS_COMMITTED_FLOOR * 100)}% of the committed run's 2xx/s on this host`,
    measured:
      ok(chat) && committedChat && expected
        ? [
            `${fmt(chat.load.okRps)} vs ${fmt(expected.okRps)} /s: ${fmt((chat.load.okRps / expected.okRps) * 100, 1)}%`,
            expected.baseline
              ? `(${fmt(committedChat.okRps)} /s on ${committedChat.date.slice(0, 10)} × ${fmt(expected.factor, 2)}, baseline ${expected.baseline} here ÷ then; raw ${fmt((chat.load.okRps / committedChat.okRps) * 100, 1)}%)`
              : `(${committedChat.date.slice(0, 10)}; not host-adjusted: run baseline A or B with 8a)`,
          ].join(" ")
        : "not measured",
    pass: ok(chat) && expected ? chat.load.okRps >= CHAT_VS_COMMITTED_FLOOR * expected.okRps : null,
  });
  const events = get("E");
  const e = ok(events) ? events.events : undefined;
  // At a lower --events-rate the latencies are shown, but the goal (at 200 posts/s) is not judged.
  const atRate = e !== undefined && e.rate >= EVENTS_TARGET_RATE;
  for (const [kind, label] of [
    ["webhooks", "webhooks"],
    ["stream", "event stream"],
  ] as const) {
    targets.push({
      name: `Events: commit-to-receipt p99, ${label} (case E)`,
      goal: `≤ 1 s at ${EVENTS_TARGET_RATE} posts/s`,
      measured: e ? `${fmt(e[kind].latencyMs.p99)} ms (p50 ${fmt(e[kind].latencyMs.p50)} ms) at ${fmt(e.postsPerSecond, 1)} posts/s` : "not measured",
      pass: e && atRate ? e[kind].latencyMs.p99 <= 1000 : null,
    });
  }
  targets.push({
    name: "Events: lost (every acknowledged post at every endpoint and subscriber)",
    goal: "0 (duplicates counted)",
    measured: e
      ? `${e.webhooks.lost + e.stream.lost} lost, ${e.webhooks.duplicates + e.stream.duplicates} duplicates of ${fmt(e.acknowledged * (e.webhooks.receivers + e.stream.receivers))} expected`
      : "not measured",
    pass: e ? e.webhooks.lost + e.stream.lost === 0 : null,
  });
  const double = cases.find((c) => ok(c) && c.events?.rate === EVENTS_DOUBLE_RATE);
  const d = ok(double) ? double.events : undefined;
  targets.push({
    name: `Events: commit-to-receipt p99, webhooks at ${EVENTS_DOUBLE_RATE} posts/s (case ${double?.id ?? `E${EVENTS_DOUBLE_RATE}`})`,
    goal: `≤ 2 s at ${EVENTS_DOUBLE_RATE} posts/s, 0 lost`,
    measured: d ? `${fmt(d.webhooks.latencyMs.p99)} ms (p50 ${fmt(d.webhooks.latencyMs.p50)} ms) at ${fmt(d.postsPerSecond, 1)} posts/s; ${d.webhooks.lost + d.stream.lost} lost` : "not measured",
    pass: d ? d.webhooks.latencyMs.p99 <= 2000 && d.webhooks.lost + d.stream.lost === 0 : null,
  });
  targets.push({
    name: "Events: peak RSS of the app's process during case E",
    goal: "≤ 300 MB",
    measured: ok(events) && events.peakRssMb !== undefined ? `${fmt(events.peakRssMb)} MB` : "not measured",
    pass: ok(events) && events.peakRssMb !== undefined ? events.peakRssMb <= 300 : null,
  });
  targets.push({
    name: "Peak RSS of the app's process",
    goal: "≤ 300 MB",
    measured: peakRssMb === null ? "not measured" : `${fmt(peakRssMb)} MB`,
    pass: peakRssMb === null ? null : peakRssMb <= 300,
  });
  return { ratios, targets };
}

export function toMarkdown(report: BenchReport): string {
  const c = report.config;
  const m = report.machine;
  const lines: string[] = [];
  lines.push(
    `Run ${report.date.slice(0, 16).replace("T", " ")} UTC on ${m.cores} cores (${m.cpu}), ${m.memoryGb} GB, Node ${m.node}; ` +
      `${c.users.toLocaleString("en-US")} users, ${c.messages.toLocaleString("en-US")} chat messages, ` +
      `${c.notifications.toLocaleString("en-US")} notifications; ${c.connections} connections, ${c.duration} s per case ` +
      `after ${c.warmup} s warm-up; ${c.signedIn.toLocaleString("en-US")} users signed in; ` +
      `Next ${c.next ? "loaded" : "not loaded (--no-next)"}; ${c.database === "embedded" ? "embedded PostgreSQL" : "PostgreSQL from DATABASE_URL"}.`,
    "",
    `Whole run ${report.setup.totalSeconds} s: seeding ${report.setup.seedReused ? "reused" : `${report.setup.seedSeconds.toFixed(0)} s`}, ` +
      `signing ${c.signedIn.toLocaleString("en-US")} users in ${report.setup.signInSeconds === null ? "failed" : `${report.setup.signInSeconds.toFixed(0)} s`}.`,
    "",
    "| # | Case | req/s | 2xx/s | p50 ms | p99 ms | errors | non-2xx | server CPU ms/req | DB queries/req | DB time ms/req | DB CPU ms/req | WAL B/req | peak RSS MB | notes |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
  );
  for (const r of report.cases) {
    if (!ok(r)) {
      lines.push(`| ${r.id} | ${r.name} | – | – | – | – | – | – | – | – | – | – | – | – | ${r.status}: ${(r.reason ?? "").replace(/\|/g, "/")} |`);
      continue;
    }
    const l = r.load;
    const codes = Object.entries(l.statusCounts)
      .filter(([code]) => !code.startsWith("2"))
      .map(([code, n]) => `${n}×${code}`)
      .join(", ");
    const notes = [r.note, codes ? `non-2xx: ${codes}` : ""].filter(Boolean).join("; ").replace(/\|/g, "/");
    lines.push(
      `| ${r.id} | ${r.name} | ${rate(l.rps)} | ${rate(l.okRps)} | ${fmt(l.latency.p50, 1)} | ${fmt(l.latency.p99, 1)} | ${l.errors} | ${l.non2xx} | ${fmt(r.serverCpuMsPerRequest, 2)} | ${fmt(r.database?.queries, 2)} | ${fmt(r.database?.execMs, 3)} | ${fmt(r.database?.cpuMs, 2)} | ${fmt(r.database?.walBytes)} | ${fmt(r.peakRssMb)} | ${notes} |`,
    );
  }
  const events = report.cases.find((r) => ok(r) && r.id === "E" && r.events) ?? report.cases.find((r) => ok(r) && r.events);
  if (events?.events) lines.push("", ...eventsTable(events.events));
  const curve = loadCurve(report.cases);
  if (curve.length) lines.push("", ...curve);
  const cost = report.cases.find((r) => ok(r) && r.deliveries);
  if (cost?.deliveries) lines.push("", ...deliveryCostLines(cost.deliveries));
  lines.push(...capacityTable(report.cases));
  lines.push("", "| Ratio | Value | Detail |", "|---|---:|---|");
  for (const r of report.ratios) lines.push(`| ${r.name} | ${r.value === null ? "–" : fmt(r.value, 2)} | ${r.detail} |`);
  lines.push("", "| Target | Goal | Measured | Met |", "|---|---|---|---|");
  for (const t of report.targets) {
    lines.push(`| ${t.name} | ${t.goal} | ${t.measured} | ${t.pass === null ? "not measured" : t.pass ? "yes" : "**no**"} |`);
  }
  if (report.notes.length) {
    lines.push("");
    for (const n of report.notes) lines.push(`- ${n}`);
  }
  if (report.plans?.length) {
    lines.push("", "Plans of the list statements (lib/queries), `EXPLAIN (ANALYZE, BUFFERS)` during this run (bench/explain.ts):");
    for (const p of report.plans) {
      const name = report.cases.find((c) => c.id === p.caseId)?.name ?? p.caseId;
      lines.push("", `${p.caseId} ${name}: \`${p.statement}(${p.values.join(", ")})\``, "", "```", p.plan, "```");
    }
  }
  return lines.join("\n") + "\n";
}

/**
 * The capacity figures of docs/operations.md, from each app case's CPU per request on
 * both sides: requests one core of the app serves (1,000 ÷ server CPU ms), requests one core of
 * PostgreSQL serves (1,000 ÷ database CPU ms), so app cores one database core keeps busy (their
 * quotient), and the WAL a thousand requests a second write.
 */
export function capacityTable(cases: CaseResult[]): string[] {
  const rows = cases.filter(
    (r): r is CaseResult & { serverCpuMsPerRequest: number; database: DatabasePerRequest & { cpuMs: number } } =>
      ok(r) && r.serverCpuMsPerRequest !== undefined && r.serverCpuMsPerRequest > 0 && r.database?.cpuMs !== undefined && r.database.cpuMs > 0,
  );
  if (!rows.length) return [];
  return [
    "",
    "Capacity per request type (docs/operations.md): req/s per core = 1,000 ÷ CPU ms per request on that side; app cores per database core = app CPU ÷ database CPU per request.",
    "",
    "| # | Case | DB queries/req | DB CPU ms/req | req/s per DB core | app CPU ms/req | req/s per app core | app cores per DB core | WAL MB/s at 1,000 req/s |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.map((r) => {
      const d = r.database;
      return (
        `| ${r.id} | ${r.name} | ${fmt(d.queries, 2)} | ${fmt(d.cpuMs, 3)} | ${fmt(1000 / d.cpuMs)} | ${fmt(r.serverCpuMsPerRequest, 3)} | ` +
        `${fmt(1000 / r.serverCpuMsPerRequest)} | ${fmt(r.serverCpuMsPerRequest / d.cpuMs, 2)} | ${fmt(d.walBytes === undefined ? undefined : (d.walBytes * 1000) / 1e6, 2)} |`
      );
    }),
  ];
}

/** Case E's receipts, webhooks and stream side by side. */
function eventsTable(e: EventsResult): string[] {
  const row = (name: string, r: EventReceipts) =>
    `| ${name} | ${r.receivers} | ${fmt(r.delivered)} | ${fmt(r.perSecond)} | ${fmt(r.latencyMs.p50, 1)} | ${fmt(r.latencyMs.p99, 1)} | ${fmt(r.latencyMs.max, 1)} | ${fmt(r.fromSendMs.p50, 1)} | ${fmt(r.fromSendMs.p99, 1)} | ${r.lost} | ${r.duplicates} | ${r.early} | ${fmt(r.settledSeconds, 1)} |`;
  const cpu = e.cpuSeconds;
  return [
    `Case E: ${fmt(e.acknowledged)} chat posts acknowledged of ${fmt(e.posted)} asked at ${fmt(e.rate)}/s (${fmt(e.postsPerSecond, 1)}/s; the sender fell at most ${fmt(e.maxSendLagMs)} ms behind). ` +
      "Latency: receipt − the time the post's 201 came back (an upper bound of its commit; receipts before it count as 0, \"early\"); " +
      "from send: receipt − the time the post was sent (a lower bound of the commit), so the true figure lies between. " +
      `CPU over the case: server ${fmt(cpu.server, 1)} s, PostgreSQL ${fmt(cpu.postgres, 1)} s, bench helpers ${fmt(cpu.bench, 1)} s; ` +
      `server ${fmt(e.serverCpuMsPerDelivery, 3)} ms per delivery (webhook and stream); webhook attempts failed: ${e.webhookAttemptsFailed}, still queued at the end of the settle period: ${e.webhookAttemptsPending}` +
      (e.webhookAttemptsPending ? " (late, counted as lost)." : "."),
    "",
    "| Receivers | n | received | per s | p50 ms | p99 ms | max ms | from send p50 ms | from send p99 ms | lost | duplicates | early | settle s |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    row("Webhook endpoints", e.webhooks),
    row("Stream subscribers", e.stream),
  ];
}

/**
 * Case E at each rate it ran (E, and --events-curve's E100, E400…): latency against load as a table,
 * then the p99s as bars on one scale, so a curve that bends shows.
 */
export function loadCurve(cases: CaseResult[]): string[] {
  const runs = cases
    .filter((c): c is CaseResult & { events: EventsResult } => ok(c) && c.events !== undefined)
    .sort((a, b) => a.events.rate - b.events.rate);
  if (runs.length < 2) return [];
  const lines = [
    "Case E against load: the same posts, endpoints and streams at each rate (each rate its own group; peak RSS of the app's process during it).",
    "",
    "| # | posts/s asked | posts/s | webhooks p50 ms | webhooks p99 ms | webhook deliveries/s | stream p50 ms | stream p99 ms | lost | duplicates | server CPU ms/post | peak RSS MB |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...runs.map((c) => {
      const e = c.events;
      return (
        `| ${c.id} | ${fmt(e.rate)} | ${fmt(e.postsPerSecond, 1)} | ${fmt(e.webhooks.latencyMs.p50, 1)} | ${fmt(e.webhooks.latencyMs.p99, 1)} | ${fmt(e.webhooks.perSecond)} | ` +
        `${fmt(e.stream.latencyMs.p50, 1)} | ${fmt(e.stream.latencyMs.p99, 1)} | ${e.webhooks.lost + e.stream.lost} | ${e.webhooks.duplicates + e.stream.duplicates} | ` +
        `${fmt(c.serverCpuMsPerRequest, 2)} | ${fmt(c.peakRssMb)} |`
      );
    }),
  ];
  const series: [string, (e: EventsResult) => number][] = [
    ["webhooks p99", (e) => e.webhooks.latencyMs.p99],
    ["stream p99", (e) => e.stream.latencyMs.p99],
  ];
  const top = Math.max(...runs.flatMap((c) => series.map(([, value]) => value(c.events))), 1);
  const WIDTH = 50;
  const label = Math.max(...series.map(([name]) => name.length));
  lines.push("", "```");
  for (const [name, value] of series) {
    for (const [i, c] of runs.entries()) {
      const v = value(c.events);
      const bar = "█".repeat(Math.max(v > 0 ? 1 : 0, Math.round((v / top) * WIDTH)));
      lines.push(`${(i === 0 ? name : "").padEnd(label)}  ${`${fmt(c.events.rate)}/s`.padStart(7)} |${bar.padEnd(WIDTH)}| ${fmt(v)} ms`);
    }
  }
  lines.push("```");
  return lines;
}

/** Case W's figures: deliveries per second, and what one costs on each side. */
function deliveryCostLines(d: DeliveryCostResult): string[] {
  const cpu = d.cpuSeconds;
  const db = d.database;
  return [
    `Case W (webhook delivery cost): ${fmt(d.events)} events committed at once for ${d.endpoints} endpoints on ${d.apps} apps (receivers on this machine): ` +
      `${fmt(d.delivered)} of ${fmt(d.expected)} delivered in ${fmt(d.seconds, 1)} s, **${fmt(d.perSecond)} deliveries/s**; lost ${d.lost}, duplicates ${d.duplicates}, ` +
      `attempts failed ${d.attemptsFailed}, still pending ${d.attemptsPending}; receipt − commit p50 ${fmt(d.latencyMs.p50)} ms, p99 ${fmt(d.latencyMs.p99)} ms. ` +
      `CPU from the commit until every attempt was recorded: server ${fmt(cpu.server, 2)} s (of which system ${fmt(cpu.serverSystem, 2)} s), PostgreSQL ${fmt(cpu.postgres, 1)} s, receivers ${fmt(cpu.bench, 1)} s.`,
    "",
    "| per delivery | app CPU ms | deliveries per app-core-second | DB statements | DB transactions | DB time ms | DB CPU ms | WAL B |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
    `| W | ${fmt(d.serverCpuMsPerDelivery, 3)} | ${fmt(d.deliveriesPerAppCoreSecond)} | ${fmt(db.queries, 3)} | ${fmt(db.transactions, 3)} | ${fmt(db.execMs, 3)} | ${fmt(db.cpuMs, 3)} | ${fmt(db.walBytes)} |`,
    ...(d.statements?.length
      ? [
          "",
          "Its costliest statements (pg_stat_statements, execution time), per delivery:",
          "",
          "| calls | per delivery | rows per call | ms per delivery | WAL B per delivery | statement |",
          "|---:|---:|---:|---:|---:|---|",
          ...d.statements.map(
            (st) =>
              `| ${fmt(st.calls)} | ${fmt(st.perDelivery, 4)} | ${fmt(st.rowsPerCall, 0)} | ${fmt(st.msPerDelivery, 4)} | ${fmt(st.walBytesPerDelivery)} | \`${st.query.replace(/\|/g, "/").replace(/`/g, "'")}\` |`,
          ),
        ]
      : []),
  ];
}

export function toConsoleTable(report: BenchReport): string {
  const rows = report.cases.map((r) =>
    ok(r)
      ? [
          r.id, r.name, rate(r.load.rps), rate(r.load.okRps), fmt(r.load.latency.p50, 1), fmt(r.load.latency.p99, 1), String(r.load.errors), String(r.load.non2xx),
          fmt(r.serverCpuMsPerRequest, 2), fmt(r.database?.queries, 2), fmt(r.database?.cpuMs, 2), fmt(r.peakRssMb),
        ]
      : [r.id, r.name, r.status, (r.reason ?? "").slice(0, 60), "", "", "", "", "", "", "", ""],
  );
  const header = ["#", "case", "req/s", "2xx/s", "p50 ms", "p99 ms", "errors", "non-2xx", "CPU ms/req", "DB q/req", "DB CPU ms/req", "RSS MB"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  const out = [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line), ""];
  const events = report.cases.find((r) => ok(r) && r.id === "E" && r.events) ?? report.cases.find((r) => ok(r) && r.events);
  if (events?.events) out.push(...eventsTable(events.events).filter((l) => !l.startsWith("|---")), "");
  const curve = loadCurve(report.cases).filter((l) => !l.startsWith("|---") && l !== "```");
  if (curve.length) out.push(...curve, "");
  const cost = report.cases.find((r) => ok(r) && r.deliveries);
  if (cost?.deliveries) out.push(...deliveryCostLines(cost.deliveries), "");
  for (const r of report.ratios) out.push(`${r.name}: ${r.value === null ? "–" : fmt(r.value, 2)} (${r.detail})`);
  out.push("");
  for (const t of report.targets) {
    out.push(`${t.pass === null ? "  ?" : t.pass ? " ok" : " NO"}  ${t.name}: ${t.measured} (goal ${t.goal})`);
  }
  for (const p of report.plans ?? []) out.push("", `Plan for ${p.caseId}: ${p.statement}(${p.values.join(", ")})`, p.plan);
  return out.join("\n");
}

const DOC = path.join(ROOT, "docs", "performance.md");
const START = "<!-- bench:results:start -->";
const END = "<!-- bench:results:end -->";

/** bench/results/latest.{json,md}, and the results section of docs/performance.md. */
export async function writeResults(report: BenchReport): Promise<string[]> {
  const dir = path.join(ROOT, "bench", "results");
  await mkdir(dir, { recursive: true });
  const markdown = toMarkdown(report);
  await writeFile(path.join(dir, "latest.json"), JSON.stringify(report, null, 2) + "\n");
  await writeFile(path.join(dir, "latest.md"), markdown);
  const written = [path.join(dir, "latest.json"), path.join(dir, "latest.md")];
  if (existsSync(DOC)) {
    const doc = await readFile(DOC, "utf8");
    const start = doc.indexOf(START);
    const end = doc.indexOf(END);
    if (start >= 0 && end > start) {
      await writeFile(DOC, `${doc.slice(0, start + START.length)}\n${markdown}${doc.slice(end)}`);
      written.push(DOC);
    }
  }
  return written;
}
