import Link from "next/link";
import { AppStatusBadge } from "@/components/apps/app-status-badge";
import { AppTypeBadge } from "@/components/apps/app-type-badge";
import { TimeAgo } from "@/components/ui/time-ago";
import type { AppView } from "@/lib/schemas/apps";
import { AppReviewActions } from "./app-review-actions";

/** Applications as admins see them: a table on wide screens, stacked cards on phones. */
export function AppTable({ apps, caption }: { apps: AppView[]; caption: string }) {
  return (
    <div className="overflow-hidden rounded-xl border border-slate-200 bg-white shadow-xs">
      <table className="w-full text-left text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead className="hidden bg-slate-50 text-xs font-semibold tracking-wide text-slate-600 uppercase md:table-header-group">
          <tr>
            <th scope="col" className="px-5 py-3">Application</th>
            <th scope="col" className="px-5 py-3">Owner</th>
            <th scope="col" className="px-5 py-3">Scopes</th>
            <th scope="col" className="px-5 py-3">Submitted</th>
            <th scope="col" className="px-5 py-3 text-right">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {apps.map((app) => (
            <tr key={app.clientId} className="flex flex-col gap-3 p-4 md:table-row md:p-0" data-client-id={app.clientId}>
              <td className="md:px-5 md:py-4">
                <Link
                  href={`/apps/${app.clientId}`}
                  prefetch={false}
                  className="font-semibold text-slate-900 hover:text-brand-700 hover:underline"
                >
                  {app.name}
                </Link>
                <p className="mt-0.5 font-mono text-xs text-slate-600">{app.clientId}</p>
                <div className="mt-2 flex flex-wrap gap-1.5">
                  <AppTypeBadge type={app.type} />
                  <AppStatusBadge status={app.status} />
                </div>
                {app.statusReason ? <p className="mt-2 max-w-sm text-xs text-slate-600">Reason: {app.statusReason}</p> : null}
              </td>
              <td className="text-slate-700 md:px-5 md:py-4">
                <span className="md:hidden">Owner: </span>@{app.owner.handle}
              </td>
              <td className="md:px-5 md:py-4">
                {app.scopes.length ? (
                  <ul className="flex flex-wrap gap-1">
                    {app.scopes.map((s) => (
                      <li key={s}>
                        <code className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs text-slate-800">{s}</code>
                      </li>
                    ))}
                  </ul>
                ) : (
                  <span className="text-slate-600">—</span>
                )}
              </td>
              <td className="whitespace-nowrap text-slate-700 md:px-5 md:py-4">
                <TimeAgo date={app.createdAt} />
              </td>
              <td className="md:px-5 md:py-4 md:text-right">
                {app.firstParty ? (
                  <span className="text-xs text-slate-600">Platform app</span>
                ) : (
                  <div className="flex md:justify-end">
                    <AppReviewActions clientId={app.clientId} name={app.name} status={app.status} />
                  </div>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
