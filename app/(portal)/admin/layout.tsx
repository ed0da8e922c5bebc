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
      <nav aria-label="Admin sections" className="mt-6 -mb-px flex gap-6 overflow-x-auto border-b border-slate-200">
        <AdminTab href="/admin/apps" also={["/admin"]}>
          <Icon name="clock" /> Review queue
        </AdminTab>
        <AdminTab href="/admin/users">
          <Icon name="users" /> Users
        </AdminTab>
        <AdminTab href="/admin/usage">
          <Icon name="chart" /> Usage
        </AdminTab>
        <AdminTab href="/admin/audit">
          <Icon name="list" /> Audit log
        </AdminTab>
      </nav>
      <div className="pt-8">{children}</div>
    </main>
  );
}
