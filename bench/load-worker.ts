/**
 * The load generator: autocannon in its own process, so generating load does not share an event
 * loop with the orchestrator (bench/run.ts) or the server under test.
 *
 *   node --import tsx bench/load-worker.ts <job.json>
 *
 * A job is one or more scenarios and a number of rounds. With several scenarios (a case and its
 * baseline, a first page and a deep page) the measured time is split into rounds that alternate
 * between them — A B A B … — so a change in the machine's load during the run hits both alike and
 * their ratio stays meaningful. Prints one JSON line: a LoadResult per scenario.
 *
 * Scenarios are plain JSON (bench/load.ts); the per-request variation (random user, round-robin
 * token, distinct poke pair) is chosen from named modes here rather than passed as functions.
 */
import { readFileSync } from "node:fs";
import autocannon from "autocannon";
import { addCounters, counterDelta, DatabaseMeter, type DatabaseCounters } from "./database-stats";
import { accessTokenHash, DpopSigner } from "./dpop";
import { DPOP_POOL_FRESH_MS, type DpopPoolUse, type LoadJob, type LoadResult, type LoadScenario } from "./load";
import { readCpuSeconds, readTreeCpuSeconds } from "./processes";
import { signIn } from "./tokens";

const job = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as LoadJob;

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}

interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** The access token it carries (a DPoP proof's `ath`); autocannon ignores it. */
  token?: string;
}

/**
 * Scenario `dpop` (bench/load.ts): `pool` ready requests, each with its own proof, signed before
 * the warm-up so that signing costs the load generator no CPU while a case is measured.
 */
class DpopPool {
  private readonly signer: DpopSigner;
  private readonly entries: (RawRequest | undefined)[] = [];
  private readonly hashes = new Map<string, string>();
  private freshUntil = 0;
  private signSeconds = 0;
  private signedLive = 0;
  private liveAfter: DpopPoolUse["liveAfter"];

  constructor(
    private readonly scenario: LoadScenario & { dpop: NonNullable<LoadScenario["dpop"]> },
    private readonly build: (i: number) => RawRequest,
  ) {
    if (!["fixed", "random", "roundRobin"].includes(scenario.mode)) throw new Error(`dpop: mode ${scenario.mode} is not supported`);
    this.signer = new DpopSigner(scenario.dpop.key);
  }

  fill(): void {
    const started = performance.now();
    this.freshUntil = started + DPOP_POOL_FRESH_MS;
    for (let i = 0; i < this.scenario.dpop.pool; i++) this.entries.push(this.sign(this.build(i)));
    this.signSeconds = (performance.now() - started) / 1000;
  }

  /** Request i: its ready entry (used once, then dropped for the GC), or one signed now. */
  take(i: number): RawRequest {
    const entry = this.entries[i];
    if (entry && performance.now() < this.freshUntil) {
      this.entries[i] = undefined;
      return entry;
    }
    this.liveAfter ??= { requests: i, reason: i < this.entries.length ? "stale" : "exhausted" };
    this.signedLive++;
    return this.sign(this.build(i));
  }

  private sign(request: RawRequest): RawRequest {
    let ath: string | undefined;
    if (request.token !== undefined) {
      ath = this.hashes.get(request.token);
      if (ath === undefined) this.hashes.set(request.token, (ath = accessTokenHash(request.token)));
    }
    // htu: the request's URL without its query (RFC 9449 §4.2).
    request.headers.dpop = this.signer.proof(request.method, `${this.scenario.url}${request.path.split("?")[0]}`, ath);
    return request;
  }

  use(sent: number): DpopPoolUse {
    return { pool: this.scenario.dpop.pool, signSeconds: this.signSeconds, sent, signedLive: this.signedLive, ...(this.liveAfter ? { liveAfter: this.liveAfter } : {}) };
  }
}

/** Everything measured for one scenario, over all its rounds. */
class Tally {
  /** One counter per scenario: warm-up and every round continue the same sequence. */
  sequence = 0;
  duration = 0;
  requests = 0;
  ok = 0;
  non2xx = 0;
  errors = 0;
  timeouts = 0;
  statusCounts: Record<string, number> = {};
  samples: Record<string, string> = {};
  ackedIds: string[] = [];
  ackedInWarmup = 0;
  warmupRequests = 0;
  /** Over the measured rounds; null once a reading failed. */
  serverCpuSeconds: number | null | undefined = undefined;
  latencies: number[] = [];
  measuring = false;
  /** The scenario's database meter (scenario.database) and its counters over the measured rounds. */
  meter: DatabaseMeter | undefined;
  database: DatabaseCounters | undefined;

