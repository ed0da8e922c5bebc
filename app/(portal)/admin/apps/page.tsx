import type { Metadata } from "next";
import Link from "next/link";
import { z } from "zod";
import { AppTable } from "@/components/admin/app-table";
import { EmptyState } from "@/components/ui/empty-state";
import { Pagination } from "@/components/ui/pagination";
import { isAppError } from "@/lib/errors";
import { appStatusSchema } from "@/lib/schemas/apps";
import { requireAdmin } from "@/lib/portal/session";
import { listApps } from "@/lib/services/apps";

export const metadata: Metadata = { title: "Applications" };

const querySchema = z.object({
  status: appStatusSchema.optional().catch(undefined),
  cursor: z.string().max(200).optional().catch(undefined),
});

const FILTERS = [
  { value: undefined, label: "All" },
  { value: "pending", label: "Pending" },
  { value: "approved", label: "Approved" },
  { value: "rejected", label: "Rejected" },
  { value: "suspended", label: "Suspended" },
] as const;

export default async function AdminAppsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await requireAdmin();
  const query = querySchema.parse(await searchParams);
  const page = await listApps({ status: query.status, cursor: query.cursor, limit: 25 }).catch((error: unknown) => {
    // A tampered cursor shows the first page rather than an error page.
    if (isAppError(error) && error.code === "invalid_request") return listApps({ status: query.status, limit: 25 });
    throw error;
  });
  const base = (extra: Record<string, string>) => {
    const p = new URLSearchParams({ ...(query.status ? { status: query.status } : {}), ...extra });
    const s = p.toString();
    return `/admin/apps${s ? `?${s}` : ""}`;
  };
  return (
    <div className="space-y-6">
      <div className="flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Applications</h1>
          <p className="mt-1 text-sm text-slate-600">Every registered application, oldest first. Suspending an app voids all of its tokens at once; reinstating it does not revive them.</p>
        </div>
        <nav aria-label="Filter by status" className="flex flex-wrap gap-1 rounded-lg bg-slate-100 p-1">
          {FILTERS.map((f) => {
            const active = query.status === f.value;
            const href = f.value ? `/admin/apps?status=${f.value}` : "/admin/apps";
            return (
              <Link
                key={f.label}
                href={href}
                aria-current={active ? "page" : undefined}
                className={`rounded-md px-3 py-1.5 text-sm font-medium ${active ? "bg-white text-slate-900 shadow-sm" : "text-slate-600 hover:text-slate-900"}`}
              >
                {f.label}
              </Link>
            );
          })}
        </nav>
      </div>
      {page.apps.length ? (
        <AppTable apps={page.apps} caption="Applications" />
      ) : (
        <EmptyState icon="grid" title="No applications" description="Nothing matches this filter." />
      )}
      <Pagination
        isFirst={!query.cursor}
        firstHref={base({})}
        nextHref={page.nextCursor ? base({ cursor: page.nextCursor }) : null}
      />
    </div>
  );
}
