import type { ReactNode } from "react";

export function PageHeader({
  title,
  description,
  actions,
  eyebrow,
  bordered = true,
}: {
  /** false when tabs follow and draw the line (the app page's Overview / Usage). */
  bordered?: boolean;
  title: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  eyebrow?: ReactNode;
}) {
  return (
    <div className={`flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between ${bordered ? "border-b border-slate-200 pb-6" : ""}`}>
      <div className="min-w-0">
        {eyebrow ? <div className="mb-2 text-sm text-slate-600">{eyebrow}</div> : null}
        <h1 className="text-2xl font-semibold tracking-tight break-words text-slate-900 sm:text-3xl">{title}</h1>
        {description ? <div className="mt-2 max-w-3xl text-sm break-words text-slate-600 sm:text-base">{description}</div> : null}
      </div>
      {actions ? <div className="flex shrink-0 flex-wrap gap-2">{actions}</div> : null}
    </div>
  );
}