  /** Scenario `dpop`: the ready requests. */
  readonly dpopPool: DpopPool | undefined;

  constructor(readonly scenario: LoadScenario) {
    const { dpop } = scenario;
    this.dpopPool = dpop ? new DpopPool({ ...scenario, dpop }, (i) => this.requestFor(i)) : undefined;
  }

  /** Mode mix: per position of the mix, its entry's occurrences in one pass and this position's rank among them. */
  private mixPositions: { count: number; rank: number }[] | undefined;

  /**
   * Mode mix: request i is entry i mod E of the mix. Each entry has its own counter j (its n-th
   * use, however often it appears in the mix): `random` picks a token and a
   * handle at random, `roundRobin` takes token j mod T of its slice and handle (⌊j / T⌋ + j) mod N
   * of its handles, distinct pairs as in the roundRobin mode.
   */
  mixRequestFor(i: number): RawRequest {
    const s = this.scenario;
    const mix = s.mix!;
    if (!this.mixPositions) {
      const keys = mix.map((entry) => JSON.stringify(entry));
      this.mixPositions = keys.map((key, p) => ({ count: keys.filter((k) => k === key).length, rank: keys.slice(0, p).filter((k) => k === key).length }));
    }
    const position = i % mix.length;
    const entry = mix[position]!;
    const { count, rank } = this.mixPositions[position]!;
    const j = Math.floor(i / mix.length) * count + rank;
    const all = s.tokens ?? [];
    const tokens = entry.tokenSlice ? all.slice(...entry.tokenSlice) : all;
    const handles = s.handles ?? [];
    const from = entry.handlesFrom ?? 0;
    const span = Math.min(entry.handlesCount ?? Infinity, handles.length - from);
    let token: string | undefined;
    let handle: string | undefined;
    if (entry.token === "app") token = s.appToken;
    if (entry.mode === "random") {
      if (entry.token === "user" && tokens.length) token = tokens[Math.floor(Math.random() * tokens.length)];
      if (span > 0) handle = handles[from + Math.floor(Math.random() * span)];
    } else {
      if (entry.token === "user" && tokens.length) token = tokens[j % tokens.length];
      if (span > 0) handle = handles[from + ((Math.floor(j / Math.max(tokens.length, 1)) + j) % span)];
    }
    const headers: Record<string, string> = { ...(entry.headers ?? {}) };
    if (token) headers.authorization = `Bearer ${token}`;
    const values = { handle: handle ?? "", i: String(i) };
    const body = entry.body !== undefined ? fill(entry.body, values) : undefined;
    return { method: entry.method ?? "GET", path: fill(entry.path, values), headers, ...(body !== undefined ? { body } : {}) };
  }

  /**
   * Request i. `random`: a random token and a random handle. `roundRobin`: token i mod T (so one
   * token's uses are T requests apart: the chat limit is per user) and handle (⌊i / T⌋ + i) mod N,
   * which makes every (token, handle) pair distinct for i < T·N.
   */
  requestFor(i: number): RawRequest {
    const s = this.scenario;
    if (s.mode === "mix") return this.mixRequestFor(i);
    const tokens = s.tokens ?? [];
    const handles = s.handles ?? [];
    const headers: Record<string, string> = { ...(s.headers ?? {}) };
    let token: string | undefined;
    let handle: string | undefined;
    if (s.mode === "random") {
      if (tokens.length) token = tokens[Math.floor(Math.random() * tokens.length)];
      if (handles.length) handle = handles[Math.floor(Math.random() * handles.length)];
    } else if (s.mode === "roundRobin") {
      if (tokens.length) token = tokens[i % tokens.length];
      if (handles.length) handle = handles[(Math.floor(i / Math.max(tokens.length, 1)) + i) % handles.length];
    } else if (tokens.length) {
      token = tokens[0];
    }
    // A DPoP-bound token goes with its scheme (RFC 9449 §7.1).
    if (token) headers.authorization = `${s.dpop ? "DPoP" : "Bearer"} ${token}`;
    const values = { handle: handle ?? "", i: String(i) };
    // autocannon adds Content-Length itself from the body.
    const body = s.body !== undefined ? fill(s.body, values) : undefined;
    return { method: s.method ?? "GET", path: fill(s.path, values), headers, ...(body !== undefined ? { body } : {}), ...(token ? { token } : {}) };
  }

