import { spawn } from "node:child_process";
import type { JsonWebKey } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { DatabaseCounters, DatabaseTarget } from "./database-stats";
import type { Discovery, LoginClient } from "./tokens";

/** What bench/load-worker.ts runs: plain JSON, written to a file (token lists can be megabytes). */
export interface LoadScenario {
  /** Origin, e.g. http://127.0.0.1:41234 */
  url: string;
  connections: number;
  /** Seconds measured. */
  duration: number;
  /** Seconds of unmeasured load first (JIT, pools, caches). */
  warmup: number;
  method?: "GET" | "POST";
  /** Path with optional {handle} and {i} placeholders. */
  path: string;
  headers?: Record<string, string>;
  /** Body with optional {handle} and {i} placeholders. */
  body?: string;
  /**
   * fixed: the same request every time (first token, if any).
   * random: a random token and a random handle per request.
   * roundRobin: token i mod T, handle (⌊i/T⌋ + i) mod N: distinct (token, handle) pairs.
   * refreshChain: each connection sends a refresh token from `tokens` as `{token}` in the body,
   *   then the `refresh_token` of each 200 answer (rotation: every token is used once); a
   *   connection whose chain breaks, or a new round, takes the next unused token.
   * flow: `connections` sign-ins at a time through the whole authorization-code flow
   *   (bench/tokens.ts signIn), one user after another; a "request" is one completed sign-in.
   * mix: the entries of `mix` in turn (the API mix of cases M and P).
   */
  mode: "fixed" | "random" | "roundRobin" | "refreshChain" | "flow" | "mix";
  tokens?: string[];
  handles?: string[];
  /** dataId: collect `data.id` of every 201 response (to check that acknowledged writes are stored). */
  collect?: "dataId";
  /**
   * Seconds to wait after each of its rounds (unmeasured): requests that take a second (a password
   * hash in a queue) are still being served when the round ends, and must not run into the next
   * scenario's round.
   */
  settle?: number;
  /**
   * The app process this scenario's requests go to: its CPU (user + system, from /proc; `tree`: a
   * cluster primary and its workers together) is read around each measured round and its pause, so
   * a case's CPU per request is its own even when several cases of a group hit one process.
   */
  cpu?: { pid: number; tree?: boolean };
  /**
   * The database servers (primary, replicas) this scenario's requests reach: their CPU,
   * statements and transactions are read around each measured round too (bench/database-stats.ts).
   */
  database?: DatabaseTarget[];
  /**
   * Mode `mix`: request i is `mix[i mod mix.length]` (weights by repetition: the same sequence for
   * every scenario with the same mix), each entry with its own counter for `{i}` and the pairs.
   */
  mix?: MixEntry[];
  /** Mode `mix`: the app-only token of entries with `token: "app"` (`tokens` are users' tokens). */
  appToken?: string;
  /**
   * A fresh DPoP proof with every request (cases 4d, 5d; modes fixed, random, roundRobin): `htm` the
   * request's method, `htu` its URL without the query, `ath` of its token, which is then sent as
   * `Authorization: DPoP`. The load generator shares the machine's cores with the server, so it does
   * not sign while measuring: `pool` requests, each with its own proof, are made before the warm-up,
   * and request i takes entry i; past the pool (or once its proofs near the server's five-minute
   * `iat` window) it signs each request as it sends it, and says so in the result.
   */
  dpop?: {
    /** The bench's throwaway ES256 key, private JWK (bench/dpop.ts). */
    key: JsonWebKey;
    /** Ready requests signed before the warm-up: enough for the warm-up and every measured round at the case's highest plausible rate. */
    pool: number;
  };
  /** Mode `flow`: who signs in, where. */
  flow?: {
    discovery: Discovery;
    client: LoginClient;
    appOrigin: string;
    usernames: string[];
    password: string;
    /** Fetch the hosted login page before posting its form (a browser does; needs Next). */
    loginPage: boolean;
  };
}

