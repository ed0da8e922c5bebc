import type { Metadata } from "next";
import Link from "next/link";
import { z } from "zod";
import { EmptyState } from "@/components/ui/empty-state";
import { usageRangeSchema, type UsageRange } from "@/lib/schemas/usage";
import { requireAdmin, toActor } from "@/lib/portal/session";
import { getUsageOverview, type AppTraffic } from "@/lib/services/usage";

export const metadata: Metadata = { title: "Usage of all apps" };

/** Issue 16: which apps send the most traffic, fail most often and hit limits most (admins only). */
const querySchema = z.object({ range: usageRangeSchema.catch("24h") });
const RANGE_LABEL: Record<UsageRange, string> = { "24h": "24 hours", "7d": "7 days", "30d": "30 days" };
const TOP = 10;
/** An error rate over a handful of calls says little; the ranking needs this many. */
const MIN_CALLS_FOR_RATE = 20;

const pct = (r: number) => `${Math.round(r * 1000) / 10}%`;

function Ranking({ title, description, apps, value, label }: { title: string; description: string; apps: AppTraffic[]; value: (a: AppTraffic) => string; label: string }) {
  const id = title.toLowerCase().replace(/[^a-z]+/g, "-");
  return (
    <section aria-labelledby={id} className="min-w-0 rounded-xl border border-slate-200 bg-white shadow-xs">
      <header className="border-b border-slate-100 px-5 py-4">
        <h2 id={id} className="text-base font-semibold text-slate-900">{title}</h2>
        <p className="mt-0.5 text-sm text-slate-600">{description}</p>
      </header>
      {apps.length ? (
        <ol className="divide-y divide-slate-100">
          {apps.map((a) => (
            <li key={a.clientId} className="flex items-center justify-between gap-3 px-5 py-2.5 text-sm">
              <Link href={`/apps/${a.clientId}/usage`} prefetch={false} className="min-w-0 text-brand-700 hover:underline">
                <span className="block truncate font-medium">{a.name ?? "Deleted app"}</span>
                <span className="block truncate font-mono text-xs text-slate-600">{a.clientId}</span>
              </Link>
              <span className="shrink-0 text-right tabular-nums text-slate-900">
                {value(a)} <span className="sr-only">{label}</span>
              </span>
            </li>
          ))}
        </ol>
      ) : (
        <p className="px-5 py-4 text-sm text-slate-600">Nothing to rank.</p>
      )}
    </section>
  );
}

export default async function AdminUsagePage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const user = await requireAdmin();
  const { range } = querySchema.parse(await searchParams);
  const apps = await getUsageOverview(range, await toActor(user));
  const byTraffic = apps.slice(0, TOP);
  const byErrors = apps
    .filter((a) => a.total >= MIN_CALLS_FOR_RATE && a.errors > 0)
    .sort((a, b) => b.errorRate - a.errorRate || b.errors - a.errors)
    .slice(0, TOP);
  const byLimited = apps.filter((a) => a.limited > 0).sort((a, b) => b.limited - a.limited).slice(0, TOP);

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Usage</h1>
          <p className="mt-1 text-sm text-slate-600">
            API requests and token requests per app over the last {RANGE_LABEL[range]}. Open an app for its charts and request log.
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
      {apps.length === 0 ? (
        <EmptyState icon="chart" title="No traffic yet" description={`No app made a call in the last ${RANGE_LABEL[range]}.`} />
      ) : (
        <div className="grid gap-6 lg:grid-cols-3">
          <Ranking title="Most traffic" description="All requests, token requests included." apps={byTraffic} value={(a) => a.total.toLocaleString("en")} label="requests" />
          <Ranking
            title="Highest error rate"
            description={`4xx and 5xx answers, apps with at least ${MIN_CALLS_FOR_RATE} requests.`}
            apps={byErrors}
            value={(a) => `${pct(a.errorRate)} (${a.errors.toLocaleString("en")})`}
            label="error rate"
          />
          <Ranking title="Most rate limited" description="429 answers." apps={byLimited} value={(a) => a.limited.toLocaleString("en")} label="429 answers" />
        </div>
      )}
    </div>
  );
}
