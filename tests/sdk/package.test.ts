import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ensureSdkTarball } from "../../lib/server/sdk-package";
import { generateSdkFiles } from "../../scripts/sdk-types";
import { currentSdk, readRecordedVersions, versionProblem } from "../../scripts/sdk-versions";

/**
 * The SDK package (sdk/): its generated endpoint types and error codes are current with the OpenAPI
 * document the server serves, and `npm pack` makes a complete package: ESM and CommonJS
 * builds with declarations behind `exports`, and nothing of the repository's own. Installing and
 * running it outside the repository: tests/sdk/install.test.ts.
 */
const ROOT = path.resolve(import.meta.dirname, "..", "..");

describe("SDK package", () => {
  it("has generated types and error codes that match the OpenAPI document (run `npm run sdk:generate` when this fails)", async () => {
    for (const [file, generated] of await generateSdkFiles()) {
      const committed = await readFile(file, "utf8");
      expect(committed === generated, `${path.relative(ROOT, file)} is stale: run \`npm run sdk:generate\` and commit it`).toBe(true);
    }
  });

  it("carries a new version whenever what it is built from changed (its versioned tarball URL is immutable)", async () => {
    const current = currentSdk();
    const recorded = await readRecordedVersions();
    expect(versionProblem(current, recorded) ?? "recorded").toBe("recorded");
    // (the check itself) a change under a recorded version, and a version not recorded yet, are refused.
    expect(versionProblem({ ...current, digest: "0".repeat(64) }, recorded)).toMatch(/bump "version"/);
    expect(versionProblem({ ...current, version: "99.0.0" }, recorded)).toMatch(/not recorded/);
    // Every recorded version is a distinct package.
    expect(new Set(Object.values(recorded)).size).toBe(Object.keys(recorded).length);
  });

  it("packs (prepack builds) into a tarball with both builds, their declarations and the README", async () => {
    const tarball = await ensureSdkTarball(ROOT);
    const { stdout } = await promisify(execFile)("tar", ["-tzf", tarball.file]);
    const files = new Set(stdout.split("\n").filter(Boolean).map((f) => f.replace(/^package\//, "")));
    const pkg = JSON.parse(await readFile(path.join(ROOT, "sdk", "package.json"), "utf8"));
    const entry = pkg.exports["."];
    for (const file of [entry.import.types, entry.import.default, entry.require.types, entry.require.default, pkg.main, pkg.types]) {
      expect(files.has(file.replace(/^\.\//, "")), file).toBe(true);
    }
    for (const file of ["dist/cjs/package.json", "README.md", "package.json"]) expect(files.has(file), file).toBe(true);
    expect([...files].filter((f) => !/^(dist|src)\/|^(README\.md|package\.json)$/.test(f))).toEqual([]);
    expect(pkg.engines.node).toBeTruthy();
    expect(pkg.devDependencies.typescript).toMatch(/^~5\.9\./);
  }, 300_000);
});
