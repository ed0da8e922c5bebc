import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { AppPageHeader } from "@/components/apps/app-page-header";
import { RequestDetail } from "@/components/usage/request-detail";
import { Card } from "@/components/ui/card";
import { Icon } from "@/components/ui/icon";
import { isAppError } from "@/lib/errors";
import { requireAppPage } from "@/lib/portal/session";
import { requestIdSchema } from "@/lib/schemas/usage";
import { capabilities } from "@/lib/services/app-access";
import { getRequestLogEntries } from "@/lib/services/usage";

export const metadata: Metadata = { title: "Request" };

/**
 * One request of an app's log, explained, at a URL that can be shared with the team
 * (`/apps/<clientId>/usage/requests/<requestId>`). The request id comes from the URL, parsed with
 * the log's own schema; the service checks the reader may see the app's usage (its team, platform
 * admins) and answers not_found otherwise, as it does for an id the log does not hold. A client
 * may send the same X-Request-Id more than once: every row with it is shown, newest first.
 */
export default async function RequestDetailPage({ params }: { params: Promise<{ clientId: string; requestId: string }> }) {
  const { actor, app } = await requireAppPage(params);
  const requestId = requestIdSchema.safeParse((await params).requestId);
  if (!requestId.success) notFound();
  const entries = await getRequestLogEntries(app.clientId, requestId.data, actor).catch((error: unknown) => {
    if (isAppError(error) && error.code === "not_found") notFound();
    throw error;
  });
  const isTeam = capabilities(app, actor).onTeam;
  const backHref = `/apps/${app.clientId}/usage${entries.some((e) => e.mode === "sandbox") ? "?log=all" : ""}#request-log`;

  return (
    <div className="space-y-8">
      <AppPageHeader app={app} current="usage" onTeam={isTeam} adminBack={{ href: "/admin/usage", label: "Usage of all apps" }} />
      <div className="flex min-w-0 flex-wrap items-center justify-between gap-3">
        <Link href={backHref} prefetch={false} className="inline-flex items-center gap-1 text-sm font-medium text-brand-700 hover:underline">
          <Icon name="arrowLeft" /> Request log
        </Link>
        {entries.length > 1 ? (
          <p className="text-sm text-slate-600">
            {entries.length} requests carry this id (a client chose it more than once); newest first.
          </p>
        ) : null}
      </div>
      {entries.map((entry) => (
        <Card key={entry.id} title={<span className="break-all">Request {entry.requestId}</span>} className="min-w-0">
          <RequestDetail entry={entry} />
        </Card>
      ))}
    </div>
  );
}
