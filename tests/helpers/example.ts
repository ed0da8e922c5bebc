import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..", "..");

export interface RunningExample {
  process: ChildProcess;
  /** Every line it printed (stdout and stderr), in order. */
  lines: string[];
  /** Resolves with the first line (already printed or still to come) matching `pattern`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  stop(): Promise<void>;
}

/**
 * Runs an example app (examples/<name>) as its README does (`npm start`: tsx with the SDK's `source`
 * condition), as a real child process with `env`.
 */
export function startExample(name: string, entry: string, env: Record<string, string>): RunningExample {
  const cwd = path.join(ROOT, "examples", name);
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", path.join(cwd, entry)], {
    cwd,
    env: { ...process.env, ...env } as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: (m: RegExpExecArray) => void }[] = [];
  let buffered = "";
  const onData = (chunk: Buffer) => {
    buffered += chunk.toString("utf8");
    let i;
    while ((i = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, i);
      buffered = buffered.slice(i + 1);
      lines.push(line);
      for (const waiter of [...waiters]) {
        const match = waiter.pattern.exec(line);
        if (match) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(match);
        }
      }
    }
  };
  child.stdout!.on("data", onData);
  child.stderr!.on("data", onData);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    process: child,
    lines,
    waitFor(pattern, timeoutMs = 30_000) {
      for (const line of lines) {
        const match = pattern.exec(line);
        if (match) return Promise.resolve(match);
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`example ${name} printed no line matching ${pattern} within ${timeoutMs} ms:\n${lines.join("\n")}`)),
          timeoutMs,
        );
        const waiter = { pattern, resolve: (m: RegExpExecArray) => (clearTimeout(timer), resolve(m)) };
        waiters.push(waiter);
        void exited.then(() => {
          if (waiters.includes(waiter)) {
            clearTimeout(timer);
            reject(new Error(`example ${name} exited (${child.exitCode}) before printing ${pattern}:\n${lines.join("\n")}`));
          }
        });
      });
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(killer);
    },
  };
}
