import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "..");

export interface Child {
  process: ChildProcess;
  pid: number;
  logFile: string;
  stop(): Promise<void>;
}

/**
 * Starts `node <script> …args` (through tsx for a `.ts` script) from the repository root (tsx resolves from there),
 * with its output in a log file (nothing to drain in the orchestrator while load runs), and waits
 * until `ready()` resolves or the process exits.
 */
export async function startChild(options: {
  name: string;
  script: string;
  args?: string[];
  nodeArgs?: string[];
  env?: Record<string, string | undefined>;
  logDir: string;
  ready: (logText: () => Promise<string>) => Promise<boolean>;
  timeoutMs?: number;
}): Promise<Child> {
  const logFile = path.join(options.logDir, `${options.name}.log`);
  const log = createWriteStream(logFile);
  await new Promise((resolve) => log.once("open", resolve));
  const loader = options.script.endsWith(".ts") ? ["--import", "tsx"] : [];
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...loader, options.script, ...(options.args ?? [])], {
    cwd: ROOT,
    env: options.env as NodeJS.ProcessEnv,
    stdio: ["ignore", log, log],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let hasExited = false;
  void exited.then(() => (hasExited = true));
  const text = () => readFile(logFile, "utf8").catch(() => "");
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  for (;;) {
    if (hasExited) {
      throw new Error(`${options.name} exited before it was ready:\n${(await text()).split("\n").slice(-25).join("\n")}`);
    }
    if (await options.ready(text)) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`${options.name} was not ready after ${(options.timeoutMs ?? 120_000) / 1000} s (log: ${logFile})`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    process: child,
    pid: child.pid!,
    logFile,
    async stop() {
      if (hasExited) return;
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      await exited;
      clearTimeout(killer);
      log.end();
    },
  };
}

/** The port from a "listening on port N" line (the app's server.ts and the baselines print one). */
export async function listeningPort(text: () => Promise<string>): Promise<number | undefined> {
  const match = /listening on port (\d+)/.exec(await text());
  return match ? Number(match[1]) : undefined;
}

/** Resident set size of a process from /proc (Linux): current and high-water mark, in MiB. */
export async function readRss(pid: number): Promise<{ rssMb: number; hwmMb: number } | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
    return { rssMb: kb("VmRSS") / 1024, hwmMb: kb("VmHWM") / 1024 };
  } catch {
    return undefined;
  }
}

/** The fields of /proc/<pid>/stat after the parenthesised command name (state is [0], ppid [1]). */
async function readStat(pid: number): Promise<string[] | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** CPU time (user + system) a process has used so far, in seconds (Linux /proc, 100 Hz ticks). */
export async function readCpuSeconds(pid: number): Promise<number | undefined> {
  const fields = await readStat(pid);
  // utime and stime are the 14th and 15th fields overall.
  return fields ? (Number(fields[11]) + Number(fields[12])) / 100 : undefined;
}

/** CPU time a process has used so far, split into user and system (kernel) time, in seconds. */
export async function readCpuTimes(pid: number): Promise<{ user: number; system: number } | undefined> {
  const fields = await readStat(pid);
  return fields ? { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 } : undefined;
}

/**
 * The live children of a process (a cluster primary's workers), by scanning /proc for their
 * parent pid: /proc/<pid>/task/<tid>/children needs CONFIG_PROC_CHILDREN, which this VM lacks.
 */
export async function childPids(pid: number): Promise<number[]> {
  const entries = await readdir("/proc").catch(() => [] as string[]);
  const candidates = entries.filter((name) => /^\d+$/.test(name)).map(Number);
  const stats = await Promise.all(candidates.map(async (candidate) => ({ candidate, fields: await readStat(candidate) })));
  return stats.filter(({ fields }) => fields !== undefined && Number(fields[1]) === pid).map(({ candidate }) => candidate);
}

/**
 * CPU time of a process and its children (a cluster primary and its workers), in seconds: each
 * live child's own time plus the parent's cutime and cstime, which hold the time of the children
 * it has already reaped (a worker replaced mid-run), so the total never goes backwards.
 */
export async function readTreeCpuSeconds(pid: number): Promise<{ total: number; byPid: Map<number, number> } | undefined> {
  const fields = await readStat(pid);
  if (!fields) return undefined;
  const byPid = new Map([[pid, (Number(fields[11]) + Number(fields[12])) / 100]]);
  let total = byPid.get(pid)! + (Number(fields[13]) + Number(fields[14])) / 100;
  for (const child of await childPids(pid)) {
    const seconds = await readCpuSeconds(child);
    if (seconds === undefined) continue;
    byPid.set(child, seconds);
    total += seconds;
  }
  return { total, byPid };
}

/** Current RSS of a process and of each of its live children (MiB), the parent first. */
export async function readTreeRss(pid: number): Promise<number[]> {
  const pids = [pid, ...(await childPids(pid))];
  const rss = await Promise.all(pids.map((p) => readRss(p)));
  return rss.flatMap((r) => (r ? [r.rssMb] : []));
}

/** Samples a process's RSS every `intervalMs`, tracking the peak per labelled phase. */
export class RssSampler {
  private timer: NodeJS.Timeout | undefined;
  private phase = "startup";
  readonly peaks = new Map<string, number>();
  hwmMb = 0;

  constructor(private readonly pid: number, private readonly intervalMs = 200) {}

  start(): void {
    this.timer = setInterval(() => void this.sample(), this.intervalMs);
    this.timer.unref();
  }

  async sample(): Promise<void> {
    const rss = await readRss(this.pid);
    if (!rss) return;
    this.peaks.set(this.phase, Math.max(this.peaks.get(this.phase) ?? 0, rss.rssMb));
    this.hwmMb = Math.max(this.hwmMb, rss.hwmMb);
  }

  async setPhase(phase: string): Promise<void> {
    await this.sample();
    this.phase = phase;
  }

  peakOf(phase: string): number | undefined {
    return this.peaks.get(phase);
  }

  async stop(): Promise<void> {
    await this.sample();
    if (this.timer) clearInterval(this.timer);
  }
}
