import type { Metadata } from "next";
import Link from "next/link";
import { z } from "zod";
import { Badge } from "@/components/ui/badge";
import { buttonClasses } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { inputClasses } from "@/components/ui/field";
import { FilterDisclosure } from "@/components/ui/filter-disclosure";
import { Pagination } from "@/components/ui/pagination";
import { StackTable, stackBody, stackRow } from "@/components/ui/stack-table";
import { isAppError } from "@/lib/errors";
import { requireAdmin } from "@/lib/portal/session";
import { listAuditActions, listAuditLog, type AuditFilters } from "@/lib/services/audit";

export const metadata: Metadata = { title: "Audit log" };

const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .refine((v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)));

/** The log's filters live in the URL (a reload or a shared link keeps them); junk is ignored, never a 500. */
const querySchema = z.object({
  actor: z.string().trim().max(60).optional().catch(undefined),
  action: z.string().trim().max(60).regex(/^[a-z_.*]+$/).optional().catch(undefined),
  target: z.string().trim().max(100).regex(/^@?[A-Za-z0-9_:-]+$/).optional().catch(undefined),
  from: day.optional().catch(undefined),
  to: day.optional().catch(undefined),
  cursor: z.string().max(60).optional().catch(undefined),
});
type Query = z.infer<typeof querySchema>;

function auditHref(query: Query, change: Partial<Query>): string {
  const next: Query = { ...query, cursor: undefined, ...change };
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(next)) if (value) params.set(key, value);
  const s = params.toString();
  return `/admin/audit${s ? `?${s}` : ""}`;
}

/** Lists read as words (`fields: name, description, scopes`), so a long one wraps between them. */
function formatValue(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(formatValue).join(", ");
  return JSON.stringify(value);
}

function formatDetail(detail: Record<string, unknown>): string {
  return Object.entries(detail)
    .map(([k, v]) => `${k}: ${formatValue(v)}`)
    .join(" · ");
}

// At least 24 px tall (WCAG 2.2 target size): a table of small links is a wall of targets.
const AUDIT_COLUMNS = ["When", "Who", "Action", "Target", "Detail"].map((label) => ({ label, className: "px-4 py-3" }));
const FILTER_LINK = "inline-block min-h-6 leading-6 rounded hover:underline focus-visible:outline-2 focus-visible:outline-brand-600";

