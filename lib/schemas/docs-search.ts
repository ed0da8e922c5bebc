import type { Options, SearchOptions } from "minisearch";

/** A document of the docs search index: a section of a docs page, or an API operation. */
export interface DocsSearchDocument {
  id: string;
  kind: "guide" | "operation";
  /** Where the result leads: a page and its section's anchor. */
  url: string;
  /** The page (guides) or the operation's tag (API operations). */
  page: string;
  /** The section's heading, or the operation's summary. */
  title: string;
  /** `GET /users/{username}` for operations; empty for guides. */
  endpoint: string;
  /** Words to match that the reader does not see in the text: the operation id, scopes, parameters. */
  keywords: string;
  text: string;
  excerpt: string;
}

export type DocsSearchResult = Pick<DocsSearchDocument, "id" | "kind" | "url" | "page" | "title" | "endpoint" | "excerpt">;

/** Served from public/ (fetched when the search first opens); written by scripts/docs-search-index.ts. */
export const DOCS_SEARCH_INDEX_URL = "/docs-search-index.json";

export const DOCS_SEARCH_SEARCH_OPTIONS: SearchOptions = {
  boost: { title: 3, endpoint: 3, keywords: 2, page: 1.5 },
  prefix: true,
  fuzzy: 0.2,
  combineWith: "AND",
};

/** MiniSearch options, the same when the index is built and when the browser loads it. */
export const DOCS_SEARCH_OPTIONS: Options<DocsSearchDocument> = {
  fields: ["title", "endpoint", "page", "keywords", "text"],
  storeFields: ["kind", "url", "page", "title", "endpoint", "excerpt"],
  searchOptions: DOCS_SEARCH_SEARCH_OPTIONS,
};
