import { readdirSync } from "node:fs";
import path from "node:path";

/** The repository's root, for the tests that read its source. */
export const ROOT = path.resolve(import.meta.dirname, "..", "..");

/**
 * The source files (ts, tsx, mts, mjs, js) under each entry, a file or a folder relative to the
 * repository's root, as relative paths; node_modules and generated code are left out, and an entry
 * that does not exist yields none.
 */
export function listSourceFiles(entries: readonly string[]): string[] {
  return entries.flatMap(walk);
}

function walk(entry: string): string[] {
  let names: string[];
  try {
    names = readdirSync(path.join(ROOT, entry));
  } catch (error) {
    if ((error as { code?: string }).code === "ENOTDIR") return /\.(ts|tsx|mts|mjs|js)$/.test(entry) ? [entry] : [];
    if ((error as { code?: string }).code === "ENOENT") return [];
    throw error;
  }
  return names.filter((n) => n !== "node_modules" && n !== "generated").flatMap((n) => walk(path.join(entry, n)));
}
