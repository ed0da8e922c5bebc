import { readFile } from "node:fs/promises";
import MiniSearch from "minisearch";
import { describe, expect, it } from "vitest";
import { buildDocsSearchIndex } from "../../app/(portal)/docs/_search/build-index";
import { DOCS_SEARCH_OPTIONS, type DocsSearchDocument, type DocsSearchResult } from "../../lib/schemas/docs-search";
import { DOCS_SEARCH_INDEX_PATH } from "../../scripts/docs-search-index";

/**
 * The docs search index: public/docs-search-index.json is what scripts/docs-search-index.ts
 * builds from the docs pages and the OpenAPI document today, so a page or an operation changed
 * without rebuilding it fails here; and the index, loaded as the browser loads it, finds guide
 * sections and API operations by keyword.
 */
describe("docs search index", () => {
  let built = "";

  it("is current: the committed index equals a fresh build", async () => {
    built = await buildDocsSearchIndex();
    const committed = await readFile(DOCS_SEARCH_INDEX_PATH, "utf8");
    expect(committed === built, "public/docs-search-index.json is stale: run npx tsx scripts/docs-search-index.ts --write").toBe(true);
  }, 120_000);

  it("finds guide sections and API operations by keyword", () => {
    const index = MiniSearch.loadJSON<DocsSearchDocument>(built, DOCS_SEARCH_OPTIONS);
    const top = (q: string) => (index.search(q)[0] as unknown as DocsSearchResult | undefined)?.url;
    expect(top("pkce")).toBe("/docs/authentication#pkce");
    expect(top("poke")).toBe("/docs/api-reference#operation-pokeUser");
    expect(top("global chat post")).toBe("/docs/api-reference#operation-postGlobalChatMessage");
    expect(top("idempotency key")).toBe("/docs/errors#idempotency");
    // Every docs page contributes its introduction, every operation one document.
    const urls = index.search(MiniSearch.wildcard).map((r) => (r as unknown as DocsSearchResult).url);
    expect(urls).toContain("/docs/changelog");
    expect(urls.filter((u) => u.startsWith("/docs/api-reference#operation-")).length).toBeGreaterThanOrEqual(12);
  });
});
