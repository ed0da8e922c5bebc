import { execFile } from "node:child_process";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { generateSdkTypes, GENERATED_TYPES_PATH } from "../../scripts/sdk-types";

/**
 * The SDK package (sdk/): its endpoint types are current with the OpenAPI document the server
 * serves, and it builds to a publishable ESM package (dist with declarations, `exports` that resolve).
 */
const ROOT = path.resolve(import.meta.dirname, "..", "..");
const SDK = path.join(ROOT, "sdk");

describe("SDK package", () => {
  it("has generated types that match the OpenAPI document (run `npm run sdk:generate` when this fails)", async () => {
    const committed = await readFile(GENERATED_TYPES_PATH, "utf8");
    const generated = await generateSdkTypes();
    expect(committed === generated, "sdk/src/generated/openapi.ts is stale: run `npm run sdk:generate` and commit it").toBe(true);
  });

  it("builds with tsc to sdk/dist, and its package exports resolve to the built ESM and declarations", async () => {
    const tsc = path.join(ROOT, "node_modules", "typescript", "bin", "tsc");
    await promisify(execFile)(process.execPath, [tsc, "-p", path.join(SDK, "tsconfig.json")], { cwd: ROOT });
    const pkg = JSON.parse(await readFile(path.join(SDK, "package.json"), "utf8"));
    expect(pkg.type).toBe("module");
    const entry = pkg.exports["."];
    for (const file of [entry.types, entry.default]) expect((await stat(path.join(SDK, file))).isFile()).toBe(true);
    const built = await import(pathToFileURL(path.join(SDK, entry.default)).href);
    expect(Object.keys(built).sort()).toEqual(["PlatformError", "WebhookVerificationError", "clientCredentials", "createClient", "createLoginClient", "refreshingTokens", "verifyWebhook"]);
    const declarations = await readFile(path.join(SDK, entry.types), "utf8");
    expect(declarations).toContain("createClient");
  });
});
