import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { z } from "zod";
import { ChartLegend, REQUEST_LEGEND, RequestsChart } from "@/components/usage/usage-charts";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { StackLabel, StackTable, stackBody, stackRow, type StackColumn } from "@/components/ui/stack-table";
import { isSandboxClientId } from "@/lib/schemas/sandboxes";
import { usageRangeSchema, type UsageRange } from "@/lib/schemas/usage";
import { requireAdmin, toActor } from "@/lib/portal/session";
import { getUsageOverview, type AppTraffic, type TrafficTotals } from "@/lib/services/usage";

export const metadata: Metadata = { title: "Usage of all apps" };

/**
 * Which apps send the most traffic, fail most often and hit limits most (admins only).
 * The platform's totals over the range, each against the range of equal length before it,
 * the requests over time, and the rankings as tables that become stacked cards below sm. The totals
 * are sums of the same per-app rows the rankings are read from; "Most traffic" ends with the apps
 * it does not list and a total row, so its rows add up to the figures.
 */
const querySchema = z.object({ range: usageRangeSchema.catch("24h") });
const RANGE_LABEL: Record<UsageRange, string> = { "24h": "24 hours", "7d": "7 days", "30d": "30 days" };
const TOP = 10;
/** An error rate over a handful of calls says little; the ranking needs this many. */
const MIN_CALLS_FOR_RATE = 20;

const pct = (r: number) => `${Math.round(r * 1000) / 10}%`;
const num = (n: number) => n.toLocaleString("en");

/** "+12% vs the previous 24 hours (1,100)": a count against the range before. */
function countTrend(now: number, before: number, range: UsageRange): string {
  const against = `the previous ${RANGE_LABEL[range]}`;
  if (before === 0) return now === 0 ? `none in ${against} either` : `none in ${against}`;
  const change = Math.round(((now - before) / before) * 100);
  return `${change > 0 ? "+" : ""}${change}% vs ${against} (${num(before)})`;
}

/** An error rate against the range before, in percentage points. */
function rateTrend(now: TrafficTotals, before: TrafficTotals, range: UsageRange): string {
  const against = `the previous ${RANGE_LABEL[range]}`;
  if (before.requests === 0) return `no requests in ${against}`;
  const points = Math.round((now.errorRate - before.errorRate) * 1000) / 10;
  return `${points > 0 ? "+" : ""}${points} points vs ${against} (${pct(before.errorRate)})`;
}

/** Rankings: a card per app below sm, a table row from sm. */
const ROW = stackRow("sm", "flex flex-wrap gap-x-4 gap-y-1 border-t border-slate-100 py-2.5");
const NAME_CELL = "min-w-0 basis-full sm:basis-auto sm:py-2.5 sm:pr-3";
const NUM = "whitespace-nowrap tabular-nums sm:py-2.5 sm:pr-3 sm:text-right sm:last:pr-0";
const NUM_HEAD = "py-2 pr-3 text-right last:pr-0";

function AppName({ app }: { app: AppTraffic }) {
  const sandbox = isSandboxClientId(app.clientId);
  const href = sandbox ? `/apps/${app.clientId.slice("sbx_".length)}/usage?mode=sandbox` : `/apps/${app.clientId}/usage`;
  return (
    <Link href={href} prefetch={false} className="block min-w-0 text-brand-700 hover:underline">
      <span className="font-medium break-words">{app.name ?? "Deleted app"}</span>
      {sandbox ? (
        <span className="ml-2">
          <Badge tone="amber">sandbox</Badge>
        </span>
      ) : null}
      <span className="block font-mono text-xs break-all text-slate-600">{app.clientId}</span>
    </Link>
  );
}

