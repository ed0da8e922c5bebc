import type { Metadata } from "next";
import Link from "next/link";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { TimeAgo } from "@/components/ui/time-ago";
import { requireUser } from "@/lib/portal/session";
import { listNotices, markNoticesRead } from "@/lib/services/portal-notifications";

export const metadata: Metadata = { title: "Notifications" };

/**
 * What happened to the apps the signed-in person works on: review decisions reach the
 * whole team here, from the header's bell. The notices shown are marked read once this page has
 * read them (they still show as new on this visit); a newer one stays unread.
 */
export default async function NotificationsPage() {
  const user = await requireUser();
  const now = new Date();
  const notices = await listNotices(user.id);
  if (notices.some((n) => !n.read)) await markNoticesRead(user.id, notices[0]!.id);
  return (
    <div className="space-y-8">
      <PageHeader
        title="Notifications"
        description="Review decisions and ownership changes of the apps you own or are on the team of."
      />
      {notices.length === 0 ? (
        <EmptyState icon="bell" title="No notifications yet" description="When an admin decides on one of your apps, your whole team hears it here." />
      ) : (
        <ul className="divide-y divide-slate-200 overflow-hidden rounded-xl border border-slate-200 bg-white" data-testid="notices">
          {notices.map((notice) => (
            <li key={notice.id} className={`flex gap-3 p-4 text-sm ${notice.read ? "" : "bg-brand-50/60"}`}>
              <span
                aria-hidden="true"
                className={`mt-1.5 size-2 shrink-0 rounded-full ${notice.read ? "bg-transparent" : "bg-brand-600"}`}
              />
              <div className="min-w-0 flex-1 space-y-1">
                <p className="break-words text-slate-900">
                  {notice.read ? null : <span className="sr-only">New: </span>}
                  {notice.message}
                </p>
                <p className="flex flex-wrap gap-x-3 text-slate-600">
                  <TimeAgo date={notice.createdAt} now={now} />
                  {notice.clientId ? (
                    <Link href={`/apps/${notice.clientId}`} prefetch={false} className="font-medium text-brand-700 underline">
                      Open the app
                    </Link>
                  ) : null}
                </p>
              </div>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
