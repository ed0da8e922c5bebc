import type { Metadata } from "next";
import Link from "next/link";
import { z } from "zod";
import { AppPageHeader } from "@/components/apps/app-page-header";
import { RequestLogTable } from "@/components/usage/request-log-table";
import { RouteName } from "@/components/usage/route-name";
import { ChartLegend, ErrorsByCode, LATENCY_LEGEND, LatencyChart, REQUEST_LEGEND, RequestsChart } from "@/components/usage/usage-charts";
import { UsageEmptyState } from "@/components/usage/usage-empty-state";
import { buttonClasses } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { FilterDisclosure } from "@/components/ui/filter-disclosure";
import { inputClasses } from "@/components/ui/field";
import { Icon } from "@/components/ui/icon";
import { StackLabel, StackTable, stackBody, stackRow } from "@/components/ui/stack-table";
import { env } from "@/lib/env";
import {
  GRANT_ROUTE_PREFIX,
  logTimeSchema,
  NO_ROUTE,
  requestIdSchema,
  requestLogCursorSchema,
  requestLogModeSchema,
  statusFilterSchema,
  UNAUTHENTICATED_ROUTE_PREFIX,
  usageModeSchema,
  usageRangeSchema,
  type RequestLogMode,
  type UsageMode,
  type UsageRange,
} from "@/lib/schemas/usage";
import { requireAppPage } from "@/lib/portal/session";
import { capabilities } from "@/lib/services/app-access";
import { getSandbox } from "@/lib/services/sandboxes";
import { getAppUsage, getAppUsageSeries, listRequestLogPage, type RouteUsage } from "@/lib/services/usage";

export const metadata: Metadata = { title: "Usage" };

/**
 * An app's Usage tab, for its team (owner, team admins, viewers) and platform admins (the
 * services answer not_found to anyone else). Range and request-log filters live in the URL, parsed
 * here with zod; junk falls back to the defaults (never a 500), and a malformed request id says so.
 * `mode=sandbox` shows the app's sandbox (metered as its own client, with its own quota)
 * instead of the live app, so a link to either view can be shared; the request log follows it, or
 * shows both (`log=all`) with the sandbox's rows marked.
 * The log's time window (`since`, `until`, UTC) and keyset paging (`before`: the cursor of
 * the last row shown), each row opening its detail view; the figures at the top are sums of the
 * Top routes table's rows (API requests; token requests are summed apart below them).
 */
const querySchema = z.object({
  mode: usageModeSchema.catch("live"),
  range: usageRangeSchema.catch("24h"),
  status: z.string().max(3).optional().catch(undefined),
  route: z.string().max(200).optional().catch(undefined),
  request_id: z.string().trim().max(100).optional().catch(undefined),
  log: requestLogModeSchema.optional().catch(undefined),
  since: z.string().trim().max(40).optional().catch(undefined),
  until: z.string().trim().max(40).optional().catch(undefined),
  before: z.string().max(64).optional().catch(undefined),
});
type Query = z.infer<typeof querySchema>;

const RANGE_LABEL: Record<UsageRange, string> = { "24h": "24 hours", "7d": "7 days", "30d": "30 days" };
const MODE_LABEL: Record<UsageMode, string> = { live: "Live", sandbox: "Sandbox" };
const LOG_MODE_LABEL: Record<RequestLogMode, string> = { live: "Live", sandbox: "Sandbox", all: "Live and sandbox" };

function usageHref(clientId: string, query: Query, change: Partial<Query>): string {
  const next = { ...query, ...change };
  const params = new URLSearchParams();
  if (next.mode !== "live") params.set("mode", next.mode);
  if (next.range !== "24h") params.set("range", next.range);
  if (next.status) params.set("status", next.status);
  if (next.route) params.set("route", next.route);
  if (next.request_id) params.set("request_id", next.request_id);
  if (next.log && next.log !== next.mode) params.set("log", next.log);
  if (next.since) params.set("since", next.since);
  if (next.until) params.set("until", next.until);
  if (next.before) params.set("before", next.before);
  const s = params.toString();
  return `/apps/${clientId}/usage${s ? `?${s}` : ""}`;
}

/** Rows per page of the request log. */
const LOG_PAGE_SIZE = 50;
/** API routes listed by name in Top routes; the rest are summed in one row, so the rows always add up to the total. */
const TOP_ROUTES = 10;

