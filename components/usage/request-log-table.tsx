import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { CopyButton } from "@/components/ui/copy-button";
import type { RequestLogRow } from "@/lib/schemas/usage";
import { RequestName } from "./request-name";

export function statusTone(status: number) {
  return status >= 500 ? "red" : status >= 400 ? "amber" : "green";
}

/** The detail view of a logged request (issue 28): its own page, so a link to it can be shared. */
export function requestHref(clientId: string, requestId: string): string {
  return `/apps/${clientId}/usage/requests/${encodeURIComponent(requestId)}`;
}

/**
 * The request log (issue 16): one row per request, scrolling sideways inside its box on a phone. A
 * request of the app's sandbox (issue 26) carries a "Sandbox" badge and a tinted row, in every view.
 * Issue 28: each row's request id opens its detail view and has a copy button.
 */
export function RequestLogTable({ clientId, entries, emptyText }: { clientId: string; entries: RequestLogRow[]; emptyText: string }) {
  if (entries.length === 0) {
    return (
      <p className="rounded-lg border border-dashed border-slate-300 px-4 py-6 text-center text-sm text-slate-600" data-testid="request-log-empty">
        {emptyText}
      </p>
    );
  }
  return (
    <div role="region" aria-label="Request log" tabIndex={0} className="relative max-w-full overflow-x-auto rounded-lg border border-slate-200">
      <table className="w-full min-w-[760px] text-left text-sm" data-testid="request-log">
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
                key={e.id}
                className={`border-t border-slate-100 align-top ${e.mode === "sandbox" ? "bg-amber-50/60" : ""}`}
                data-testid="request-log-row"
                data-mode={e.mode}
                data-request-id={e.requestId}
              >
                <td className="px-3 py-2 whitespace-nowrap text-slate-700 tabular-nums">
                  <time dateTime={at}>{at.slice(0, 19).replace("T", " ")}</time>
                </td>
                <td className="max-w-[22rem] min-w-[13rem] px-3 py-2 font-mono text-xs text-slate-900">
                  {e.mode === "sandbox" ? (
                    <span className="mr-2 font-sans">
                      <Badge tone="amber">Sandbox</Badge>
                    </span>
                  ) : null}
                  <RequestName method={e.method} route={e.route} path={e.path} />
                </td>
                <td className="px-3 py-2 whitespace-nowrap">
                  <Badge tone={statusTone(e.status)}>{e.status}</Badge>
                  {e.errorCode ? <code className="ml-2 font-mono text-xs text-slate-800">{e.errorCode}</code> : null}
                </td>
                <td className="px-3 py-2 text-right whitespace-nowrap tabular-nums">{e.latencyMs} ms</td>
                <td className="w-[19rem] px-3 py-2">
                  {/* A 36-character UUID fits on one line; a longer id the client chose wraps rather than pushing User off screen. */}
                  <span className="flex items-start gap-1.5">
                    <Link
                      href={requestHref(clientId, e.requestId)}
                      prefetch={false}
                      className="min-w-0 pt-1 font-mono text-xs break-all text-brand-700 hover:underline"
                      aria-label={`Details of request ${e.requestId}`}
                    >
                      {e.requestId}
                    </Link>
                    <CopyButton value={e.requestId} label={`Copy request id ${e.requestId}`} className="h-7" />
                  </span>
                </td>
                <td className="px-3 py-2 text-slate-700">{e.userHandle ? `@${e.userHandle}` : <span className="text-slate-500">app</span>}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
