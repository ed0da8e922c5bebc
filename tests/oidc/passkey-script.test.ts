import { readFile } from "node:fs/promises";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { buildPasskeyScript, PASSKEY_SCRIPT_FILE } from "../../scripts/hosted/build";

/**
 * The hosted pages' passkey script is committed built (public/hosted/passkey.js, served
 * by Next as a static file): it must be what scripts/hosted/passkey.ts builds to now, and stay small
 * (e2e/js-budget measures it on the wire; this is the same bound, offline).
 */
describe("public/hosted/passkey.js", () => {
  it("is the current build of scripts/hosted/passkey.ts (else: npm run hosted:script)", async () => {
    const committed = await readFile(PASSKEY_SCRIPT_FILE, "utf8");
    expect(committed === (await buildPasskeyScript()), "public/hosted/passkey.js is stale: run npm run hosted:script").toBe(true);
  });

  it("stays under 20 KB gzip, and uses no eval (the page CSP has no 'unsafe-eval')", async () => {
    const code = await readFile(PASSKEY_SCRIPT_FILE);
    expect(gzipSync(code).length).toBeLessThan(20 * 1024);
    expect(code.toString("utf8")).not.toMatch(/\beval\(|new Function\(/);
  });
});