/** A time as a datetime-local field shows it, in UTC: `2026-11-26T14:05`. */
const utcInputValue = (date: Date) => date.toISOString().slice(0, 16);

/** Top routes: a card per route below sm, a table row from sm. */
const ROW = stackRow("sm", "flex flex-wrap gap-x-4 gap-y-1 border-t border-slate-100 py-2 sm:py-0");
const NAME_CELL = "min-w-0 basis-full sm:basis-auto sm:py-2";
const NUM = "whitespace-nowrap tabular-nums sm:py-2 sm:pr-3 sm:text-right";
const LAST = "whitespace-nowrap tabular-nums sm:py-2 sm:text-right";
const TOP_ROUTE_COLUMNS = [
  { label: "Route", className: "py-2 pr-3" },
  { label: "Calls", className: "py-2 pr-3 text-right" },
  { label: "Errors", className: "py-2 pr-3 text-right" },
  { label: "p95", className: "py-2 text-right" },
];
/** The phone card's name for a value (the table's header says it from sm). */
const Label = ({ children }: { children: string }) => <StackLabel at="sm">{children}</StackLabel>;

const pct = (n: number, total: number) => (total ? `${Math.round((n / total) * 1000) / 10}%` : "–");
const ms = (v: number | null) => (v === null ? "–" : `${v} ms`);

