import type { ReactNode } from "react";

/**
 * A table that may be wider than its box (a docs table on a phone) scrolls sideways inside itself
 * instead of widening the page. Focusable and labelled, so keyboard users can scroll it
 * and screen readers name the region (axe: scrollable-region-focusable). Where the box is
 * narrower than a table fits (36rem), each row becomes a stacked card, its first cell as the heading
 * (globals.css `.table-stack`), so nothing is off screen on a phone.
 */
export function TableScroll({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div role="region" aria-label={label} tabIndex={0} className="table-stack my-6 max-w-full overflow-x-auto rounded-sm [&>table]:my-0">
      {children}
    </div>
  );
}
