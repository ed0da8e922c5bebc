import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ensureSdkTarball } from "../../lib/server/sdk-package";
import { generateSdkFiles } from "../../scripts/sdk-types";

/**
 * The SDK package (sdk/): its generated endpoint types and error codes are current with the OpenAPI
 * document the server serves, and `npm pack` makes a complete package (issue 27): ESM and CommonJS
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
