import MiniSearch from "minisearch";
import type { ReactElement, ReactNode } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { DOCS_PAGES, type DocsPath } from "@/components/docs/docs-nav";
import { listOperations } from "@/components/docs/openapi-operations";
import { DOCS_SEARCH_OPTIONS, type DocsSearchDocument } from "@/lib/schemas/docs-search";

type PageModule = { default: () => ReactElement<{ title: string; lead: ReactNode; children: ReactNode }> };

/**
 * Every docs page but the API reference (whose operations come from the OpenAPI document). A Record
 * over the docs paths: a page added to the sidebar without an entry here fails type checking.
 */
const PAGES: Record<Exclude<DocsPath, "/docs/api-reference">, () => Promise<PageModule>> = {
  "/docs": () => import("../page"),
  "/docs/authentication": () => import("../authentication/page"),
  "/docs/scopes": () => import("../scopes/page"),
  "/docs/sdk": () => import("../sdk/page"),
  "/docs/sandbox": () => import("../sandbox/page"),
  "/docs/events": () => import("../events/page"),
  "/docs/agents": () => import("../agents/page"),
  "/docs/mcp": () => import("../mcp/page"),
  "/docs/errors": () => import("../errors/page"),
  "/docs/changes": () => import("../changes/page"),
  "/docs/changelog": () => import("../changelog/page"),
};

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/** The text of our own rendered markup (build time only; the browser never runs this). */
function textOf(html: string): string {
  return html
    .replace(/<[^>]+>/g, " ")
    .replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (entity, name: string) => {
      if (name.startsWith("#x") || name.startsWith("#X")) return String.fromCodePoint(parseInt(name.slice(2), 16));
      if (name.startsWith("#")) return String.fromCodePoint(parseInt(name.slice(1), 10));
      return ENTITIES[name] ?? entity;
    })
    .replace(/\s+/g, " ")
    .trim();
}

function excerptOf(text: string): string {
  return text.length <= 160 ? text : `${text.slice(0, 157).replace(/\s+\S*$/, "")}…`;
}

const HEADING = /<h([23])\b[^>]*\sid="([^"]+)"[^>]*>([\s\S]*?)<\/h\1>/g;

/** One document per section (the text before the first heading, then each h2 or h3 with an id). */
async function guideDocuments(): Promise<DocsSearchDocument[]> {
  const documents: DocsSearchDocument[] = [];
  for (const [path, load] of Object.entries(PAGES)) {
    const label = DOCS_PAGES.find((p) => p.href === path)!.label;
    const page = (await load()).default();
    const { title, lead, children } = page.props;
    const html = renderToStaticMarkup(<>{children}</>);
    const headings = [...html.matchAll(HEADING)];
    const intro = textOf(`${renderToStaticMarkup(<>{lead}</>)} ${html.slice(0, headings[0]?.index ?? html.length)}`);
    const section = (id: string, heading: string, text: string): DocsSearchDocument => ({
      id: id ? `${path}#${id}` : path,
      kind: "guide",
      url: id ? `${path}#${id}` : path,
      page: label,
      title: heading,
      endpoint: "",
      keywords: "",
      text,
      excerpt: excerptOf(text),
    });
    documents.push(section("", title, intro));
    headings.forEach((match, i) => {
      const end = headings[i + 1]?.index ?? html.length;
      const body = html.slice(match.index + match[0].length, end);
      documents.push(section(match[2]!, textOf(match[3]!), textOf(body)));
    });
  }
  return documents;
}

async function operationDocuments(): Promise<DocsSearchDocument[]> {
  const { getOpenApiDocument } = await import("@/lib/api/openapi");
  return listOperations(getOpenApiDocument()).map((op) => {
    const fields = [...op.parameters, ...op.body];
    const text = textOf([op.description, ...fields.map((f) => `${f.name}: ${f.description}`), ...op.responses.map((r) => `${r.status} ${r.description}`)].join(" "));
    return {
      id: `operation:${op.operationId}`,
      kind: "operation",
      url: `/docs/api-reference#${op.anchor}`,
      page: op.tag,
      title: op.summary,
      endpoint: `${op.method} ${op.path}`,
      keywords: [op.operationId, ...op.scopes, ...fields.map((f) => f.name)].join(" "),
      text,
      excerpt: excerptOf(textOf(op.description.replace(/`/g, ""))),
    };
  });
}

/**
 * The docs search index (MiniSearch, serialized): the sections of every docs page, rendered from
 * the pages themselves, and every API operation of the OpenAPI document. The environment is pinned
 * first, so the URLs the pages print (and so the index) never depend on where it is built.
 */
export async function buildDocsSearchIndex(): Promise<string> {
  process.env.APP_URL = "http://localhost:3000";
  delete process.env.ISSUER;
  delete process.env.API_URL;
  const { resetEnv } = await import("@/lib/env");
  resetEnv();
  const index = new MiniSearch<DocsSearchDocument>(DOCS_SEARCH_OPTIONS);
  index.addAll([...(await guideDocuments()), ...(await operationDocuments())]);
  return `${JSON.stringify(index)}\n`;
}
