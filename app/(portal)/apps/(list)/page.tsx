import type { Metadata } from "next";
import Link from "next/link";
import { AppStatusBadge } from "@/components/apps/app-status-badge";
import { AppTypeBadge } from "@/components/apps/app-type-badge";
import { TransferOfferActions } from "@/components/apps/transfer-offer-actions";
import { Card } from "@/components/ui/card";
import { ButtonLink } from "@/components/ui/button-link";
import { EmptyState } from "@/components/ui/empty-state";
import { Icon } from "@/components/ui/icon";
import { PageHeader } from "@/components/ui/page-header";
import { TimeAgo } from "@/components/ui/time-ago";
import { requireUser } from "@/lib/portal/session";
import { isSecretWaiting } from "@/lib/services/app-secrets";
import { listTransferOffers } from "@/lib/services/app-members";
import { listAppsForOwner } from "@/lib/services/apps";

export const metadata: Metadata = { title: "My apps" };

export default async function AppsPage() {
  const user = await requireUser();
  const now = new Date();
  const [apps, offers] = await Promise.all([listAppsForOwner(user.id), listTransferOffers(user.id)]);
  const counts = {
    approved: apps.filter((a) => a.status === "approved").length,
    pending: apps.filter((a) => a.status === "pending").length,
    secretReady: apps.filter(isSecretWaiting).length,
  };
  return (
    <div className="space-y-8">
      <PageHeader
        title="My apps"
        description="Applications you registered on the platform. Each one is reviewed by an admin before it can get tokens."
        actions={
          apps.length ? (
            <ButtonLink href="/apps/new">
              <Icon name="plus" /> New application
            </ButtonLink>
          ) : null
        }
      />
      {offers.length ? (
        <Card
          title="Transfers waiting for you"
          description="Their owners offer you these apps. Accepting makes you the owner (an approved app's change of owner is reviewed by an admin first); the previous owner stays on the team as an admin."
        >
          <ul className="divide-y divide-slate-100" aria-label="Transfers waiting for you">
            {offers.map((offer) => (
              <li
                key={offer.clientId}
                className="flex flex-col gap-2 py-3 sm:flex-row sm:items-center sm:justify-between"
                data-testid="transfer-offer"
              >
                <div className="min-w-0">
                  <p className="font-medium break-words text-slate-900">{offer.name}</p>
                  <p className="text-sm break-words text-slate-600">
                    From {offer.owner.displayName} (@{offer.owner.handle}) · <AppTypeBadge type={offer.type} />{" "}
                    <AppStatusBadge status={offer.status} />
                  </p>
                </div>
                <TransferOfferActions clientId={offer.clientId} name={offer.name} />
              </li>
            ))}
          </ul>
        </Card>
      ) : null}
      {apps.length === 0 ? (
        <EmptyState
          icon="grid"
          title="No applications yet"
          description="Register an API key client to call the API as your app, or a login client to let people sign in with their platform account."
          action={
            <ButtonLink href="/apps/new">
              <Icon name="plus" /> Register your first app
            </ButtonLink>
          }
        />
      ) : (
        <>
          <p className="text-sm text-slate-600">
            {apps.length} {apps.length === 1 ? "application" : "applications"} · {counts.approved} approved ·{" "}
            {counts.pending} waiting for review
            {counts.secretReady ? (
              <>
                {" "}
                · <strong className="font-semibold text-amber-800">{counts.secretReady} with a client secret ready to copy</strong>
              </>
            ) : null}
          </p>
          <ul className="grid gap-4 md:grid-cols-2 xl:grid-cols-3" aria-label="Your applications">
            {apps.map((app) => {
              const secretReady = isSecretWaiting(app);
              return (
                <li key={app.clientId} className="min-w-0" data-client-id={app.clientId}>
                  <Link
                    href={`/apps/${app.clientId}`}
                    // Opening an app page may reveal its secret once; never let a prefetch do that.
                    prefetch={false}
                    className="group flex h-full flex-col rounded-xl border border-slate-200 bg-white p-5 shadow-xs transition hover:border-brand-300 hover:shadow-md"
                  >
                    <div className="flex items-start gap-3">
                      <span
                        className={`flex size-10 shrink-0 items-center justify-center rounded-lg ${app.type === "api" ? "bg-brand-50 text-brand-700" : "bg-sky-50 text-sky-700"}`}
                      >
                        <Icon name={app.type === "api" ? "key" : "user"} className="size-5" />
                      </span>
                      <div className="min-w-0 flex-1">
                        <h2 className="line-clamp-2 font-semibold break-words text-slate-900 group-hover:text-brand-700">{app.name}</h2>
                        <p className="truncate font-mono text-xs text-slate-600">{app.clientId}</p>
                      </div>
                    </div>
                    <p className="mt-3 line-clamp-2 min-h-10 text-sm break-words text-slate-600">
                      {app.description || <span className="italic">No description</span>}
                    </p>
                    <div className="mt-4 flex flex-wrap items-center gap-2">
                      <AppTypeBadge type={app.type} />
                      <AppStatusBadge status={app.status} />
                      {secretReady ? (
                        <span
                          className="inline-flex items-center gap-1 rounded-full bg-amber-100 px-2 py-0.5 text-xs font-semibold text-amber-900 ring-1 ring-amber-300 ring-inset"
                          data-testid="secret-ready"
                        >
                          <Icon name="key" size={12} /> Secret ready
                        </span>
                      ) : null}
                    </div>
                    {secretReady ? (
                      <p className="mt-2 text-xs text-amber-900">Open the app to copy its client secret. It is shown once.</p>
                    ) : null}
                    <p className="mt-4 border-t border-slate-100 pt-3 text-xs text-slate-600">
                      Registered <TimeAgo date={app.createdAt} now={now} />
                    </p>
                  </Link>
                </li>
              );
            })}
          </ul>
        </>
      )}
    </div>
  );
}
