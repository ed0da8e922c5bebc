import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
// The index is rendered from the docs pages themselves, so this build step reads app/.
// eslint-disable-next-line boundaries/dependencies -- a build step over the pages, not runtime code
import { buildDocsSearchIndex } from "../app/(portal)/docs/_search/build-index";

/**
 * Writes public/docs-search-index.json, the docs search's MiniSearch index (sections of every docs
 * page and every API operation), which the browser fetches when the search first opens.
 * tests/docs/search-index.test.ts fails while the committed index differs from what the pages say.
 *
 *   npx tsx scripts/docs-search-index.ts           # check (exit 1 when stale)
 *   npx tsx scripts/docs-search-index.ts --write   # rewrite it
 */
export const DOCS_SEARCH_INDEX_PATH = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "public", "docs-search-index.json");

async function main() {
  const built = await buildDocsSearchIndex();
  if (process.argv.includes("--write")) {
    await writeFile(DOCS_SEARCH_INDEX_PATH, built);
    console.log(`Wrote ${path.relative(process.cwd(), DOCS_SEARCH_INDEX_PATH)} (${(built.length / 1024).toFixed(1)} KB)`);
    return;
  }
  const committed = await readFile(DOCS_SEARCH_INDEX_PATH, "utf8").catch(() => "");
  if (committed !== built) {
    console.error("public/docs-search-index.json is stale: run npx tsx scripts/docs-search-index.ts --write");
    process.exit(1);
  }
  console.log("public/docs-search-index.json is current");
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}
