import type { ReactNode } from "react";
import { Badge } from "@/components/ui/badge";
import { CopyButton } from "@/components/ui/copy-button";
import { grantTypeOf, NO_ROUTE, UNAUTHENTICATED_ROUTE_PREFIX, type RequestLogRow } from "@/lib/schemas/usage";
import { RequestName } from "./request-name";
import { statusTone } from "./request-log-table";

/**
 * One logged request, explained — everything the log keeps of it, as its answer carried
 * it: id, time, what was asked, status, error code and message, latency, the rate-limit state the
 * answer announced, the user a delegated token acted for, the grant type of a token request.
 */
export function RequestDetail({ entry }: { entry: RequestLogRow }) {
  const at = new Date(entry.atMs).toISOString();
  const grantType = grantTypeOf(entry.route);
  const rows: { label: string; value: ReactNode; testId: string }[] = [
    {
      label: "Request id",
      testId: "detail-request-id",
      value: (
        <span className="flex min-w-0 items-center gap-2">
          <code className="min-w-0 font-mono text-sm break-all">{entry.requestId}</code>
          <CopyButton value={entry.requestId} label="Copy request id" />
        </span>
      ),
    },
    { label: "Time (UTC)", testId: "detail-time", value: <time dateTime={at}>{at.replace("T", " ").replace("Z", "")}</time> },
    {
      label: grantType !== null ? "Token request" : entry.route === NO_ROUTE ? "Path" : "Route",
      testId: "detail-route",
      value: (
        <span className="font-mono text-sm break-words">
          <RequestName method={entry.method} route={entry.route} path={entry.path} />
        </span>
      ),
    },
    ...(grantType !== null
      ? [
          {
            label: "Grant type",
            testId: "detail-grant-type",
            value: (
              <span>
                <code className="font-mono text-sm">{grantType}</code>
                {entry.route.startsWith(UNAUTHENTICATED_ROUTE_PREFIX) ? (
                  <span className="mt-1 block text-sm text-slate-600">
                    The caller did not prove to be this app (no or wrong client authentication), so this request is counted
                    apart, as an unauthenticated caller&apos;s.
                  </span>
                ) : null}
              </span>
            ),
          },
        ]
      : []),
    { label: "Live or sandbox", testId: "detail-mode", value: entry.mode === "sandbox" ? <Badge tone="amber">Sandbox</Badge> : "Live" },
    { label: "Status", testId: "detail-status", value: <Badge tone={statusTone(entry.status)}>{entry.status}</Badge> },
    {
      label: "Error code",
      testId: "detail-error-code",
      value: entry.errorCode ? <code className="font-mono text-sm">{entry.errorCode}</code> : <span className="text-slate-500">None</span>,
    },
    {
      label: "Error message",
      testId: "detail-error-message",
      value: entry.errorMessage ? <span className="break-words">{entry.errorMessage}</span> : <span className="text-slate-500">None</span>,
    },
    { label: "Latency", testId: "detail-latency", value: <span className="tabular-nums">{entry.latencyMs} ms, measured in the server</span> },
    {
      label: "Rate limit",
      testId: "detail-rate-limit",
      value:
        entry.rateLimit !== null && entry.rateRemaining !== null ? (
          <span className="tabular-nums">
            {entry.rateRemaining.toLocaleString("en")} of {entry.rateLimit.toLocaleString("en")} left in the minute (X-RateLimit-Remaining /
            X-RateLimit-Limit)
          </span>
        ) : (
          <span className="text-slate-500">Not announced: this answer carried no rate-limit headers.</span>
        ),
    },
    {
      label: "User",
      testId: "detail-user",
      value: entry.userHandle ? (
        <span className="break-all">@{entry.userHandle}</span>
      ) : entry.userId !== null ? (
        <span className="text-slate-500">A user whose account is gone</span>
      ) : (
        <span className="text-slate-500">None: an app-only {grantType !== null ? "request" : "token"}</span>
      ),
    },
  ];
  return (
    <dl className="divide-y divide-slate-100" data-testid="request-detail">
      {rows.map((row) => (
        <div key={row.label} className="grid gap-1 py-3 sm:grid-cols-[12rem_minmax(0,1fr)] sm:gap-4">
          <dt className="text-sm font-medium text-slate-600">{row.label}</dt>
          <dd className="min-w-0 text-sm text-slate-900" data-testid={row.testId}>
            {row.value}
          </dd>
        </div>
      ))}
    </dl>
  );
}
