import Link from "next/link";
import { Icon } from "@/components/ui/icon";
import { DOCS_PAGES, type DocsPath } from "./docs-nav";

/** Previous and next page, in the sidebar's order. */
export function DocsPager({ path }: { path: DocsPath }) {
  const index = DOCS_PAGES.findIndex((p) => p.href === path);
  const previous = index > 0 ? DOCS_PAGES[index - 1] : undefined;
  const next = DOCS_PAGES[index + 1];
  return (
    <nav aria-label="Previous and next page" className="mt-16 grid gap-3 border-t border-slate-200 pt-6 sm:grid-cols-2">
      {previous ? (
        <Link
          href={previous.href}
          rel="prev"
          className="group rounded-xl border border-slate-200 p-4 hover:border-brand-300 hover:bg-brand-50/40"
        >
          <span className="flex items-center gap-1 text-xs text-slate-500">
            <Icon name="arrowLeft" className="size-3.5" /> Previous
          </span>
          <span className="mt-1 block font-medium text-slate-900 group-hover:text-brand-700">{previous.label}</span>
        </Link>
      ) : (
        <span className="hidden sm:block" />
      )}
      {next ? (
        <Link
          href={next.href}
          rel="next"
          className="group rounded-xl border border-slate-200 p-4 text-right hover:border-brand-300 hover:bg-brand-50/40"
        >
          <span className="flex items-center justify-end gap-1 text-xs text-slate-500">
            Next <Icon name="arrowRight" className="size-3.5" />
          </span>
          <span className="mt-1 block font-medium text-slate-900 group-hover:text-brand-700">{next.label}</span>
        </Link>
      ) : null}
    </nav>
  );
}
