import type { ReactNode } from "react";
import { CopyButton } from "./copy-button";

/** A labelled, read-only value in monospace with a copy button (client ID, URLs). */
export function CopyField({ label, value, hint }: { label: string; value: string; hint?: ReactNode }) {
  return (
    <div>
      <dt className="text-sm font-medium text-slate-700">{label}</dt>
      <dd className="mt-1.5">
        <div className="flex items-center gap-2 rounded-lg border border-slate-200 bg-slate-50 py-1.5 pr-1.5 pl-3">
          <code className="min-w-0 flex-1 truncate font-mono text-sm text-slate-900" title={value}>
            {value}
          </code>
          <CopyButton value={value} label={`Copy ${label.toLowerCase()}`} className="bg-white" />
        </div>
        {hint ? <p className="mt-1 text-xs text-slate-600">{hint}</p> : null}
      </dd>
    </div>
  );
}
