import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { apiCompare, type Diff } from "api-smart-diff";
import { apiChangelogSchema, type BreakingChange } from "../lib/schemas/api-changelog";

/**
 * "a promise about change": docs/openapi.json is the committed OpenAPI document of
 * /api/v1 (its OpenAPI 3.0 rendering, which api-smart-diff's OpenAPI rules read), and
 * docs/api-changelog.json the changelog. `checkOpenApiCompatibility` compares the generated document
 * with the committed one with api-smart-diff (paths, methods, parameters and whether they are
 * required, request and response bodies down to fields, `required` and enum values, response
 * headers and status codes, every $ref resolved) and returns every breaking difference that no
 * changelog entry records (an entry's `breaking[].location` covers the locations at or below it).
 * Response enums follow our promise rather than the tool's rules (`isBreaking`).
 * tests/api/openapi-changes.test.ts fails on any unrecorded breaking difference, and on a committed
 * document that is merely stale.
 *
 *   npm run openapi:snapshot           # check (exit 1 on an unrecorded breaking change or a stale snapshot)
 *   npm run openapi:snapshot -- --write  # rewrite docs/openapi.json; refused while a breaking change is unrecorded
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SNAPSHOT_PATH = path.join(ROOT, "docs", "openapi.json");
const CHANGELOG_PATH = path.join(ROOT, "docs", "api-changelog.json");

export async function generateOpenApiSnapshot(): Promise<string> {
  // The document reads the environment once; pin what it prints so the output never depends on it.
  process.env.APP_URL = "http://localhost:3000";
  delete process.env.ISSUER;
  const { resetEnv } = await import("../lib/env");
  resetEnv();
  const { buildOpenApi30Document } = await import("../lib/api/openapi");
  return `${JSON.stringify(buildOpenApi30Document(), null, 2)}\n`;
}

interface UnrecordedChange {
  /** api-smart-diff's action and human-readable description. */
  description: string;
  location: string;
}

export interface CompatibilityReport {
  /** Breaking differences (committed → generated) that no changelog entry records. */
  unrecorded: UnrecordedChange[];
  /** Breaking differences that the changelog records. */
  recorded: UnrecordedChange[];
  /** Whether the committed document differs from the generated one at all. */
  stale: boolean;
}

function isRecorded(location: string, breaking: readonly BreakingChange[]): boolean {
  return breaking.some((b) => location === b.location || location.startsWith(`${b.location}.`));
}

/**
 * api-smart-diff's rules, with our promise (/docs/changes) where the two differ, in responses: an
 * enum (error codes, notification and event types) may gain values without notice, since clients
 * are told to expect new ones, and never loses or renames one, since clients switch on them (the
 * tool judges response enums the other way round); and a field never goes away, optional or not
 * (the tool lets an optional one go).
 */
function isBreaking(diff: Diff): boolean {
  const inResponse = diff.path.includes("responses");
  if (inResponse && diff.path.includes("enum")) return diff.action !== "add";
  if (inResponse && diff.action === "remove" && diff.path.at(-2) === "properties") return true;
  return diff.type === "breaking";
}

export async function checkOpenApiCompatibility(options: { committed?: string; generated?: string; changelog?: unknown } = {}): Promise<CompatibilityReport> {
  const committed = options.committed ?? (await readFile(SNAPSHOT_PATH, "utf8").catch(() => null));
  const generated = options.generated ?? (await generateOpenApiSnapshot());
  const changelog = apiChangelogSchema.parse(options.changelog ?? JSON.parse(await readFile(CHANGELOG_PATH, "utf8")));
  const breaking = changelog.entries.flatMap((e) => e.breaking);
  if (committed === generated) return { unrecorded: [], recorded: [], stale: false };
  // No snapshot yet: nothing to compare with (the first --write makes one).
  if (committed === null) return { unrecorded: [], recorded: [], stale: true };
  const { diffs } = apiCompare(JSON.parse(committed), JSON.parse(generated));
  const report: CompatibilityReport = { unrecorded: [], recorded: [], stale: true };
  for (const diff of diffs) {
    // Components appear again, resolved, under every path that uses them: judge them there.
    if (diff.path[0] !== "paths") continue;
    if (!isBreaking(diff)) continue;
    const location = diff.path.join(".");
    const change = { description: `${diff.action}: ${diff.description || diff.type}`, location };
    if (isRecorded(location, breaking)) report.recorded.push(change);
    else report.unrecorded.push(change);
  }
  return report;
}

export function describeReport(report: CompatibilityReport): string {
  if (report.unrecorded.length) {
    return [
      "Breaking change(s) of /api/v1 that docs/api-changelog.json does not record:",
      ...report.unrecorded.map((c) => `  ${c.location}\n    ${c.description}`),
      "Keep the old shape, or record each location under an entry's `breaking` (with its deprecation and sunset dates,",
      "at least 6 months apart: /docs/changes), then run `npm run openapi:snapshot -- --write`.",
    ].join("\n");
  }
  if (report.stale) return "docs/openapi.json is stale: run `npm run openapi:snapshot -- --write` and commit it.";
  return "docs/openapi.json is current.";
}

async function main() {
  const generated = await generateOpenApiSnapshot();
  const report = await checkOpenApiCompatibility({ generated });
  process.stdout.write(`${describeReport(report)}\n`);
  if (report.unrecorded.length) process.exit(1);
  if (process.argv.includes("--write")) {
    if (report.stale) await writeFile(SNAPSHOT_PATH, generated);
    process.stdout.write("wrote docs/openapi.json\n");
  } else if (report.stale) process.exit(1);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
