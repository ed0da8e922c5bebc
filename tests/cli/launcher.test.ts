import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

/**
 * bin/platform.mjs, the CLI's launcher (bin/bundled.mjs, which server.mjs uses too): it runs the CLI
 * from a bundle it keeps, made again only when a file the bundle was made from changed. Here with a
 * cache of its own (PLATFORM_CLI_CACHE), so the test sees every build; the sources themselves are
 * never touched.
 */
const ROOT = path.resolve(import.meta.dirname, "..", "..");
// Inside the checkout, as the real one is: the bundle finds its packages in node_modules from there.
mkdirSync(path.join(ROOT, "node_modules", ".cache"), { recursive: true });
const cache = mkdtempSync(path.join(ROOT, "node_modules", ".cache", "platform-cli-test-"));
const stamps = path.join(cache, "current.json");
/** The bundle current.json names (each build has a directory of its own). */
const bundle = () => path.join(cache, (JSON.parse(readFileSync(stamps, "utf8")) as { dir: string }).dir, "platform.mjs");

afterAll(() => rmSync(cache, { recursive: true, force: true }));

function help(): { code: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [path.join(ROOT, "bin", "platform.mjs"), "--help"], {
    cwd: ROOT,
    env: { ...process.env, PLATFORM_CLI_CACHE: cache },
    encoding: "utf8",
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** When the bundle was written (its modification time, to the nanosecond). */
const madeAt = () => statSync(bundle(), { bigint: true }).mtimeNs;

describe("the CLI launcher", () => {
  it("makes the bundle once, runs from it while the sources stay as they were, and makes it again when one changed", () => {
    const first = help();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain("Usage: npm run platform -- <command>");
    const inputs = (JSON.parse(readFileSync(stamps, "utf8")) as { inputs: Record<string, string> }).inputs;
    // What the bundle was made from: the dispatcher and the commands, not the packages.
    expect(Object.keys(inputs)).toContain("bin/platform.ts");
    expect(Object.keys(inputs)).toContain("lib/cli/apps.ts");
    expect(Object.keys(inputs).some((file) => file.startsWith("node_modules/"))).toBe(false);
    const built = madeAt();

    // Nothing changed: the same bundle runs.
    expect(help().code).toBe(0);
    expect(madeAt()).toBe(built);

    // A source file changed since (its size or time differs from what was recorded): made again.
    const recorded = JSON.parse(readFileSync(stamps, "utf8")) as { inputs: Record<string, string> };
    recorded.inputs["lib/cli/apps.ts"] = "0:0";
    writeFileSync(stamps, JSON.stringify(recorded));
    const again = help();
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(first.stdout);
    expect(madeAt()).not.toBe(built);
  });

  it("gives each module its own import.meta (the generated Prisma client finds its files beside its source)", () => {
    if (!statSync(stamps, { throwIfNoEntry: false })) expect(help().code).toBe(0);
    const source = readFileSync(bundle(), "utf8");
    expect(source).not.toContain("import.meta.url");
    expect(source).toContain(JSON.stringify(path.join(ROOT, "lib", "generated", "prisma")));
  });
});
