import type { Metadata } from "next";
import Link from "next/link";
import { forbidden, notFound } from "next/navigation";
import { AppForm } from "@/components/apps/app-form";
import { AppStatusCallout } from "@/components/apps/app-status-callout";
import { ChangeRefusedNotice, PendingChangeDiff } from "@/components/apps/pending-change";
import { Card } from "@/components/ui/card";
import { Icon } from "@/components/ui/icon";
import { PageHeader } from "@/components/ui/page-header";
import { TimeAgo } from "@/components/ui/time-ago";
import { requireAppPage } from "@/lib/portal/session";
import { capabilities } from "@/lib/services/app-access";

export const metadata: Metadata = { title: "Edit application" };

export default async function EditAppPage({ params }: { params: Promise<{ clientId: string }> }) {
  const now = new Date();
  const { actor, app } = await requireAppPage(params);
  if (app.firstParty) notFound();
  // Viewers read only; the service refuses their changes too. The 403 page says so, and
  // whom to ask (lib/portal/forbidden.ts), rather than the admin area's text.
  if (!capabilities(app, actor).manage) forbidden();
  return (
    <div className="mx-auto max-w-3xl space-y-8">
      <PageHeader
        eyebrow={
          <Link
            href={`/apps/${app.clientId}`}
            prefetch={false}
            className="inline-flex max-w-full items-start gap-1 hover:text-slate-900"
          >
            <Icon name="arrowLeft" className="mt-0.5" /> <span className="min-w-0 break-words">{app.name}</span>
          </Link>
        }
        title="Edit application"
        description={
          app.status === "rejected"
            ? "Address the reviewer's reason below, then choose Save and resubmit to send the app back to the review queue. Save changes alone keeps it rejected."
            : app.status === "approved" || app.status === "suspended"
              ? "Removing scopes or URIs applies at once. New scopes, new URIs, a new name, description, link or logo wait for an admin's review; the app keeps running as approved meanwhile."
              : "Changes apply at once."
        }
      />
      {/* The review loop: what the reviewer said and what waits, next to the form that answers it. */}
      {app.status === "rejected" || app.resubmittedAt ? <AppStatusCallout app={app} now={now} /> : null}
      {app.pendingChange ? (
        <Card
          title="Changes waiting for review"
          description={
            <>
              Requested by @{app.pendingChange.requestedBy} <TimeAgo date={app.pendingChange.requestedAt} now={now} />. Saving again
              replaces the request with what the form holds.
            </>
          }
        >
          <PendingChangeDiff app={app} />
        </Card>
      ) : app.pendingChangeRejection ? (
        <ChangeRefusedNotice reason={app.pendingChangeRejection} />
      ) : null}
      <AppForm app={app} />
    </div>
  );
}
