/**
 * The load generator: one autocannon run per invocation, in its own process so that generating load
 * does not share an event loop with the orchestrator (bench/run.ts) or the server under test.
 *
 *   node --import tsx bench/load-worker.ts <scenario.json>
 *
 * Prints one JSON line (LoadResult) on stdout. Scenarios are plain JSON (bench/load.ts) so the
 * per-request variation (random user, round-robin token, distinct poke pair) is chosen from named
 * modes here rather than passed as functions.
 */
import { readFileSync } from "node:fs";
import autocannon from "autocannon";
import type { LoadResult, LoadScenario } from "./load";

const scenario = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as LoadScenario;

/** One counter for the whole process: warmup and measured run continue the same sequence. */
let sequence = 0;

function pick<T>(list: readonly T[], index: number): T {
  return list[index % list.length]!;
}

function randomIndex(length: number): number {
  return Math.floor(Math.random() * length);
}

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}

interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

/**
 * Builds request i. `random`: a random handle and a random token per request. `roundRobin`: token
 * i mod T (so consecutive uses of one token are T requests apart: the chat limit is per user) and
 * target (⌊i / T⌋ + i) mod N, which makes every (token, target) pair distinct for i < T·N.
 */
function requestFor(i: number): RawRequest {
  const tokens = scenario.tokens ?? [];
  const handles = scenario.handles ?? [];
  const headers: Record<string, string> = { ...(scenario.headers ?? {}) };
  let token: string | undefined;
  let handle: string | undefined;
  if (scenario.mode === "random") {
    if (tokens.length) token = tokens[randomIndex(tokens.length)];
    if (handles.length) handle = handles[randomIndex(handles.length)];
  } else if (scenario.mode === "roundRobin") {
    if (tokens.length) token = pick(tokens, i);
    if (handles.length) handle = pick(handles, Math.floor(i / Math.max(tokens.length, 1)) + i);
  } else if (tokens.length) {
    token = tokens[0];
  }
  if (token) headers.authorization = `Bearer ${token}`;
  const values = { handle: handle ?? "", i: String(i) };
  const body = scenario.body !== undefined ? fill(scenario.body, values) : undefined;
  // autocannon adds Content-Length itself from the body.
  return { method: scenario.method ?? "GET", path: fill(scenario.path, values), headers, ...(body !== undefined ? { body } : {}) };
}

const ackedIds: string[] = [];
/** The first body of each non-2xx status, so a report can say what went wrong. */
const samples: Record<string, string> = {};

function onResponse(status: number, body: string): void {
  if ((status < 200 || status > 299) && !(status in samples)) samples[status] = body.slice(0, 300);
  if (status !== 201 || scenario.collect !== "dataId") return;
  try {
    const id = (JSON.parse(body) as { data?: { id?: unknown } }).data?.id;
    if (typeof id === "string" || typeof id === "number") ackedIds.push(String(id));
  } catch {
    /* a malformed 201 body is caught by the orchestrator's count check */
  }
}

async function run(duration: number): Promise<autocannon.Result> {
  const dynamic = scenario.mode !== "fixed" || scenario.collect !== undefined;
  const fixed = requestFor(0);
  return autocannon({
    url: scenario.url,
    connections: scenario.connections,
    duration,
    pipelining: 1,
    timeout: 10,
    method: fixed.method,
    headers: fixed.headers,
    ...(fixed.body !== undefined ? { body: fixed.body } : {}),
    requests: dynamic
      ? [
          {
            setupRequest: (request: RawRequest) => {
              const next = requestFor(sequence++);
              request.method = next.method;
              request.path = next.path;
              request.headers = next.headers;
              if (next.body !== undefined) request.body = next.body;
              return request;
            },
            onResponse,
          },
        ]
      : [{ path: fixed.path, onResponse }],
  });
}

async function main(): Promise<void> {
  if (scenario.warmup > 0) await run(scenario.warmup);
  const warmupAcked = ackedIds.length;
  const result = await run(scenario.duration);
  const statusCounts: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statusCounts[code] = Number(stat.count);
  const out: LoadResult = {
    duration: result.duration,
    requests: result.requests.total,
    ok: result["2xx"],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    rps: result.requests.total / result.duration,
    okRps: result["2xx"] / result.duration,
    latency: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
      mean: result.latency.average,
    },
    statusCounts,
    ...(Object.keys(samples).length ? { samples } : {}),
    ...(scenario.collect ? { ackedIds, ackedInWarmup: warmupAcked } : {}),
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((error) => {
  process.stderr.write(`load worker failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