  /** Mode refreshChain: the next refresh token nobody has sent yet. */
  private unusedToken = 0;
  /**
   * The rotated token of the response just read. autocannon reads a response and builds that
   * connection's next request in one synchronous step (onResponse, then setupRequest), and clears
   * the per-connection context in between when it loops over its request list, so the token is
   * handed over here instead.
   */
  private handoff: string | undefined;

  refreshRequest(): RawRequest {
    const s = this.scenario;
    const tokens = s.tokens ?? [];
    let token = this.handoff;
    this.handoff = undefined;
    if (token === undefined) {
      if (this.unusedToken >= tokens.length) throw new Error(`refreshChain: all ${tokens.length} refresh tokens used up`);
      token = tokens[this.unusedToken++]!;
    }
    const body = fill(s.body ?? "", { token: encodeURIComponent(token) });
    return { method: s.method ?? "POST", path: s.path, headers: { ...(s.headers ?? {}) }, body };
  }

  /** The chain goes on with the rotated token; any other answer ends it (the next request takes a fresh one). */
  onRefreshResponse(status: number, body: string): void {
    let next: unknown;
    if (status === 200) {
      try {
        next = (JSON.parse(body) as { refresh_token?: unknown }).refresh_token;
      } catch {
        /* counted as a 200 without a chain: the next request starts a new one */
      }
    }
    this.handoff = typeof next === "string" ? next : undefined;
    this.onResponse(status, body);
  }

  onResponse(status: number, body: string): void {
    if ((status < 200 || status > 299) && !(status in this.samples)) this.samples[status] = body.slice(0, 300);
    if (status !== 201 || this.scenario.collect !== "dataId") return;
    try {
      const id = (JSON.parse(body) as { data?: { id?: unknown } }).data?.id;
      if (typeof id === "string" || typeof id === "number") this.ackedIds.push(String(id));
    } catch {
      /* a malformed 201 body is caught by the orchestrator's count check */
    }
  }

  /**
   * Mode flow: `concurrency` sign-ins at a time until `duration` is over. Sign-ins still running
   * then are finished but not counted (nor is their time), so the next round starts on an idle
   * server, as autocannon's rounds do.
   */
  async runFlows(duration: number, measured: boolean): Promise<void> {
    const flow = this.scenario.flow!;
    const started = performance.now();
    const deadline = started + duration * 1000;
    let done = 0;
    let failed = 0;
    const loop = async () => {
      while (performance.now() < deadline) {
        const user = flow.usernames[this.sequence++ % flow.usernames.length]!;
        const t = performance.now();
        try {
          await signIn(flow.discovery, flow.client, flow.appOrigin, user, flow.password, { loginPage: flow.loginPage });
          if (performance.now() > deadline) return;
          done++;
          if (measured) this.latencies.push(performance.now() - t);
        } catch (error) {
          if (performance.now() > deadline) return;
          failed++;
          const message = (error as Error).message;
          if (!("flow" in this.samples)) this.samples.flow = message.slice(0, 300);
        }
      }
    };
    await Promise.all(Array.from({ length: this.scenario.connections }, loop));
    if (!measured) {
      this.warmupRequests += done + failed;
      return;
    }
    this.duration += duration;
    this.requests += done + failed;
    this.ok += done;
    this.errors += failed;
    if (done) this.statusCounts["200"] = (this.statusCounts["200"] ?? 0) + done;
  }

  /** autocannon's per-request hooks for this scenario's mode. */
  autocannonRequests(fixed: RawRequest) {
    const s = this.scenario;
    if (s.mode === "refreshChain") {
      return [
        {
          setupRequest: (request: RawRequest) => Object.assign(request, this.refreshRequest()),
          onResponse: (status: number, body: string) => this.onRefreshResponse(status, body),
        },
      ];
    }
    if (s.mode === "fixed" && s.collect === undefined && !this.dpopPool) {
      return [{ path: fixed.path, onResponse: (status: number, body: string) => this.onResponse(status, body) }];
    }
    return [
      {
        setupRequest: (request: RawRequest) => {
          const next = this.dpopPool ? this.dpopPool.take(this.sequence++) : this.requestFor(this.sequence++);
          request.method = next.method;
          request.path = next.path;
          request.headers = next.headers;
          if (next.body !== undefined) request.body = next.body;
          return request;
        },
        onResponse: (status: number, body: string) => this.onResponse(status, body),
      },
    ];
  }