export default async function AuditLogPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await requireAdmin();
  const query = querySchema.parse(await searchParams);
  const filters: AuditFilters = {
    actor: query.actor || undefined,
    action: query.action || undefined,
    target: query.target || undefined,
    from: query.from ? new Date(`${query.from}T00:00:00Z`) : undefined,
    // "To" is inclusive: the whole of that day (UTC).
    to: query.to ? new Date(Date.parse(`${query.to}T00:00:00Z`) + 86_400_000) : undefined,
  };
  const [page, actions] = await Promise.all([
    listAuditLog({ ...filters, cursor: query.cursor, limit: 50 }).catch((error: unknown) => {
      if (isAppError(error) && error.code === "invalid_request") return listAuditLog({ ...filters, limit: 50 });
      throw error;
    }),
    listAuditActions(),
  ]);
  const activeFilters = [query.actor, query.action, query.target, query.from, query.to].filter(Boolean).length;
  const filtered = activeFilters > 0;

  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Audit log</h1>
        <p className="mt-1 text-sm text-slate-600">
          Every admin and security-relevant action, newest first. Refused attempts are marked “denied”. Times are UTC.
        </p>
      </div>

      <FilterDisclosure active={activeFilters}>
      <form
        role="search"
        aria-label="Filter the audit log"
        action="/admin/audit"
        method="get"
        className="grid gap-3 rounded-xl border border-slate-200 bg-white p-4 shadow-xs sm:grid-cols-2 lg:grid-cols-[repeat(5,minmax(0,1fr))_auto] lg:items-end"
      >
        <div>
          <label htmlFor="audit-actor" className="block text-sm font-medium text-slate-900">
            Actor
          </label>
          <input id="audit-actor" name="actor" defaultValue={query.actor ?? ""} placeholder="@handle or system:cli" className={`${inputClasses} mt-1`} />
        </div>
        <div>
          <label htmlFor="audit-action" className="block text-sm font-medium text-slate-900">
            Action
          </label>
          <select id="audit-action" name="action" defaultValue={query.action ?? ""} className={`${inputClasses} mt-1`}>
            <option value="">All actions</option>
            {[...new Set(["app.*", "user.*", ...actions, ...(query.action ? [query.action] : [])])].map((a) => (
              <option key={a} value={a}>
                {a.endsWith(".*") ? `${a.slice(0, -2)}.… (all)` : a}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="audit-target" className="block text-sm font-medium text-slate-900">
            Target
          </label>
          <input id="audit-target" name="target" defaultValue={query.target ?? ""} placeholder="Client ID or @handle" className={`${inputClasses} mt-1`} />
        </div>
        <div>
          <label htmlFor="audit-from" className="block text-sm font-medium text-slate-900">
            From
          </label>
          <input id="audit-from" name="from" type="date" defaultValue={query.from ?? ""} className={`${inputClasses} mt-1`} />
        </div>
        <div>
          <label htmlFor="audit-to" className="block text-sm font-medium text-slate-900">
            To
          </label>
          <input id="audit-to" name="to" type="date" defaultValue={query.to ?? ""} className={`${inputClasses} mt-1`} />
        </div>
        <div className="flex gap-2">
          <button type="submit" className={buttonClasses("secondary")}>
            Filter
          </button>
          {filtered ? (
            <Link href="/admin/audit" className={buttonClasses("ghost")}>
              Clear
            </Link>
          ) : null}
        </div>
      </form>
      </FilterDisclosure>

      {page.entries.length === 0 ? (
        <EmptyState icon="list" title={filtered ? "No entries match" : "Nothing logged yet"} />
      ) : (
        <div className="overflow-x-auto rounded-xl border border-slate-200 bg-white shadow-xs">
          {/* Below lg each entry is a card (when, who and what on one wrapping line; the target and the
              detail at full width beneath), so a long app name wraps at the phone's width instead of
              in a column squeezed between four others; from lg a table whose target column keeps a
              readable width (the wrapper scrolls if the columns need more). */}
          <StackTable at="lg" caption="Audit log entries" columns={AUDIT_COLUMNS} className="lg:min-w-[760px]" headClassName="bg-slate-50">
            <tbody className={stackBody("lg", "divide-y divide-slate-100")}>
              {page.entries.map((e) => (
                <tr key={e.id} className={stackRow("lg", "flex flex-wrap items-baseline gap-x-4 gap-y-1 p-4 align-top lg:p-0")} data-audit-action={e.action}>
                  <td className="font-mono text-xs whitespace-nowrap text-slate-700 lg:px-4 lg:py-3">
                    <time dateTime={e.createdAt.toISOString()}>{e.createdAt.toISOString().slice(0, 19).replace("T", " ")}</time>
                  </td>
                  <td className="whitespace-nowrap text-slate-900 lg:px-4 lg:py-3">
                    {e.actorHandle ? (
                      <Link href={auditHref(query, { actor: e.actorHandle })} prefetch={false} className={FILTER_LINK} title="Show only this actor">
                        {e.actorHandle.startsWith("system:") ? e.actorHandle : `@${e.actorHandle}`}
                      </Link>
                    ) : (
                      "—"
                    )}
                    {e.ip ? <span className="block text-xs text-slate-600">{e.ip}</span> : null}
                  </td>
                  <td className="whitespace-nowrap lg:px-4 lg:py-3">
                    <Link href={auditHref(query, { action: e.action })} prefetch={false} className={FILTER_LINK} title="Show only this action">
                      <code className="font-mono text-xs text-slate-900">{e.action}</code>
                    </Link>
                    {e.outcome === "denied" ? (
                      <span className="ml-2">
                        <Badge tone="red">denied</Badge>
                      </span>
                    ) : null}
                  </td>
                  <td className="min-w-0 basis-full lg:max-w-64 lg:min-w-48 lg:px-4 lg:py-3">
                    {e.targetType === "app" ? (
                      <>
                        {e.targetName ? (
                          <Link href={`/apps/${e.targetId}`} prefetch={false} className="inline-block min-h-6 leading-6 font-medium break-words text-brand-700 hover:underline">
                            {e.targetName}
                          </Link>
                        ) : (
                          <span className="text-slate-600 italic">deleted app</span>
                        )}
                        <div>
                          <Link
                            href={auditHref(query, { target: e.targetId })}
                            prefetch={false}
                            className={`font-mono text-xs break-all text-slate-600 ${FILTER_LINK}`}
                            title="Show only this app"
                          >
                            {e.targetId}
                          </Link>
                        </div>
                      </>
                    ) : e.targetType === "user" ? (
                      <Link href={auditHref(query, { target: e.targetId })} prefetch={false} className={`break-all text-slate-900 ${FILTER_LINK}`} title="Show only this user">
                        @{e.targetId}
                      </Link>
                    ) : (
                      <span className="font-mono text-xs break-all text-slate-900">{`${e.targetType}:${e.targetId}`}</span>
                    )}
                  </td>
                  <td className="min-w-0 basis-full text-xs wrap-anywhere text-slate-600 lg:max-w-md lg:min-w-64 lg:px-4 lg:py-3">{formatDetail(e.detail)}</td>
                </tr>
              ))}
            </tbody>
          </StackTable>
        </div>
      )}
      <Pagination
        isFirst={!query.cursor}
        firstHref={auditHref(query, {})}
        nextHref={page.nextCursor ? auditHref(query, { cursor: page.nextCursor }) : null}
      />
    </div>
  );
}
