/**
 * Builds the hosted pages' passkey script: scripts/hosted/passkey.ts with
 * @simplewebauthn/browser, bundled and minified into public/hosted/passkey.js, which Next serves as
 * a static file (gzip on the wire). `npm run build` runs it first; tests/oidc/passkey-script.test.ts
 * fails when the committed file is not what this writes.
 *
 *   npm run hosted:script            # writes public/hosted/passkey.js
 *   npm run hosted:script -- --check # exits 1 when it is stale
 */
import { readFile, writeFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { buildPasskeyScript, PASSKEY_SCRIPT_FILE } from "./hosted/build";

const code = await buildPasskeyScript();
if (process.argv.includes("--check")) {
  const current = await readFile(PASSKEY_SCRIPT_FILE, "utf8").catch(() => "");
  if (current !== code) {
    console.error(`${PASSKEY_SCRIPT_FILE} is stale: run npm run hosted:script`);
    process.exit(1);
  }
} else {
  await mkdir(path.dirname(PASSKEY_SCRIPT_FILE), { recursive: true });
  await writeFile(PASSKEY_SCRIPT_FILE, code);
  console.log(`wrote ${path.relative(process.cwd(), PASSKEY_SCRIPT_FILE)} (${Buffer.byteLength(code)} bytes)`);
}
