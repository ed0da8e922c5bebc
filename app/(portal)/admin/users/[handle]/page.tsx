import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { ConnectedAppList } from "@/components/account/connected-app-list";
import { AppStatusBadge } from "@/components/apps/app-status-badge";
import { Card } from "@/components/ui/card";
import { Icon } from "@/components/ui/icon";
import { TimeAgo } from "@/components/ui/time-ago";
import { isAppError } from "@/lib/errors";
import { requireAdmin, toActor } from "@/lib/portal/session";
import { handleSchema } from "@/lib/schemas/users";
import { listAppsForOwner } from "@/lib/services/apps";
import { listAuditLog } from "@/lib/services/audit";
import { listConnectedApps } from "@/lib/services/connected-apps";
import { findUserByHandle } from "@/lib/services/users";

export const metadata: Metadata = { title: "User · Admin" };

/**
 * An admin's view of one person: the apps they authorized, with the same "Revoke access" they have;
 * the apps they own or work on and what was done to their account.
 */
export default async function AdminUserPage({ params }: { params: Promise<{ handle: string }> }) {
  const admin = await requireAdmin();
  const parsed = handleSchema.safeParse((await params).handle);
  if (!parsed.success) notFound();
  const user = await findUserByHandle(parsed.data);
  if (!user) notFound();
  let apps;
  try {
    apps = await listConnectedApps(user.handle, await toActor(admin));
  } catch (error) {
    if (isAppError(error) && error.code === "not_found") notFound();
    throw error;
  }
  const now = new Date();
  const [teamApps, history] = await Promise.all([
    listAppsForOwner(user.id),
    listAuditLog({ targetType: "user", targetId: user.handle, limit: 20 }),
  ]);
  return (
    <div className="space-y-6">
      <Link href="/admin/users" className="inline-flex items-center gap-1 text-sm text-brand-700 hover:underline">
        <Icon name="arrowLeft" /> All users
      </Link>
      <div className="min-w-0">
        <h2 className="text-xl font-semibold break-words text-slate-900">
          {user.displayName} <span className="font-normal text-slate-600">@{user.handle}</span>
        </h2>
        <p className="mt-1 text-sm text-slate-600">
          {user.role === "admin" ? "Admin · " : ""}
          {user.disabled ? "Disabled · " : ""}
          {user.muted ? "Muted · " : ""}
          Connected apps: the login clients this person authorized. Revoking signs the app out of their account at once.
        </p>
      </div>
      <ConnectedAppList apps={apps} handle={user.handle} forSomeoneElse now={now} />

      <Card title="Apps" description="The apps this person owns or is on the team of.">
        {teamApps.length === 0 ? (
          <p className="text-sm text-slate-600">None.</p>
        ) : (
          <ul className="divide-y divide-slate-100" data-testid="user-apps">
            {teamApps.map((app) => (
              <li key={app.clientId} className="flex flex-wrap items-center justify-between gap-x-4 gap-y-1 py-2.5 text-sm">
                <Link href={`/apps/${app.clientId}`} prefetch={false} className="min-w-0 font-medium break-words text-brand-700 hover:underline">
                  {app.name}
                </Link>
                <span className="flex items-center gap-2 text-slate-600">
                  {app.owner.id === user.id ? "Owner" : app.members.find((m) => m.id === user.id)?.role === "admin" ? "Team admin" : "Viewer"}
                  <AppStatusBadge status={app.status} />
                </span>
              </li>
            ))}
          </ul>
        )}
      </Card>

      <Card
        title="History"
        description={
          <>
            What admins and the operator did to this account, newest first.{" "}
            <Link href={`/admin/audit?target=${encodeURIComponent(`@${user.handle}`)}`} prefetch={false} className="font-medium text-brand-700 underline">
              All of it in the audit log
            </Link>
          </>
        }
      >
        {history.entries.length === 0 ? (
          <p className="text-sm text-slate-600">Nothing recorded.</p>
        ) : (
          <ul className="divide-y divide-slate-100" data-testid="user-history">
            {history.entries.map((entry) => (
              <li key={entry.id} className="flex flex-wrap justify-between gap-x-4 gap-y-1 py-2.5 text-sm">
                <span className="min-w-0 break-words">
                  <code className="font-mono text-slate-900">{entry.action}</code>
                  {entry.outcome === "denied" ? <span className="text-red-700"> (denied)</span> : null}
                  {typeof entry.detail.reason === "string" ? <span className="text-slate-600">: {entry.detail.reason}</span> : null}
                </span>
                <span className="text-slate-600">
                  {entry.actorHandle ? `@${entry.actorHandle}` : "operator"} · <TimeAgo date={entry.createdAt} now={now} />
                </span>
              </li>
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}