/** One request kind of mode `mix`. */
export interface MixEntry {
  method?: "GET" | "POST";
  /** With optional {handle} and {i} placeholders. */
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** app: the scenario's appToken; user: one of its tokens, chosen by `mode`. */
  token: "app" | "user";
  /** random: a random token and handle; roundRobin: as the scenario mode of that name, over its own counter. */
  mode: "random" | "roundRobin";
  /** Handles `handles[handlesFrom]` on, `handlesCount` of them (poke targets of their own, after the signed-in users). */
  handlesFrom?: number;
  handlesCount?: number;
  /** roundRobin over this slice of `tokens` only [from, to): chat posts of two scenarios by distinct users. */
  tokenSlice?: [number, number];
}

/** Several scenarios alternate over `rounds` rounds (bench/load-worker.ts). */
export interface LoadJob {
  scenarios: LoadScenario[];
  rounds: number;
}

export interface LoadResult {
  duration: number;
  requests: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  rps: number;
  okRps: number;
  latency: { p50: number; p90: number; p99: number; max: number; mean: number };
  statusCounts: Record<string, number>;
  /** CPU seconds of `scenario.cpu`'s process over this scenario's measured rounds (and their pauses). */
  serverCpuSeconds?: number;
  /** The database's counters over the measured rounds (scenario.database). */
  database?: DatabaseCounters;
  /** Requests sent during the warm-up (not in the figures above). */
  warmupRequests?: number;
  /** First response body per non-2xx status (truncated). */
  samples?: Record<string, string>;
  /** Scenario `dpop`: its proof pool, and whether requests outran it. */
  dpop?: DpopPoolUse;
  ackedIds?: string[];
  ackedInWarmup?: number;
}

/**
 * A proof is good within five minutes of its `iat` (lib/oidc/dpop.ts PROOF_WINDOW_SECONDS): the load
 * generator stops using a pool this old, so a long group (--duration) never sends a proof the
 * server must refuse.
 */
export const DPOP_POOL_FRESH_MS = 240_000;

export interface DpopPoolUse {
  /** Requests signed before the warm-up, and how long that took. */
  pool: number;
  signSeconds: number;
  /** Requests sent (warm-up and measured, the last ones of each round possibly unanswered). */
  sent: number;
  /** Requests signed while sending, and why: the pool ran out, or its proofs were getting too old. */
  signedLive: number;
  liveAfter?: { requests: number; reason: "exhausted" | "stale" };
}

const WORKER = path.join(import.meta.dirname, "load-worker.ts");

/**
 * Runs scenarios in a separate Node process and returns one result each. With several, their
 * measured time is interleaved over `rounds` rounds (A B A B …), so drift in the machine's load
 * affects them alike.
 */
export async function runLoad(scenarios: LoadScenario[], rounds: number, workDir: string): Promise<LoadResult[]> {
  const file = path.join(workDir, `job-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  const job: LoadJob = { scenarios, rounds: scenarios.length > 1 ? rounds : 1 };
  await writeFile(file, JSON.stringify(job), { mode: 0o600 });
  // Signing a proof pool takes about 60 µs a request (bench/dpop.ts) before the warm-up.
  const seconds = scenarios.reduce((sum, s) => sum + s.duration + s.warmup + (s.dpop?.pool ?? 0) / 10_000, 0);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", WORKER, file], {
      cwd: path.resolve(import.meta.dirname, ".."),
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NODE_ENV: "production" },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    // Hard bound: a stuck run must not stall the whole bench.
    const limit = setTimeout(() => child.kill("SIGKILL"), (seconds + 60) * 1000);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(limit);
      void rm(file, { force: true });
      const line = out.trim().split("\n").pop();
      if (code === 0 && line) {
        try {
          resolve(JSON.parse(line) as LoadResult[]);
          return;
        } catch {
          /* fall through */
        }
      }
      reject(new Error(`load worker exited with ${code}: ${err.trim().slice(-2000)}`));
    });
  });
}
