import { spawn } from "node:child_process";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..", "..");

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The operator CLI as a real child process, the way `npm run platform --` runs it (bin/platform.mjs), against `databaseUrl`. */
export function runCli(
  databaseUrl: string,
  args: string[],
  options: { env?: Record<string, string | undefined>; input?: string } = {},
): Promise<CliRun> {
  const env: Record<string, string | undefined> = { ...process.env, DATABASE_URL: databaseUrl, ...options.env };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, "bin/platform.mjs"), ...args], {
      cwd: ROOT,
      env: env as NodeJS.ProcessEnv,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? "");
  });
}

/** `--json` output of a command that must succeed. */
export async function cliJson<T>(databaseUrl: string, args: string[]): Promise<T> {
  const run = await runCli(databaseUrl, [...args, "--json"]);
  if (run.code !== 0) throw new Error(`platform ${args.join(" ")} exited ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}
