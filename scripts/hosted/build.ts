import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const PASSKEY_SCRIPT_FILE = path.join(root, "public/hosted/passkey.js");

/** The passkey script as shipped: one classic script (IIFE), minified, for browsers with WebAuthn's JSON era (ES2020). */
export async function buildPasskeyScript(): Promise<string> {
  const result = await build({
    entryPoints: [path.join(root, "scripts/hosted/passkey.ts")],
    bundle: true,
    minify: true,
    format: "iife",
    target: "es2020",
    platform: "browser",
    write: false,
    legalComments: "none",
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}