function Ranking({
  id,
  title,
  description,
  columns,
  apps,
  cells,
  footer,
}: {
  id: string;
  title: string;
  description: string;
  columns: StackColumn[];
  apps: AppTraffic[];
  cells: (a: AppTraffic) => ReactNode;
  footer?: ReactNode;
}) {
  return (
    <Card id={id} className="min-w-0" title={title} description={description}>
      {apps.length ? (
        <StackTable at="sm" caption={title} columns={columns} testId={id}>
          <tbody className={stackBody("sm")}>
            {apps.map((a) => (
              <tr key={a.clientId} className={`${ROW} max-sm:first:border-t-0 max-sm:first:pt-0`} data-testid="ranking-row">
                <td className={NAME_CELL}>
                  <AppName app={a} />
                </td>
                {cells(a)}
              </tr>
            ))}
          </tbody>
          {footer}
        </StackTable>
      ) : (
        <p className="text-sm text-slate-600">Nothing to rank.</p>
      )}
    </Card>
  );
}

export default async function AdminUsagePage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const user = await requireAdmin();
  const { range } = querySchema.parse(await searchParams);
  const { apps, totals, previous, series } = await getUsageOverview(range, await toActor(user));
  const byTraffic = apps.slice(0, TOP);
  const others = apps.slice(TOP);
  const byErrors = apps
    .filter((a) => a.total >= MIN_CALLS_FOR_RATE && a.errors > 0)
    .sort((a, b) => b.errorRate - a.errorRate || b.errors - a.errors)
    .slice(0, TOP);
  const byLimited = apps.filter((a) => a.limited > 0).sort((a, b) => b.limited - a.limited).slice(0, TOP);
  const sumOf = (list: AppTraffic[], of: (a: AppTraffic) => number) => list.reduce((n, a) => n + of(a), 0);
  const points = series.map((p) => ({ ...p, at: p.at.toISOString() }));
  const figures = [
    { id: "requests", label: `Requests, last ${RANGE_LABEL[range]}`, value: num(totals.requests), note: countTrend(totals.requests, previous.requests, range) },
    { id: "errors", label: "Errors (4xx + 5xx)", value: num(totals.errors), note: countTrend(totals.errors, previous.errors, range) },
    { id: "error-rate", label: "Error rate", value: totals.requests ? pct(totals.errorRate) : "–", note: rateTrend(totals, previous, range) },
    { id: "limited", label: "Rate limited (429)", value: num(totals.limited), note: countTrend(totals.limited, previous.limited, range) },
  ];

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Usage</h1>
          <p className="mt-1 text-sm text-slate-600">
            API requests and token requests of every app over the last {RANGE_LABEL[range]}, against the {RANGE_LABEL[range]} before.
            Open an app for its charts and request log. Times are UTC.
          </p>
        </div>
        <nav aria-label="Time range" className="inline-flex rounded-lg border border-slate-200 bg-white p-1 shadow-xs">
          {usageRangeSchema.options.map((r) => (
            <Link
              key={r}
              href={r === "24h" ? "/admin/usage" : `/admin/usage?range=${r}`}
              prefetch={false}
              aria-current={r === range ? "page" : undefined}
              className={`rounded-md px-3 py-1.5 text-sm font-medium ${r === range ? "bg-brand-600 text-white" : "text-slate-700 hover:bg-slate-100"}`}
            >
              {r}
            </Link>
          ))}
        </nav>
      </div>

      {/* From xl the figures (two by two) sit beside the chart, so it keeps a readable height. */}
      <div className="grid gap-6 xl:grid-cols-2 xl:items-start">
        <dl className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-4 xl:grid-cols-2" data-testid="platform-totals">
          {figures.map((f) => (
            <div key={f.id} className="min-w-0 rounded-xl border border-slate-200 bg-white p-4 shadow-xs" data-testid={`platform-figure-${f.id}`}>
              <dt className="text-sm text-slate-600">{f.label}</dt>
              <dd className="mt-1 text-xl font-semibold break-words text-slate-900 tabular-nums" data-testid={`platform-figure-${f.id}-value`}>
                {f.value}
              </dd>
              <dd className="mt-0.5 text-sm text-slate-600 tabular-nums" data-testid={`platform-figure-${f.id}-trend`}>
                {f.note}
              </dd>
            </div>
          ))}
        </dl>
        {apps.length ? (
          <Card className="min-w-0" title="Requests over time" description="Every app's requests by status class, token requests included.">
            <ChartLegend items={REQUEST_LEGEND} />
            <RequestsChart points={points} />
          </Card>
        ) : null}
      </div>

      {apps.length === 0 ? (
        <EmptyState icon="chart" title="No traffic yet" description={`No app made a call in the last ${RANGE_LABEL[range]}.`} />
      ) : (
        <>
          <Ranking
            id="most-traffic"
            title="Most traffic"
            description="All requests, token requests included; the last rows add up to the figures above."
            columns={[{ label: "App", className: "py-2 pr-3" }, { label: "Requests", className: NUM_HEAD }, { label: "Errors", className: NUM_HEAD }, { label: "429", className: NUM_HEAD }]}
            apps={byTraffic}
            cells={(a) => (
              <>
                <td className={NUM} data-testid="traffic-requests" data-count={a.total}><StackLabel at="sm">Requests</StackLabel>{num(a.total)}</td>
                <td className={NUM} data-testid="traffic-errors" data-count={a.errors}><StackLabel at="sm">Errors</StackLabel>{num(a.errors)}</td>
                <td className={NUM} data-testid="traffic-limited" data-count={a.limited}><StackLabel at="sm">429</StackLabel>{num(a.limited)}</td>
              </>
            )}
            footer={
              <tbody className={stackBody("sm")}>
                {others.length ? (
                  <tr className={ROW} data-testid="ranking-others">
                    <td className={`${NAME_CELL} text-slate-700`}>{num(others.length)} other apps</td>
                    <td className={NUM} data-testid="traffic-requests" data-count={sumOf(others, (a) => a.total)}><StackLabel at="sm">Requests</StackLabel>{num(sumOf(others, (a) => a.total))}</td>
                    <td className={NUM} data-testid="traffic-errors" data-count={sumOf(others, (a) => a.errors)}><StackLabel at="sm">Errors</StackLabel>{num(sumOf(others, (a) => a.errors))}</td>
                    <td className={NUM} data-testid="traffic-limited" data-count={sumOf(others, (a) => a.limited)}><StackLabel at="sm">429</StackLabel>{num(sumOf(others, (a) => a.limited))}</td>
                  </tr>
                ) : null}
                <tr className={`${ROW} border-slate-300 font-semibold`} data-testid="ranking-total">
                  <th scope="row" className={`${NAME_CELL} text-left`}>All apps</th>
                  <td className={NUM}><StackLabel at="sm">Requests</StackLabel>{num(totals.requests)}</td>
                  <td className={NUM}><StackLabel at="sm">Errors</StackLabel>{num(totals.errors)}</td>
                  <td className={NUM}><StackLabel at="sm">429</StackLabel>{num(totals.limited)}</td>
                </tr>
              </tbody>
            }
          />
          <div className="grid gap-6 xl:grid-cols-2">
            <Ranking
              id="highest-error-rate"
              title="Highest error rate"
              description={`4xx and 5xx answers, apps with at least ${MIN_CALLS_FOR_RATE} requests.`}
              columns={[{ label: "App", className: "py-2 pr-3" }, { label: "Error rate", className: NUM_HEAD }, { label: "Errors", className: NUM_HEAD }, { label: "Requests", className: NUM_HEAD }]}
              apps={byErrors}
              cells={(a) => (
                <>
                  <td className={NUM}><StackLabel at="sm">Error rate</StackLabel>{pct(a.errorRate)}</td>
                  <td className={NUM}><StackLabel at="sm">Errors</StackLabel>{num(a.errors)}</td>
                  <td className={NUM}><StackLabel at="sm">Requests</StackLabel>{num(a.total)}</td>
                </>
              )}
            />
            <Ranking
              id="most-rate-limited"
              title="Most rate limited"
              description="429 answers: the app's quota, a user's share of it, or an endpoint's own limit."
              columns={[{ label: "App", className: "py-2 pr-3" }, { label: "429", className: NUM_HEAD }, { label: "Requests", className: NUM_HEAD }]}
              apps={byLimited}
              cells={(a) => (
                <>
                  <td className={NUM}><StackLabel at="sm">429</StackLabel>{num(a.limited)}</td>
                  <td className={NUM}><StackLabel at="sm">Requests</StackLabel>{num(a.total)}</td>
                </>
              )}
            />
          </div>
        </>
      )}
    </div>
  );
}
