import type { ReactNode } from "react";
import { Icon } from "./icon";

/**
 * A filter form behind a "Filters" control on phones (the audit filters filled the first
 * screen). A native <details>, so it opens by keyboard and without JavaScript; from lg the summary is
 * hidden and the form always shows (globals.css `.filter-disclosure`). Open from the start while
 * filters are active, so a phone shows what narrows the list.
 */
export function FilterDisclosure({ active, children, className = "" }: { active: number; children: ReactNode; className?: string }) {
  return (
    <details className={`filter-disclosure group ${className}`} open={active > 0 || undefined} data-testid="filter-disclosure">
      <summary className="inline-flex min-h-10 cursor-pointer items-center gap-2 rounded-lg bg-white px-4 text-sm font-medium text-slate-900 shadow-sm ring-1 ring-slate-300 ring-inset hover:bg-slate-50 lg:hidden">
        <Icon name="search" /> Filters
        {active ? <span className="rounded-full bg-brand-100 px-2 text-xs text-brand-800 tabular-nums">{active} active</span> : null}
        <Icon name="chevronDown" className="transition-transform group-open:rotate-180" />
      </summary>
      <div className="mt-3 lg:mt-0">{children}</div>
    </details>
  );
}
