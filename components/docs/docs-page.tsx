import type { ReactNode } from "react";
import type { DocsPath } from "./docs-nav";
import { DocsPager } from "./docs-pager";
import { DocsShell } from "./docs-shell";
import { collectHeadings } from "./headings";

/** Running text stays at a readable measure; code blocks, tables and figures take the column's width. */
const MEASURE = "[&>:is(p,ul,ol,h2,h3,dl,blockquote)]:max-w-3xl";

/** A documentation article in the docs layout, with its contents and previous/next links. */
export function DocsPage({ path, title, lead, children }: { path: DocsPath; title: string; lead: ReactNode; children: ReactNode }) {
  return (
    <DocsShell headings={collectHeadings(children)}>
      <article>
        <h1 className="max-w-3xl text-3xl font-semibold tracking-tight text-slate-900 sm:text-4xl">{title}</h1>
        <p className="mt-4 max-w-3xl text-lg text-slate-600">{lead}</p>
        <div className={`prose-doc mt-8 ${MEASURE}`}>{children}</div>
      </article>
      <DocsPager path={path} />
    </DocsShell>
  );
}
