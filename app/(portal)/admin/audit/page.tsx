import type { Metadata } from "next";
import Link from "next/link";
import { z } from "zod";
import { Badge } from "@/components/ui/badge";
import { EmptyState } from "@/components/ui/empty-state";
import { Pagination } from "@/components/ui/pagination";
import { isAppError } from "@/lib/errors";
import { requireAdmin } from "@/lib/portal/session";
import { listAuditLog } from "@/lib/services/audit";

export const metadata: Metadata = { title: "Audit log" };

const querySchema = z.object({ cursor: z.string().max(20).optional().catch(undefined) });

function formatDetail(detail: Record<string, unknown>): string {
  const entries = Object.entries(detail);
  if (!entries.length) return "";
  return entries.map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`).join(" · ");
}

export default async function AuditLogPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await requireAdmin();
  const query = querySchema.parse(await searchParams);
  const page = await listAuditLog({ cursor: query.cursor, limit: 50 }).catch((error: unknown) => {
    if (isAppError(error) && error.code === "invalid_request") return listAuditLog({ limit: 50 });
    throw error;
  });
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Audit log</h1>
        <p className="mt-1 text-sm text-slate-600">Every admin and security-relevant action, newest first. Refused attempts are marked “denied”.</p>
      </div>
      {page.entries.length === 0 ? (
        <EmptyState icon="list" title="Nothing logged yet" />
      ) : (
        <div className="overflow-x-auto rounded-xl border border-slate-200 bg-white shadow-xs">
          <table className="w-full min-w-[720px] text-left text-sm">
            <caption className="sr-only">Audit log entries</caption>
            <thead className="bg-slate-50 text-xs font-semibold tracking-wide text-slate-600 uppercase">
              <tr>
                <th scope="col" className="px-4 py-3">When (UTC)</th>
                <th scope="col" className="px-4 py-3">Who</th>
                <th scope="col" className="px-4 py-3">Action</th>
                <th scope="col" className="px-4 py-3">Target</th>
                <th scope="col" className="px-4 py-3">Detail</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {page.entries.map((e) => (
                <tr key={e.id} className="align-top">
                  <td className="px-4 py-3 font-mono text-xs whitespace-nowrap text-slate-700">
                    <time dateTime={e.createdAt.toISOString()}>{e.createdAt.toISOString().slice(0, 19).replace("T", " ")}</time>
                  </td>
                  <td className="px-4 py-3 whitespace-nowrap text-slate-900">
                    {e.actorHandle ? (e.actorHandle.startsWith("system:") ? e.actorHandle : `@${e.actorHandle}`) : "—"}
                    {e.ip ? <span className="block text-xs text-slate-600">{e.ip}</span> : null}
                  </td>
                  <td className="px-4 py-3 whitespace-nowrap">
                    <code className="font-mono text-xs text-slate-900">{e.action}</code>
                    {e.outcome === "denied" ? (
                      <span className="ml-2">
                        <Badge tone="red">denied</Badge>
                      </span>
                    ) : null}
                  </td>
                  <td className="px-4 py-3 whitespace-nowrap">
                    {e.targetType === "app" ? (
                      <Link href={`/apps/${e.targetId}`} prefetch={false} className="font-mono text-xs text-brand-700 hover:underline">
                        {e.targetId}
                      </Link>
                    ) : (
                      <span className="font-mono text-xs text-slate-900">
                        {e.targetType === "user" ? `@${e.targetId}` : `${e.targetType}:${e.targetId}`}
                      </span>
                    )}
                  </td>
                  <td className="max-w-md px-4 py-3 text-xs break-words text-slate-600">{formatDetail(e.detail)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pagination
        isFirst={!query.cursor}
        firstHref="/admin/audit"
        nextHref={page.nextCursor ? `/admin/audit?cursor=${page.nextCursor}` : null}
      />
    </div>
  );
}
