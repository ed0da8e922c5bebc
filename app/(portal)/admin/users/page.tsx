import type { Metadata } from "next";
import Link from "next/link";
import { z } from "zod";
import { AdminSearch } from "@/components/admin/admin-search";
import { UserActions } from "@/components/admin/user-actions";
import { Avatar } from "@/components/layout/avatar";
import { Badge } from "@/components/ui/badge";
import { EmptyState } from "@/components/ui/empty-state";
import { Pagination } from "@/components/ui/pagination";
import { TimeAgo } from "@/components/ui/time-ago";
import { isAppError } from "@/lib/errors";
import { requireAdmin } from "@/lib/portal/session";
import { listUsers } from "@/lib/services/users";

export const metadata: Metadata = { title: "Users" };

const querySchema = z.object({
  q: z.string().trim().max(80).optional().catch(undefined),
  cursor: z.string().max(20).optional().catch(undefined),
});

export default async function AdminUsersPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const admin = await requireAdmin();
  const now = new Date();
  const query = querySchema.parse(await searchParams);
  const page = await listUsers({ search: query.q || undefined, cursor: query.cursor, limit: 25 }).catch((error: unknown) => {
    if (isAppError(error) && error.code === "invalid_request") return listUsers({ search: query.q || undefined, limit: 25 });
    throw error;
  });
  const href = (extra: Record<string, string>) => {
    const p = new URLSearchParams({ ...(query.q ? { q: query.q } : {}), ...extra }).toString();
    return `/admin/users${p ? `?${p}` : ""}`;
  };
  return (
    <div className="space-y-6">
      <div className="flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Users</h1>
          <p className="mt-1 text-sm text-slate-600">
            A disabled account cannot sign in, and every API call with its tokens answers 403 forbidden at once; enabling it makes its unexpired tokens work again. A muted account cannot post to the global chat.
          </p>
        </div>
        <AdminSearch action="/admin/users" id="user-search" label="Search users" placeholder="Handle or name" value={query.q} />
      </div>
      {page.users.length === 0 ? (
        <EmptyState icon="users" title="No users found" description={query.q ? `Nobody matches “${query.q}”.` : "There are no accounts yet."} />
      ) : (
        <div className="overflow-hidden rounded-xl border border-slate-200 bg-white shadow-xs">
          {/* Fixed layout at md+: a long name truncates inside its column instead of widening the page. */}
          <table className="block w-full text-left text-sm md:table md:table-fixed">
            <caption className="sr-only">Users</caption>
            <thead className="hidden bg-slate-50 text-xs font-semibold tracking-wide text-slate-600 uppercase md:table-header-group">
              <tr>
                <th scope="col" className="px-5 py-3">User</th>
                <th scope="col" className="w-40 px-5 py-3">Status</th>
                <th scope="col" className="w-36 px-5 py-3">Joined</th>
                <th scope="col" className="w-52 px-5 py-3 text-right">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody className="block divide-y divide-slate-100 md:table-row-group">
              {page.users.map((u) => (
                <tr key={u.id} className="flex flex-col gap-3 p-4 md:table-row md:p-0" data-handle={u.handle}>
                  <td className="min-w-0 md:px-5 md:py-3">
                    <div className="flex min-w-0 items-center gap-3">
                      <Avatar handle={u.handle} name={u.displayName} />
                      <div className="min-w-0">
                        <p className="truncate font-medium text-slate-900">
                          <Link href={`/admin/users/${u.handle}`} prefetch={false} className="hover:text-brand-700 hover:underline">
                            {u.displayName}
                          </Link>
                        </p>
                        <p className="truncate text-slate-600">@{u.handle}</p>
                      </div>
                    </div>
                  </td>
                  <td className="md:px-5 md:py-3">
                    <div className="flex flex-wrap gap-1.5">
                      {u.role === "admin" ? <Badge tone="brand">Admin</Badge> : null}
                      {u.disabled ? <Badge tone="red" dot>Disabled</Badge> : null}
                      {u.muted ? <Badge tone="amber" dot>Muted</Badge> : null}
                      {!u.disabled && !u.muted ? <Badge tone="green" dot>Active</Badge> : null}
                    </div>
                  </td>
                  <td className="whitespace-nowrap text-slate-700 md:px-5 md:py-3">
                    <TimeAgo date={u.createdAt} now={now} />
                  </td>
                  <td className="md:px-5 md:py-3">
                    <UserActions handle={u.handle} disabled={u.disabled} muted={u.muted} isSelf={u.id === admin.id} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pagination isFirst={!query.cursor} firstHref={href({})} nextHref={page.nextCursor ? href({ cursor: page.nextCursor }) : null} />
    </div>
  );
}