  /** CPU seconds of the scenario's app process so far (undefined: none given, or unreadable). */
  async serverCpu(): Promise<number | undefined> {
    const cpu = this.scenario.cpu;
    if (!cpu) return undefined;
    return cpu.tree ? (await readTreeCpuSeconds(cpu.pid))?.total : readCpuSeconds(cpu.pid);
  }

  /** Adds one measured round's CPU; a round that could not be read voids the total. */
  chargeCpu(before: number | undefined, after: number | undefined): void {
    this.serverCpuSeconds = before === undefined || after === undefined || this.serverCpuSeconds === null ? null : (this.serverCpuSeconds ?? 0) + after - before;
  }

  async run(duration: number, measured: boolean): Promise<void> {
    const s = this.scenario;
    if (s.mode === "flow") return this.runFlows(duration, measured);
    const fixed = this.requestFor(0);
    const instance = autocannon({
      url: s.url,
      connections: s.connections,
      duration,
      pipelining: 1,
      timeout: 10,
      method: fixed.method,
      headers: fixed.headers,
      ...(fixed.body !== undefined ? { body: fixed.body } : {}),
      requests: this.autocannonRequests(fixed),
    });
    // Every response time, so percentiles over several rounds are exact rather than averaged.
    if (measured) instance.on("response", (_client, _status, _bytes, responseTime) => this.latencies.push(responseTime));
    const result = await instance;
    if (!measured) {
      this.ackedInWarmup = this.ackedIds.length;
      this.warmupRequests += result.requests.total;
      return;
    }
    this.duration += result.duration;
    this.requests += result.requests.total;
    this.ok += result["2xx"];
    this.non2xx += result.non2xx;
    this.errors += result.errors;
    this.timeouts += result.timeouts;
    for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) {
      this.statusCounts[code] = (this.statusCounts[code] ?? 0) + Number(stat.count);
    }
  }

  result(): LoadResult {
    const sorted = Float64Array.from(this.latencies).sort();
    const at = (q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : 0);
    const mean = sorted.length ? sorted.reduce((a, b) => a + b, 0) / sorted.length : 0;
    return {
      duration: this.duration,
      requests: this.requests,
      ok: this.ok,
      non2xx: this.non2xx,
      errors: this.errors,
      timeouts: this.timeouts,
      rps: this.duration ? this.requests / this.duration : 0,
      okRps: this.duration ? this.ok / this.duration : 0,
      latency: { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted.length ? sorted[sorted.length - 1]! : 0, mean },
      statusCounts: this.statusCounts,
      warmupRequests: this.warmupRequests,
      ...(typeof this.serverCpuSeconds === "number" ? { serverCpuSeconds: this.serverCpuSeconds } : {}),
      ...(this.database ? { database: this.database } : {}),
      ...(Object.keys(this.samples).length ? { samples: this.samples } : {}),
      ...(this.dpopPool ? { dpop: this.dpopPool.use(this.sequence) } : {}),
      ...(this.scenario.collect ? { ackedIds: this.ackedIds, ackedInWarmup: this.ackedInWarmup } : {}),
    };
  }
}

async function main(): Promise<void> {
  const tallies = job.scenarios.map((s) => new Tally(s));
  // Every proof pool before any warm-up: the server is idle while the load generator signs.
  for (const t of tallies) t.dpopPool?.fill();
  for (const t of tallies) if (t.scenario.database?.length) t.meter = await DatabaseMeter.open(t.scenario.database);
  for (const t of tallies) if (t.scenario.warmup > 0) await t.run(t.scenario.warmup, false);
  const rounds = Math.max(1, job.rounds);
  const pause = (t: Tally) => (t.scenario.settle ? new Promise((resolve) => setTimeout(resolve, t.scenario.settle! * 1000)) : undefined);
  for (const t of tallies) await pause(t);
  for (let r = 0; r < rounds; r++) {
    for (const t of tallies) {
      const before = await t.serverCpu();
      const databaseBefore = await t.meter?.read();
      await t.run(t.scenario.duration / rounds, true);
      await pause(t);
      t.chargeCpu(before, await t.serverCpu());
      const databaseAfter = await t.meter?.read();
      if (databaseBefore && databaseAfter) t.database = addCounters(t.database, counterDelta(databaseBefore, databaseAfter));
    }
  }
  for (const t of tallies) await t.meter?.close();
  process.stdout.write(`${JSON.stringify(tallies.map((t) => t.result()))}\n`);
}

main().catch((error) => {
  process.stderr.write(`load worker failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
