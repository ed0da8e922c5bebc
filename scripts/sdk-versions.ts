import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sdkFingerprint, sdkVersion } from "../lib/server/sdk-package";

/**
 * The server offers its SDK at an immutable URL per version
 * ({APP_URL}/sdk/social-dev-platform-sdk-<version>.tgz), so two different packages must never carry
 * one version. sdk/versions.json records, for every version the repository has shipped, a digest of
 * what goes into its package (sdk/src, the build script and tsconfigs, README.md, package.json
 * without its version). tests/sdk/package.test.ts fails when the SDK changed under a version
 * already recorded (bump `version` in sdk/package.json) or when the current version is not
 * recorded yet:
 *
 *   npm run sdk:versions               # check
 *   npm run sdk:versions -- --write    # record the current version (refused if it is recorded with another digest)
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const VERSIONS_PATH = path.join(ROOT, "sdk", "versions.json");

/** The SDK's version and the digest of what its package is built from, version aside (lib/server/sdk-package.ts). */
export function currentSdk(): { version: string; digest: string } {
  return { version: sdkVersion(ROOT), digest: sdkFingerprint(ROOT, { withoutVersion: true }) };
}

export async function readRecordedVersions(): Promise<Record<string, string>> {
  return JSON.parse(await readFile(VERSIONS_PATH, "utf8")) as Record<string, string>;
}

/** Why the current SDK cannot ship as it stands, or null when its version is recorded with its digest. */
export function versionProblem(current: { version: string; digest: string }, recorded: Record<string, string>): string | null {
  const known = recorded[current.version];
  if (known === current.digest) return null;
  if (known) {
    return `The SDK changed since version ${current.version} was recorded in sdk/versions.json, and that version's tarball URL is immutable: bump "version" in sdk/package.json (semver), then run \`npm run sdk:versions -- --write\`.`;
  }
  return `SDK version ${current.version} is not recorded in sdk/versions.json: run \`npm run sdk:versions -- --write\` and commit it.`;
}

async function main() {
  const current = currentSdk();
  const recorded = await readRecordedVersions();
  const problem = versionProblem(current, recorded);
  if (!problem) {
    process.stdout.write(`SDK ${current.version} is recorded.\n`);
    return;
  }
  if (process.argv.includes("--write") && !recorded[current.version]) {
    await writeFile(VERSIONS_PATH, `${JSON.stringify({ ...recorded, [current.version]: current.digest }, null, 2)}\n`);
    process.stdout.write(`recorded SDK ${current.version} in sdk/versions.json\n`);
    return;
  }
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
