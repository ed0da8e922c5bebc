import { AdminTab } from "@/components/admin/admin-tab";
import { Icon } from "@/components/ui/icon";
import { requireAdmin } from "@/lib/portal/session";

/** Admin area shell. The role is checked here and again in every page and every action. */
export default async function AdminLayout({ children }: { children: React.ReactNode }) {
  await requireAdmin();
  return (
    <main id="main" className="mx-auto max-w-7xl px-4 py-8 sm:px-6 sm:py-10 lg:px-8">
      <div className="flex items-center gap-3">
        <span className="flex size-10 items-center justify-center rounded-lg bg-slate-900 text-white">
          <Icon name="shield" className="size-5" />
        </span>
        <div>
          <p className="text-sm font-medium text-slate-600">Admin</p>
          <p className="text-lg font-semibold text-slate-900">Platform administration</p>
        </div>
      </div>
      {/* Every tab fits a phone's width ("Audit log" was off screen with nothing to say so): icons from sm up. */}
      <nav aria-label="Admin sections" className="mt-6 -mb-px flex gap-4 overflow-x-auto border-b border-slate-200 sm:gap-6">
        <AdminTab href="/admin/apps" also={["/admin"]}>
          {/* "Queue" on a phone, so that all five tabs fit at 390 px; its name stays "Review queue". */}
          <Icon name="clock" className="hidden sm:block" />
          <span aria-hidden="true" className="sm:hidden">
            Queue
          </span>
          <span className="sr-only sm:not-sr-only">Review queue</span>
        </AdminTab>
        <AdminTab href="/admin/users">
          <Icon name="users" className="hidden sm:block" /> Users
        </AdminTab>
        <AdminTab href="/admin/agents">
          <Icon name="globe" className="hidden sm:block" /> Agents
        </AdminTab>
        <AdminTab href="/admin/usage">
          <Icon name="chart" className="hidden sm:block" /> Usage
        </AdminTab>
        <AdminTab href="/admin/audit">
          <Icon name="list" className="hidden sm:block" /> Audit log
        </AdminTab>
      </nav>
      <div className="pt-8">{children}</div>
    </main>
  );
}
