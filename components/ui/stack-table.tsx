import type { ReactNode } from "react";

/**
 * A table that is a list of stacked cards below the width where it fits (`at`: sm or lg)
 * and a table from there: the table, its bodies and rows are blocks until then, the header row is
 * hidden (each card names its values with `StackLabel`), so nothing scrolls sideways on a phone. The
 * Top routes table, the audit log and the admin usage rankings use it; the caller lays out the rows
 * (`stackRow`, `stackBody`) and the cells. `data-stack` tells the layout sweep (e2e/support.ts) to fail
 * the page where such a table is drawn as a table below `at`.
 */
type Break = "sm" | "lg";

/** Written out whole, so Tailwind finds every class. */
const AT: Record<Break, { table: string; head: string; body: string; row: string; label: string }> = {
  sm: { table: "sm:table", head: "sm:table-header-group", body: "sm:table-row-group", row: "sm:table-row", label: "sm:hidden" },
  lg: { table: "lg:table", head: "lg:table-header-group", body: "lg:table-row-group", row: "lg:table-row", label: "lg:hidden" },
};

export interface StackColumn {
  label: string;
  className?: string;
}

export function StackTable({
  at,
  caption,
  columns,
  className = "",
  headClassName = "",
  testId,
  children,
}: {
  at: Break;
  caption?: string;
  columns: StackColumn[];
  className?: string;
  headClassName?: string;
  testId?: string;
  children: ReactNode;
}) {
  return (
    <table className={`block w-full text-left text-sm ${AT[at].table} ${className}`} data-stack={at} data-testid={testId}>
      {caption ? <caption className="sr-only">{caption}</caption> : null}
      <thead className={`hidden text-xs font-semibold tracking-wide text-slate-600 uppercase ${AT[at].head} ${headClassName}`}>
        <tr>
          {columns.map((c) => (
            <th key={c.label} scope="col" className={c.className}>
              {c.label}
            </th>
          ))}
        </tr>
      </thead>
      {children}
    </table>
  );
}

/** A body of a StackTable: a block below `at`. */
export const stackBody = (at: Break, className = "") => `block ${AT[at].body} ${className}`;
/** A row of a StackTable: `card` lays out the card below `at` (flex, wrap, padding). */
export const stackRow = (at: Break, card: string) => `${card} ${AT[at].row}`;

/** A card's name for a value; the table's header says it from `at`. */
export function StackLabel({ at, children }: { at: Break; children: string }) {
  return <span className={`mr-1 text-xs font-normal text-slate-600 ${AT[at].label}`}>{children}</span>;
}