export default async function AppUsagePage({
  params,
  searchParams,
}: {
  params: Promise<{ clientId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { actor, app } = await requireAppPage(params);
  const query = querySchema.parse(await searchParams);
  const status = query.status ? statusFilterSchema.safeParse(query.status) : null;
  const requestId = query.request_id ? requestIdSchema.safeParse(query.request_id) : null;
  const since = query.since ? logTimeSchema.safeParse(query.since) : null;
  const until = query.until ? logTimeSchema.safeParse(query.until) : null;
  const cursor = query.before ? requestLogCursorSchema.safeParse(query.before) : null;
  const filterError =
    status && !status.success
      ? "Status must be 2xx, 4xx, 5xx or a code such as 429."
      : requestId && !requestId.success
        ? "That is not a request id: they are 8 to 64 letters, digits, dots, dashes or underscores, as in the X-Request-Id response header."
        : (since && !since.success) || (until && !until.success)
          ? "Times must read like 2026-11-26T14:00 (UTC)."
          : since?.success && until?.success && since.data >= until.data
            ? "The end of the time window must come after its start."
            : cursor && !cursor.success
              ? "That page link is broken: start again from the newest requests."
              : null;

  const mode = query.mode;
  const logMode = query.log ?? mode;
  const [summary, series, log, sandbox] = await Promise.all([
    getAppUsage(app.clientId, query.range, actor, { mode }),
    getAppUsageSeries(app.clientId, query.range, actor, { mode }),
    filterError
      ? Promise.resolve({ entries: [], nextCursor: null })
      : listRequestLogPage(
          app.clientId,
          {
            status: status?.success ? status.data : undefined,
            route: query.route || undefined,
            requestId: requestId?.success ? requestId.data : undefined,
            mode: logMode,
            since: since?.success ? since.data : undefined,
            until: until?.success ? until.data : undefined,
            cursor: cursor?.success ? cursor.data : undefined,
            limit: LOG_PAGE_SIZE,
          },
          actor,
        ),
    mode === "sandbox" ? getSandbox(app.clientId, actor) : null,
  ]);
  const quota = sandbox ? sandbox.quotaPerMinute : app.requestsPerMinute;
  const isTeam = capabilities(app, actor).onTeam;
  const apiRoutes = summary.routes.filter((r) => !r.route.startsWith(GRANT_ROUTE_PREFIX));
  const grants = summary.routes.filter((r) => r.route.startsWith(GRANT_ROUTE_PREFIX));
  const points = series.map((p) => ({ ...p, at: p.at.toISOString() }));
  const activeFilters = [query.status, query.route, query.request_id, query.since, query.until, logMode !== mode].filter(Boolean).length;
  const filtered = activeFilters > 0;
  const config = env();
  // The figures are sums of the Top routes table's rows (API requests; token requests are
  // summed apart below them), so they cannot disagree with it.
  const countOf = (r: RouteUsage, keep: (status: number) => boolean) => r.byStatus.reduce((n, b) => (keep(b.status) ? n + b.count : n), 0);
  const sum = (list: RouteUsage[], of: (r: RouteUsage) => number) => list.reduce((n, r) => n + of(r), 0);
  const isError = (status: number) => status >= 400;
  const requests = sum(apiRoutes, (r) => r.total);
  const errorCount = sum(apiRoutes, (r) => countOf(r, isError));
  const limited = sum(apiRoutes, (r) => countOf(r, (status) => status === 429));
  const tokenRequests = sum(grants, (r) => r.total);
  const topRoutes = apiRoutes.slice(0, TOP_ROUTES);
  const otherRoutes = apiRoutes.slice(TOP_ROUTES);

  return (
    <div className="space-y-8">
      <AppPageHeader app={app} current="usage" onTeam={isTeam} adminBack={{ href: "/admin/usage", label: "Usage of all apps" }} />

      <div className="flex flex-wrap items-center justify-between gap-3">
        <nav aria-label="Live or sandbox" className="inline-flex rounded-lg border border-slate-200 bg-white p-1 shadow-xs" data-testid="usage-mode">
          {usageModeSchema.options.map((m) => (
            <Link
              key={m}
              href={usageHref(app.clientId, query, { mode: m, log: undefined, route: undefined, request_id: undefined })}
              prefetch={false}
              aria-current={m === mode ? "page" : undefined}
              className={`inline-flex items-center gap-1.5 rounded-md px-3 py-1.5 text-sm font-medium ${
                m === mode ? (m === "sandbox" ? "bg-amber-700 text-white" : "bg-brand-600 text-white") : "text-slate-700 hover:bg-slate-100"
              }`}
            >
              {m === "sandbox" ? <Icon name="code" /> : <Icon name="globe" />} {MODE_LABEL[m]}
            </Link>
          ))}
        </nav>
        <nav aria-label="Time range" className="inline-flex rounded-lg border border-slate-200 bg-white p-1 shadow-xs">
          {usageRangeSchema.options.map((r) => (
            <Link
              key={r}
              href={usageHref(app.clientId, query, { range: r })}
              prefetch={false}
              aria-current={r === query.range ? "page" : undefined}
              className={`rounded-md px-3 py-1.5 text-sm font-medium ${
                r === query.range ? "bg-brand-600 text-white" : "text-slate-700 hover:bg-slate-100"
              }`}
            >
              {r}
            </Link>
          ))}
        </nav>
      </div>

      <p className="text-sm text-slate-600" data-testid="usage-mode-description">
        {mode === "sandbox" ? (
          <>
            The sandbox&apos;s API calls and token requests (client{" "}
            <code className="font-mono text-xs break-all">{summary.clientId}</code>), against its synthetic people, counted
            apart from the live app. Its quota is its own:{" "}
            <span className="font-medium text-slate-900" data-testid="usage-quota">
              {quota.toLocaleString("en-US")} requests per minute
            </span>
            , whatever the live app uses. Times are UTC; counts arrive within a few seconds.
          </>
        ) : (
          <>
            API calls made with this app&apos;s live tokens and its token requests, counted per minute; its sandbox&apos;s are
            counted apart. Quota:{" "}
            <span className="font-medium text-slate-900" data-testid="usage-quota">
              {quota.toLocaleString("en-US")} requests per minute
            </span>
            . Times are UTC; counts arrive within a few seconds.
          </>
        )}
      </p>

      <dl className="grid grid-cols-2 gap-4 lg:grid-cols-4" data-testid="usage-totals">
        {[
          {
            id: "requests",
            label: `${mode === "sandbox" ? "Sandbox requests" : "Requests"}, last ${RANGE_LABEL[query.range]}`,
            value: requests.toLocaleString("en"),
            note: tokenRequests ? `and ${tokenRequests.toLocaleString("en")} token requests` : null,
          },
          {
            id: "error-rate",
            label: "Error rate (4xx + 5xx)",
            value: pct(errorCount, requests),
            note: requests ? `${errorCount.toLocaleString("en")} of ${requests.toLocaleString("en")}` : null,
          },
          { id: "latency", label: "Latency p50 / p95", value: `${ms(summary.p50Ms)} / ${ms(summary.p95Ms)}`, note: null },
          { id: "limited", label: "Rate limited (429)", value: limited.toLocaleString("en"), note: null },
        ].map((s) => (
          <div key={s.label} className="min-w-0 rounded-xl border border-slate-200 bg-white p-4 shadow-xs" data-testid={`usage-figure-${s.id}`}>
            <dt className="text-sm text-slate-600">{s.label}</dt>
            <dd className="mt-1 text-xl font-semibold break-words text-slate-900 tabular-nums">{s.value}</dd>
            {s.note ? (
              <dd className="mt-0.5 text-sm text-slate-600 tabular-nums" data-testid={`usage-figure-${s.id}-note`}>
                {s.note}
              </dd>
            ) : null}
          </div>
        ))}
      </dl>

      {summary.unauthenticated.total > 0 ? (
        <Card
          title="Unauthenticated callers"
          description="Failed token requests that named this app's client ID without proving to be it: a wrong or missing client secret, or, for a login client (which has no secret), anyone sending its ID. They are not this app's errors and are in none of the figures above; each is in the request log."
        >
          <div data-testid="unauthenticated-callers">
            <p className="text-sm text-slate-700">
              <span className="font-semibold tabular-nums">{summary.unauthenticated.total.toLocaleString("en")}</span> failed token
              requests in the last {RANGE_LABEL[query.range]}.
            </p>
            <ul className="mt-2 space-y-1 text-sm text-slate-700">
              {summary.unauthenticated.byCode.map((c) => (
                <li key={`${c.grantType} ${c.status} ${c.code}`}>
                  <code className="font-mono text-xs">{c.grantType}</code>: {c.status} <code className="font-mono text-xs">{c.code}</code>{" "}
                  <span className="tabular-nums">× {c.count.toLocaleString("en")}</span>
                </li>
              ))}
            </ul>
          </div>
        </Card>
      ) : null}

      {summary.total === 0 && grants.length === 0 ? (
        <UsageEmptyState
          app={app}
          range={RANGE_LABEL[query.range]}
          issuer={config.ISSUER}
          apiUrl={config.API_URL}
          sandboxClientId={mode === "sandbox" ? summary.clientId : undefined}
        />
      ) : (
        <>
          <div className="grid gap-6 xl:grid-cols-2">
            <Card className="min-w-0" title="Requests" description="By status class.">
              <ChartLegend items={REQUEST_LEGEND} />
              <RequestsChart points={points} />
            </Card>
            <Card className="min-w-0" title="Latency" description="Time to answer, in milliseconds, measured in the server.">
              <ChartLegend items={LATENCY_LEGEND} />
              <LatencyChart points={points} />
            </Card>
          </div>
          <div className="grid gap-6 xl:grid-cols-2">
            <Card className="min-w-0" title="Errors by code" description="The error codes of 4xx and 5xx answers (see Errors and limits in the docs).">
              {summary.errors.length ? (
                <ErrorsByCode errors={summary.errors} />
              ) : (
                <p className="text-sm text-slate-600">No errors in the last {RANGE_LABEL[query.range]}.</p>
              )}
            </Card>
            <Card className="min-w-0" title="Top routes" description="Route templates, most called first, adding up to the requests above; token requests below.">
              {/* Below sm each route is a card: its name at full width, then calls, errors and
                  p95, each named; from sm a table. */}
              <div role="region" aria-label="Top routes" tabIndex={0} className="max-w-full overflow-x-auto">
              <StackTable at="sm" columns={TOP_ROUTE_COLUMNS} testId="top-routes">
                <tbody className={stackBody("sm")} data-testid="top-routes-api">
                  {topRoutes.map((r) => {
                    const errors = countOf(r, isError);
                    return (
                      <tr key={r.route} className={ROW} data-testid="top-route-row">
                        <td className={`${NAME_CELL} sm:pr-3`}>
                          <Link
                            href={`${usageHref(app.clientId, query, { route: r.route, request_id: undefined, before: undefined })}#request-log`}
                            prefetch={false}
                            className="font-mono text-xs break-words text-brand-700 hover:underline"
                          >
                            {r.route === NO_ROUTE ? <span className="font-sans">Unknown paths and methods</span> : <RouteName route={r.route} />}
                          </Link>
                        </td>
                        <td className={NUM} data-testid="route-calls"><Label>Calls</Label>{r.total.toLocaleString("en")}</td>
                        <td className={NUM} data-testid="route-errors" data-count={errors}>
                          <Label>Errors</Label>
                          {errors.toLocaleString("en")} <span className="text-xs text-slate-600">({pct(errors, r.total)})</span>
                        </td>
                        <td className={LAST}><Label>p95</Label>{ms(r.p95Ms)}</td>
                      </tr>
                    );
                  })}
                  {otherRoutes.length ? (
                    <tr className={ROW} data-testid="top-route-row">
                      <td className={`${NAME_CELL} text-slate-700 sm:pr-3`}>{otherRoutes.length} other routes</td>
                      <td className={NUM} data-testid="route-calls"><Label>Calls</Label>{sum(otherRoutes, (r) => r.total).toLocaleString("en")}</td>
                      <td className={NUM} data-testid="route-errors" data-count={sum(otherRoutes, (r) => countOf(r, isError))}>
                        <Label>Errors</Label>
                        {sum(otherRoutes, (r) => countOf(r, isError)).toLocaleString("en")}
                      </td>
                      <td className={LAST}><Label>p95</Label>–</td>
                    </tr>
                  ) : null}
                </tbody>
                <tbody className={stackBody("sm")}>
                  <tr className={`${ROW} border-slate-300 font-semibold`} data-testid="top-routes-total">
                    <th scope="row" className={`${NAME_CELL} text-left sm:pr-3`}>All requests</th>
                    <td className={NUM}><Label>Calls</Label>{requests.toLocaleString("en")}</td>
                    <td className={NUM}><Label>Errors</Label>{errorCount.toLocaleString("en")}</td>
                    <td className={LAST}><Label>p95</Label>{ms(summary.p95Ms)}</td>
                  </tr>
                </tbody>
                {grants.length ? (
                  <tbody className={stackBody("sm")} data-testid="top-routes-token">
                    {grants.map((r) => {
                      const errors = countOf(r, isError);
                      return (
                        <tr key={r.route} className={ROW} data-testid="token-route-row">
                          <td className={`${NAME_CELL} text-slate-700 sm:pr-3`}>
                            Token: <code className="font-mono text-xs break-all">{r.route.slice(GRANT_ROUTE_PREFIX.length)}</code>
                          </td>
                          <td className={NUM} data-testid="route-calls"><Label>Calls</Label>{r.total.toLocaleString("en")}</td>
                          <td className={NUM}>
                            <Label>Errors</Label>
                            {errors.toLocaleString("en")} <span className="text-xs text-slate-600">({pct(errors, r.total)})</span>
                          </td>
                          <td className={LAST}><Label>p95</Label>{ms(r.p95Ms)}</td>
                        </tr>
                      );
                    })}
                    <tr className={`${ROW} border-slate-300 font-semibold`} data-testid="token-routes-total">
                      <th scope="row" className={`${NAME_CELL} text-left sm:pr-3`}>All token requests</th>
                      <td className={NUM}><Label>Calls</Label>{tokenRequests.toLocaleString("en")}</td>
                      <td className={NUM}><Label>Errors</Label>{sum(grants, (r) => countOf(r, isError)).toLocaleString("en")}</td>
                      <td className={`${LAST} max-sm:hidden`} />
                    </tr>
                  </tbody>
                ) : null}
              </StackTable>
              </div>
            </Card>
          </div>
        </>
      )}

      <Card
        id="request-log"
        title="Request log"
        description="Every API request made with this app's tokens and every token request naming its client ID, newest first: at least the last 1,000, and every error answer of the last 7 days (up to 10,000). Open a request id for its details. No tokens, secrets, bodies or query strings are kept."
      >
        <FilterDisclosure active={activeFilters}>
        <form
          role="search"
          aria-label="Filter the request log"
          action={`/apps/${app.clientId}/usage#request-log`}
          method="get"
          className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3 lg:items-end"
        >
          {mode !== "live" ? <input type="hidden" name="mode" value={mode} /> : null}
          {query.range !== "24h" ? <input type="hidden" name="range" value={query.range} /> : null}
          <div>
            <label htmlFor="log-mode" className="block text-sm font-medium text-slate-900">
              Requests of
            </label>
            <select id="log-mode" name="log" defaultValue={logMode} className={`${inputClasses} mt-1`}>
              {requestLogModeSchema.options.map((m) => (
                <option key={m} value={m}>
                  {LOG_MODE_LABEL[m]}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label htmlFor="log-status" className="block text-sm font-medium text-slate-900">
              Status
            </label>
            <select id="log-status" name="status" defaultValue={query.status ?? ""} className={`${inputClasses} mt-1`}>
              <option value="">Any</option>
              <option value="2xx">2xx success</option>
              <option value="4xx">4xx client error</option>
              <option value="5xx">5xx server error</option>
              <option value="429">429 rate limited</option>
              {query.status && !["2xx", "4xx", "5xx", "429"].includes(query.status) ? <option value={query.status}>{query.status}</option> : null}
            </select>
          </div>
          <div>
            <label htmlFor="log-route" className="block text-sm font-medium text-slate-900">
              Route
            </label>
            <select id="log-route" name="route" defaultValue={query.route ?? ""} className={`${inputClasses} mt-1`}>
              <option value="">Any route</option>
              {[...new Set([...apiRoutes.map((r) => r.route), ...grants.map((r) => r.route), ...summary.unauthenticated.byCode.map((c) => UNAUTHENTICATED_ROUTE_PREFIX + c.grantType), ...(query.route ? [query.route] : [])])].map((r) => (
                <option key={r} value={r}>
                  {r === NO_ROUTE ? "Unknown paths and methods" : r}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label htmlFor="log-request-id" className="block text-sm font-medium text-slate-900">
              Request id
            </label>
            <input
              id="log-request-id"
              name="request_id"
              defaultValue={query.request_id ?? ""}
              placeholder="From the X-Request-Id header"
              autoComplete="off"
              spellCheck={false}
              aria-invalid={requestId && !requestId.success ? true : undefined}
              aria-describedby={filterError ? "log-filter-error" : undefined}
              className={`${inputClasses} mt-1 font-mono`}
            />
          </div>
          <div>
            <label htmlFor="log-since" className="block text-sm font-medium text-slate-900">
              From (UTC)
            </label>
            <input
              id="log-since"
              name="since"
              type="datetime-local"
              defaultValue={since?.success ? utcInputValue(since.data) : (query.since ?? "")}
              aria-invalid={since && !since.success ? true : undefined}
              aria-describedby={filterError ? "log-filter-error" : undefined}
              className={`${inputClasses} mt-1`}
            />
          </div>
          <div>
            <label htmlFor="log-until" className="block text-sm font-medium text-slate-900">
              Until (UTC)
            </label>
            <input
              id="log-until"
              name="until"
              type="datetime-local"
              defaultValue={until?.success ? utcInputValue(until.data) : (query.until ?? "")}
              aria-invalid={until && !until.success ? true : undefined}
              aria-describedby={filterError ? "log-filter-error" : undefined}
              className={`${inputClasses} mt-1`}
            />
          </div>
          <div className="flex gap-2 sm:col-span-2 lg:col-span-3">
            <button type="submit" className={buttonClasses("secondary")}>
              <Icon name="search" /> Search
            </button>
            {filtered ? (
              <Link
                href={`${usageHref(app.clientId, query, { status: undefined, route: undefined, request_id: undefined, log: undefined, since: undefined, until: undefined, before: undefined })}#request-log`}
                className={buttonClasses("ghost")}
              >
                Clear
              </Link>
            ) : null}
          </div>
        </form>
        </FilterDisclosure>
        {filterError ? (
          <p id="log-filter-error" role="alert" className="mt-3 text-sm text-red-700">
            {filterError}
          </p>
        ) : null}
        <div className="mt-4">
          <RequestLogTable
            clientId={app.clientId}
            entries={log.entries}
            emptyText={
              filterError
                ? "Fix the filter above to search."
                : filtered
                  ? query.request_id
                    ? "No request with that id in this app's log. Request ids are kept with the log: the last 1,000 requests and the errors of the last 7 days."
                    : "No requests match these filters."
                  : "No requests logged yet. Calls appear here a few seconds after they are made."
            }
          />
        </div>
        {query.before || log.nextCursor ? (
          <nav aria-label="Request log pages" className="mt-4 flex flex-wrap items-center justify-between gap-3" data-testid="request-log-pages">
            {query.before ? (
              <Link href={`${usageHref(app.clientId, query, { before: undefined })}#request-log`} prefetch={false} className={buttonClasses("ghost")}>
                <Icon name="arrowLeft" /> Newest requests
              </Link>
            ) : (
              <span />
            )}
            {log.nextCursor ? (
              <Link href={`${usageHref(app.clientId, query, { before: log.nextCursor })}#request-log`} prefetch={false} className={buttonClasses("secondary")}>
                Older requests <Icon name="arrowRight" />
              </Link>
            ) : null}
          </nav>
        ) : null}
      </Card>
    </div>
  );
}
