import type { Metadata } from "next";
import { AppTable } from "@/components/admin/app-table";
import { EmptyState } from "@/components/ui/empty-state";
import { requireAdmin } from "@/lib/portal/session";
import { listApps } from "@/lib/services/apps";

export const metadata: Metadata = { title: "Review queue" };

export default async function ReviewQueuePage() {
  await requireAdmin();
  // Oldest first: the queue is served in arrival order.
  const { apps } = await listApps({ status: "pending", limit: 100 });
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Review queue</h1>
        <p className="mt-1 text-sm text-slate-600">
          {apps.length
            ? `${apps.length} ${apps.length === 1 ? "application is" : "applications are"} waiting, oldest first. Approving an API key client lets its owner reveal the secret once.`
            : "Applications waiting for review appear here, oldest first."}
        </p>
      </div>
      {apps.length ? (
        <AppTable apps={apps} caption="Applications waiting for review" />
      ) : (
        <EmptyState icon="check" title="All caught up" description="No application is waiting for review." />
      )}
    </div>
  );
}
