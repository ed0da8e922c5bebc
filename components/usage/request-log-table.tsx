import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { CopyButton } from "@/components/ui/copy-button";
import type { RequestLogRow } from "@/lib/schemas/usage";
import { RequestName } from "./request-name";

export function statusTone(status: number) {
  return status >= 500 ? "red" : status >= 400 ? "amber" : "green";
}

/** The detail view of a logged request: its own page, so a link to it can be shared. */
export function requestHref(clientId: string, requestId: string): string {
  return `/apps/${clientId}/usage/requests/${encodeURIComponent(requestId)}`;
}

/**
 * The request log: one row per request; below lg, one card per request. A
 * request of the app's sandbox carries a "Sandbox" badge and a tinted row, in every view.
 * Each row's request id opens its detail view and has a copy button.
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
      {/* Below lg each request is a card: status, latency and the request first, then the
          time, the user and the request id, all at the phone's width (no sideways scrolling); from lg
          a table. The same rows either way, so the log's tests and links do not care which. */}
      <table className="block w-full text-left text-sm lg:table lg:min-w-[760px]" data-testid="request-log">
        <caption className="sr-only">Request log, newest first</caption>
        <thead className="hidden bg-slate-50 text-xs font-semibold tracking-wide text-slate-600 uppercase lg:table-header-group">
          <tr>
            <th scope="col" className="px-3 py-2">Time (UTC)</th>
            <th scope="col" className="px-3 py-2">Request</th>
            <th scope="col" className="px-3 py-2">Status</th>
            <th scope="col" className="px-3 py-2 text-right">Latency</th>
            <th scope="col" className="px-3 py-2">Request id</th>
            <th scope="col" className="px-3 py-2">User</th>
          </tr>
        </thead>
        <tbody className="block divide-y divide-slate-100 lg:table-row-group">
          {entries.map((e) => {
            const at = new Date(e.atMs).toISOString();
            return (
              <tr
                key={e.id}
                className={`flex flex-wrap items-center gap-x-3 gap-y-1.5 px-3 py-3 align-top lg:table-row lg:border-t lg:border-slate-100 lg:p-0 ${e.mode === "sandbox" ? "bg-amber-50/60" : ""}`}
                data-testid="request-log-row"
                data-mode={e.mode}
                data-request-id={e.requestId}
              >
                <td className="order-4 text-xs whitespace-nowrap text-slate-700 tabular-nums lg:order-none lg:px-3 lg:py-2 lg:text-sm">
                  <time dateTime={at}>{at.slice(0, 19).replace("T", " ")}</time>
                </td>
                <td className="order-3 min-w-0 basis-full font-mono text-xs break-words text-slate-900 lg:order-none lg:max-w-[22rem] lg:min-w-[13rem] lg:basis-auto lg:px-3 lg:py-2">
                  {e.mode === "sandbox" ? (
                    <span className="mr-2 font-sans">
                      <Badge tone="amber">Sandbox</Badge>
                    </span>
                  ) : null}
                  <RequestName method={e.method} route={e.route} path={e.path} />
                </td>
                <td className="order-1 min-w-0 lg:order-none lg:px-3 lg:py-2 lg:whitespace-nowrap">
                  <Badge tone={statusTone(e.status)}>{e.status}</Badge>
                  {e.errorCode ? <code className="ml-2 font-mono text-xs break-all text-slate-800">{e.errorCode}</code> : null}
                </td>
                <td className="order-2 ml-auto text-right whitespace-nowrap tabular-nums lg:order-none lg:ml-0 lg:px-3 lg:py-2">
                  <span className="sr-only lg:hidden">Latency </span>
                  {e.latencyMs} ms
                </td>
                <td className="order-6 min-w-0 basis-full lg:order-none lg:w-[19rem] lg:basis-auto lg:px-3 lg:py-2">
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
                <td className="order-5 text-xs text-slate-700 lg:order-none lg:px-3 lg:py-2 lg:text-sm">
                  {e.userHandle ? `@${e.userHandle}` : <span className="text-slate-600">app</span>}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
