import type { ReactNode } from "react";
import { DocsNav } from "./docs-nav";

/** A documentation article with the docs sidebar (stacked above the text on phones). */
export function DocsPage({ title, lead, children }: { title: string; lead: ReactNode; children: ReactNode }) {
  return (
    <div className="mx-auto max-w-7xl px-4 py-8 sm:px-6 sm:py-12 lg:grid lg:grid-cols-[14rem_minmax(0,1fr)] lg:gap-12 lg:px-8">
      <aside className="mb-8 rounded-xl border border-slate-200 bg-white p-3 lg:sticky lg:top-24 lg:mb-0 lg:self-start lg:border-0 lg:bg-transparent lg:p-0">
        <DocsNav />
      </aside>
      <main id="main" className="min-w-0">
        <article className="max-w-3xl">
          <h1 className="text-3xl font-semibold tracking-tight text-slate-900 sm:text-4xl">{title}</h1>
          <p className="mt-4 text-lg text-slate-600">{lead}</p>
          <div className="prose-doc mt-8">{children}</div>
        </article>
      </main>
    </div>
  );
}
