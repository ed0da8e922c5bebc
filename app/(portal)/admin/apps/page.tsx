import type { Metadata } from "next";
import Link from "next/link";
import { ReviewQueue } from "@/components/admin/review-queue";
import { buttonClasses } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { inputClasses } from "@/components/ui/field";
import { Icon } from "@/components/ui/icon";
import { Pagination } from "@/components/ui/pagination";
import { isAppError } from "@/lib/errors";
import { appQueueQuerySchema, type AppQueueQuery } from "@/lib/schemas/apps";
import { requireAdmin } from "@/lib/portal/session";
import { countApps, listApps } from "@/lib/services/apps";

export const metadata: Metadata = { title: "Review queue" };

const PAGE_SIZE = 25;

const STATUS_TABS = [
  { value: "pending", label: "Pending" },
  { value: "approved", label: "Approved" },
  { value: "rejected", label: "Rejected" },
  { value: "suspended", label: "Suspended" },
  { value: "all", label: "All" },
] as const;

/** The queue's URL: filters live in the query string, so a reload or a shared link keeps them. */
function queueHref(query: AppQueueQuery, change: Partial<AppQueueQuery>): string {
  const next = { ...query, cursor: undefined, ...change };
  const params = new URLSearchParams();
  if (next.q) params.set("q", next.q);
  if (next.status && next.status !== "pending") params.set("status", next.status);
  if (next.type) params.set("type", next.type);
  if (next.resubmitted) params.set("resubmitted", "1");
  if (next.changes) params.set("changes", "1");
  if (next.cursor) params.set("cursor", next.cursor);
  const s = params.toString();
  return `/admin/apps${s ? `?${s}` : ""}`;
}

/**
 * The review queue, also served at /admin: pending apps oldest first by default; search,
 * status, type and "resubmitted" filters in the URL; keyset pages; bulk approve with undo.
 */
export default async function ReviewQueuePage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  await requireAdmin();
  // One reading of the clock for the page, sent to the client rows too: their relative times then
  // hydrate to the server's text (React #418 when the browser read its own clock).
  const now = new Date();
  const query = appQueueQuerySchema.parse(await searchParams);
  const status = query.status ?? "pending";
  const filters = {
    status: status === "all" ? undefined : status,
    type: query.type,
    resubmitted: query.resubmitted === "1",
    changes: query.changes === "1",
    search: query.q || undefined,
  };
  const [page, counts, changesWaiting] = await Promise.all([
    listApps({ ...filters, cursor: query.cursor, limit: PAGE_SIZE }).catch((error: unknown) => {
      // A tampered cursor shows the first page rather than an error page.
      if (isAppError(error) && error.code === "invalid_request") return listApps({ ...filters, limit: PAGE_SIZE });
      throw error;
    }),
    countApps(filters),
    countApps({ changes: true }),
  ]);
  const filtered = Boolean(filters.search || filters.type || filters.resubmitted || filters.changes);
  const statusLabel = STATUS_TABS.find((t) => t.value === status)!.label.toLowerCase();

  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Review queue</h1>
        <p className="mt-1 text-sm text-slate-600">
          {status === "pending"
            ? "Applications waiting for review, oldest first. Approving an API key client lets its owner reveal the secret once; an approval can be undone for a few seconds from its notification."
            : "Every registered application matching the filters, oldest first. Suspending an app voids all of its tokens at once; reinstating it does not revive them."}
        </p>
      </div>

      {changesWaiting.total > 0 || query.changes ? (
        <p className="text-sm">
          {query.changes ? (
            <Link href={queueHref(query, { changes: undefined })} className="font-medium text-brand-700 hover:underline">
              Show every application again
            </Link>
          ) : (
            <Link href={queueHref(query, { changes: "1", status: "all" })} className="font-medium text-brand-700 hover:underline">
              {changesWaiting.total} approved {changesWaiting.total === 1 ? "app has" : "apps have"} changes waiting for review
            </Link>
          )}
        </p>
      ) : null}

      <nav aria-label="Filter by status" className="flex flex-wrap gap-1 rounded-lg bg-slate-100 p-1">
        {STATUS_TABS.map((tab) => {
          const active = status === tab.value;
          const count =
            tab.value === "all" ? Object.values(counts.byStatus).reduce((a, b) => a + b, 0) : counts.byStatus[tab.value];
          return (
            <Link
              key={tab.value}
              href={queueHref(query, { status: tab.value })}
              aria-current={active ? "page" : undefined}
              className={`rounded-md px-3 py-1.5 text-sm font-medium ${active ? "bg-white text-slate-900 shadow-sm" : "text-slate-700 hover:text-slate-900"}`}
            >
              {tab.label} <span className="text-slate-600 tabular-nums">{count}</span>
            </Link>
          );
        })}
      </nav>

      <form role="search" action="/admin/apps" method="get" className="grid gap-3 sm:grid-cols-[minmax(0,1fr)_auto_auto_auto] sm:items-end">
        {status !== "pending" ? <input type="hidden" name="status" value={status} /> : null}
        <div>
          <label htmlFor="queue-search" className="block text-sm font-medium text-slate-900">
            Search
          </label>
          <div className="relative mt-1">
            <Icon name="search" className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-slate-500" />
            <input
              id="queue-search"
              name="q"
              type="search"
              defaultValue={query.q ?? ""}
              placeholder="Name, client ID, @owner or description"
              className={`${inputClasses} pl-9`}
            />
          </div>
        </div>
        <div>
          <label htmlFor="queue-type" className="block text-sm font-medium text-slate-900">
            Type
          </label>
          <select id="queue-type" name="type" defaultValue={query.type ?? ""} className={`${inputClasses} mt-1`}>
            <option value="">All types</option>
            <option value="api">API key clients</option>
            <option value="login">Login clients</option>
          </select>
        </div>
        <label className="flex h-10 items-center gap-2 text-sm font-medium text-slate-900">
          <input
            type="checkbox"
            name="resubmitted"
            value="1"
            defaultChecked={query.resubmitted === "1"}
            className="size-4 rounded border-slate-400 accent-brand-600"
          />
          Resubmitted only
        </label>
        <div className="flex gap-2">
          <button type="submit" className={buttonClasses("secondary")}>
            Apply
          </button>
          {filtered ? (
            <Link href={queueHref({}, { status })} className={buttonClasses("ghost")}>
              Clear
            </Link>
          ) : null}
        </div>
      </form>

      <p className="text-sm text-slate-700" aria-live="polite">
        {counts.total === 1 ? "1 application" : `${counts.total} applications`} {status === "all" ? "" : statusLabel}
        {filtered ? " match the filters" : ""}
        {counts.resubmitted && !filters.resubmitted ? (
          <>
            {" · "}
            <Link href={queueHref(query, { resubmitted: "1" })} className="font-medium text-brand-700 hover:underline">
              {counts.resubmitted} resubmitted
            </Link>
          </>
        ) : null}
      </p>

      {page.apps.length ? (
        <ReviewQueue apps={page.apps} showStatus={status === "all"} now={now} />
      ) : (
        <EmptyState
          icon={status === "pending" && !filtered ? "check" : "grid"}
          title={status === "pending" && !filtered ? "All caught up" : "No applications"}
          description={status === "pending" && !filtered ? "No application is waiting for review." : "Nothing matches these filters."}
        />
      )}
      <Pagination
        isFirst={!query.cursor}
        firstHref={queueHref(query, {})}
        nextHref={page.nextCursor ? queueHref(query, { cursor: page.nextCursor }) : null}
      />
    </div>
  );
}
