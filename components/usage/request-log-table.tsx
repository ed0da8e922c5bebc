import { Badge } from "@/components/ui/badge";
import type { RequestLogRow } from "@/lib/schemas/usage";

function statusTone(status: number) {
  return status >= 500 ? "red" : status >= 400 ? "amber" : "green";
}

/**
 * The request log (issue 16): one row per request, scrolling sideways inside its box on a phone. A
 * request of the app's sandbox (issue 26) carries a "Sandbox" badge and a tinted row, in every view.
 */
export function RequestLogTable({ entries, emptyText }: { entries: RequestLogRow[]; emptyText: string }) {
  if (entries.length === 0) {
    return (
      <p className="rounded-lg border border-dashed border-slate-300 px-4 py-6 text-center text-sm text-slate-600" data-testid="request-log-empty">
        {emptyText}
      </p>
    );
  }
  return (
    <div role="region" aria-label="Request log" tabIndex={0} className="max-w-full overflow-x-auto rounded-lg border border-slate-200">
      <table className="w-full min-w-[720px] text-left text-sm" data-testid="request-log">
        <caption className="sr-only">Request log, newest first</caption>
        <thead className="bg-slate-50 text-xs font-semibold tracking-wide text-slate-600 uppercase">
          <tr>
            <th scope="col" className="px-3 py-2">Time (UTC)</th>
            <th scope="col" className="px-3 py-2">Request</th>
            <th scope="col" className="px-3 py-2">Status</th>
            <th scope="col" className="px-3 py-2 text-right">Latency</th>
            <th scope="col" className="px-3 py-2">Request id</th>
            <th scope="col" className="px-3 py-2">User</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => {
            const at = new Date(e.atMs).toISOString();
            return (
              <tr
                key={`${e.requestId}-${e.atMs}`}
                className={`border-t border-slate-100 align-top ${e.mode === "sandbox" ? "bg-amber-50/60" : ""}`}
                data-testid="request-log-row"
                data-mode={e.mode}
              >
                <td className="px-3 py-2 whitespace-nowrap text-slate-700 tabular-nums">
                  <time dateTime={at}>{at.slice(0, 19).replace("T", " ")}</time>
                </td>
                <td className="px-3 py-2 font-mono text-xs whitespace-nowrap text-slate-900">
                  {e.mode === "sandbox" ? (
                    <span className="mr-2 font-sans">
                      <Badge tone="amber">Sandbox</Badge>
                    </span>
                  ) : null}
                  {e.route}
                  {e.method === "HEAD" ? " (HEAD)" : ""}
                </td>
                <td className="px-3 py-2 whitespace-nowrap">
                  <Badge tone={statusTone(e.status)}>{e.status}</Badge>
                  {e.errorCode ? <code className="ml-2 font-mono text-xs text-slate-800">{e.errorCode}</code> : null}
                </td>
                <td className="px-3 py-2 text-right whitespace-nowrap tabular-nums">{e.latencyMs} ms</td>
                <td className="px-3 py-2 font-mono text-xs whitespace-nowrap text-slate-700">{e.requestId}</td>
                <td className="px-3 py-2 text-slate-700">{e.userHandle ? `@${e.userHandle}` : <span className="text-slate-500">app</span>}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
