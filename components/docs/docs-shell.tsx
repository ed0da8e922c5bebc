import type { ReactNode } from "react";
import { DocsNav } from "./docs-nav";
import { DocsSearch } from "./docs-search";
import { DocsToc } from "./docs-toc";
import type { DocsHeading } from "./headings";

/**
 * The docs layout: a sidebar with the search, the pages and (from 1024 px) this page's contents,
 * sticky beside the text; on phones the sidebar comes first and the contents open from the top of
 * the article. The text column takes the rest of the width, so code blocks and tables have room;
 * DocsPage keeps the running text to a readable measure.
 */
export function DocsShell({ headings = [], children }: { headings?: DocsHeading[]; children: ReactNode }) {
  return (
    <div className="mx-auto max-w-7xl px-4 py-8 sm:px-6 sm:py-12 lg:grid lg:grid-cols-[14rem_minmax(0,1fr)] lg:gap-10 lg:px-8">
      <aside className="mb-8 space-y-6 rounded-xl border border-slate-200 bg-white p-3 lg:sticky lg:top-24 lg:mb-0 lg:max-h-[calc(100vh-7rem)] lg:self-start lg:overflow-y-auto lg:border-0 lg:bg-transparent lg:p-1">
        <DocsSearch />
        <DocsNav />
        {headings.length > 0 ? (
          <div className="hidden lg:block">
            <DocsToc headings={headings} />
          </div>
        ) : null}
      </aside>
      <main id="main" className="min-w-0">
        {headings.length > 0 ? (
          <details className="mb-6 rounded-xl border border-slate-200 bg-white p-3 lg:hidden">
            <summary className="cursor-pointer px-1 text-sm font-medium text-slate-900">On this page</summary>
            <div className="mt-3">
              <DocsToc headings={headings} label="On this page (top)" />
            </div>
          </details>
        ) : null}
        {children}
      </main>
    </div>
  );
}
