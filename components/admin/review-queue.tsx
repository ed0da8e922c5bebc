"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { toast } from "sonner";
import { AppIdentity, AppLogo } from "@/components/apps/app-identity";
import { AppStatusBadge } from "@/components/apps/app-status-badge";
import { AppTypeBadge } from "@/components/apps/app-type-badge";
import { PendingChangeDiff } from "@/components/apps/pending-change";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Icon } from "@/components/ui/icon";
import { TimeAgo } from "@/components/ui/time-ago";
import { approveAppsAction } from "@/lib/actions/admin";
import type { AppView } from "@/lib/schemas/apps";
import { AppReviewActions } from "./app-review-actions";
import { toastApproved } from "./approval-toast";

/** The hosts an app redirects to: what a reviewer checks first (does the developer own them?). */
function redirectHosts(app: AppView): string[] {
  const hosts = new Set<string>();
  for (const uri of [...app.redirectUris, ...app.postLogoutRedirectUris]) {
    try {
      hosts.add(new URL(uri).host);
    } catch {
      hosts.add(uri);
    }
  }
  return [...hosts];
}

const canApprove = (app: AppView) => !app.firstParty && (app.status === "pending" || app.status === "rejected");

/**
 * The review queue's rows: enough to decide without opening each app (description,
 * type, scopes, redirect hosts, owner, age, a resubmission and the reason it answers), details on
 * demand, and bulk approval of the selected rows with one confirmation and an undo.
 */
export function ReviewQueue({ apps, showStatus, now }: { apps: AppView[]; showStatus: boolean; now: Date }) {
  const router = useRouter();
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [confirming, setConfirming] = useState(false);
  const [pending, startTransition] = useTransition();
  const selectable = apps.filter(canApprove);
  // Rows that left the page (approved, filtered away) drop out of the selection.
  const chosen = selectable.filter((a) => selected.has(a.clientId));
  const allChosen = selectable.length > 0 && chosen.length === selectable.length;

  function toggle(clientId: string, on: boolean) {
    setSelected((current) => {
      const next = new Set(current);
      if (on) next.add(clientId);
      else next.delete(clientId);
      return next;
    });
  }

  function approveChosen() {
    // Each with the revision this page rendered: one that changed since is refused, not approved.
    const items = chosen.map((a) => ({ clientId: a.clientId, revision: a.revision }));
    startTransition(async () => {
      const result = await approveAppsAction(items);
      if (!result.ok) {
        toast.error(result.error.message);
        return;
      }
      setConfirming(false);
      setSelected(new Set());
      const { approved, failed } = result.data;
      if (approved.length) {
        toastApproved(
          approved.length === 1 ? `Approved 1 application` : `Approved ${approved.length} applications`,
          approved,
          () => router.refresh(),
        );
      }
      for (const failure of failed) toast.error(failure.message);
      router.refresh();
    });
  }

  return (
    <div className="space-y-3">
      {selectable.length ? (
        <div className="flex flex-wrap items-center gap-3 rounded-xl border border-slate-200 bg-white px-4 py-3 shadow-xs">
          <label className="flex items-center gap-2 text-sm font-medium text-slate-900">
            <input
              type="checkbox"
              className="size-4 rounded border-slate-400 accent-brand-600"
              checked={allChosen}
              ref={(el) => {
                if (el) el.indeterminate = chosen.length > 0 && !allChosen;
              }}
              onChange={(e) => setSelected(e.target.checked ? new Set(selectable.map((a) => a.clientId)) : new Set())}
            />
            Select all on this page
          </label>
          <span className="text-sm text-slate-600" aria-live="polite">
            {chosen.length ? `${chosen.length} selected` : "None selected"}
          </span>
          <Button size="sm" className="ml-auto" disabled={!chosen.length} onClick={() => setConfirming(true)}>
            <Icon name="check" /> Approve selected
          </Button>
        </div>
      ) : null}

      <div className="rounded-xl border border-slate-200 bg-white shadow-xs">
        <table className="block w-full text-left text-sm lg:table lg:table-fixed">
          <caption className="sr-only">Applications</caption>
          <thead className="hidden bg-slate-50 text-xs font-semibold tracking-wide text-slate-600 uppercase lg:table-header-group">
            <tr>
              <th scope="col" className="w-12 rounded-tl-xl py-3 pl-5">
                <span className="sr-only">Select</span>
              </th>
              <th scope="col" className="py-3 pr-4">Application</th>
              <th scope="col" className="w-36 py-3 pr-4">Owner</th>
              <th scope="col" className="w-28 py-3 pr-4">Submitted</th>
              <th scope="col" className="w-56 rounded-tr-xl py-3 pr-5">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody className="block divide-y divide-slate-100 lg:table-row-group">
            {apps.map((app) => {
              const hosts = redirectHosts(app);
              return (
                <tr
                  key={app.clientId}
                  data-client-id={app.clientId}
                  className="grid grid-cols-[1.5rem_minmax(0,1fr)] gap-x-3 gap-y-2 p-4 align-top lg:table-row lg:p-0"
                >
                  <td className="row-span-4 pt-0.5 lg:py-4 lg:pl-5">
                    {canApprove(app) ? (
                      <input
                        type="checkbox"
                        className="size-4 rounded border-slate-400 accent-brand-600"
                        checked={selected.has(app.clientId)}
                        onChange={(e) => toggle(app.clientId, e.target.checked)}
                        aria-label={`Select ${app.name}`}
                      />
                    ) : null}
                  </td>
                  <td className="min-w-0 lg:py-4 lg:pr-4">
                    <div className="flex items-center gap-2">
                      <AppLogo clientId={app.clientId} name={app.name} logo={app.logo} size="sm" />
                      <Link
                        href={`/apps/${app.clientId}`}
                        prefetch={false}
                        className="min-w-0 font-semibold wrap-anywhere text-slate-900 hover:text-brand-700 hover:underline"
                      >
                        {app.name}
                      </Link>
                    </div>
                    <div className="mt-1 flex flex-wrap items-center gap-x-3 gap-y-1.5 text-xs text-slate-600">
                      <span className="font-mono break-all">{app.clientId}</span>
                      <AppTypeBadge type={app.type} />
                      {showStatus ? <AppStatusBadge status={app.status} /> : null}
                      {app.pendingChange ? (
                        <Badge tone="amber">
                          <Icon name="pencil" className="size-3" /> Changes waiting <TimeAgo date={app.pendingChange.requestedAt} now={now} />
                        </Badge>
                      ) : null}
                      {app.resubmittedAt ? (
                        <Badge tone="sky">
                          <Icon name="refresh" className="size-3" /> Resubmitted <TimeAgo date={app.resubmittedAt} now={now} />
                        </Badge>
                      ) : null}
                    </div>

                    <p className="mt-2 line-clamp-2 text-sm wrap-anywhere text-slate-700">
                      {app.description || <span className="text-slate-600 italic">No description.</span>}
                    </p>

                    {app.resubmittedAt && app.previousRejectionReason ? (
                      <p className="mt-2 rounded-lg bg-sky-50 px-3 py-2 text-sm wrap-anywhere text-sky-900" data-testid="previous-rejection">
                        <span className="font-medium">Rejected before because:</span> {app.previousRejectionReason}
                      </p>
                    ) : null}
                    {app.statusReason ? (
                      <p className="mt-2 text-sm wrap-anywhere text-slate-700">
                        <span className="font-medium">Reason:</span> {app.statusReason}
                      </p>
                    ) : null}

                    <div className="mt-2 flex flex-wrap items-center gap-1.5 text-xs">
                      {app.scopes.length ? (
                        app.scopes.map((s) => (
                          <code key={s} className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-slate-800">
                            {s}
                          </code>
                        ))
                      ) : (
                        <span className="text-slate-600">No scopes</span>
                      )}
                      {hosts.length ? (
                        <span className="min-w-0 break-all text-slate-600">
                          <Icon name="globe" className="mx-1 inline size-3.5 align-[-2px]" />
                          <span className="sr-only">Redirects to </span>
                          {hosts.join(", ")}
                        </span>
                      ) : null}
                    </div>

                    <details className="group mt-2 text-sm">
                      <summary className="inline-flex cursor-pointer items-center gap-1 rounded text-brand-700 hover:underline focus-visible:outline-2 focus-visible:outline-brand-600">
                        <Icon name="chevronDown" className="size-4 transition-transform group-open:rotate-180" /> Details
                        <span className="sr-only"> of {app.name}</span>
                      </summary>
                      <AppIdentity app={app} headingLevel="p" size="md" className="mt-2 rounded-lg border border-slate-200 p-3" />
                      {app.pendingChange ? (
                        <div className="mt-2">
                          <p className="mb-1 text-xs font-semibold tracking-wide text-slate-600 uppercase">Changes waiting for review</p>
                          <PendingChangeDiff app={app} />
                        </div>
                      ) : null}
                      <dl className="mt-2 grid gap-x-4 gap-y-2 rounded-lg bg-slate-50 p-3 text-sm sm:grid-cols-[9rem_minmax(0,1fr)]">
                        <dt className="font-medium text-slate-900">Scopes</dt>
                        <dd className="wrap-anywhere text-slate-700">{app.scopes.join(", ") || "—"}</dd>
                        {app.type === "login" ? (
                          <>
                            <dt className="font-medium text-slate-900">Redirect URIs</dt>
                            <dd className="min-w-0">
                              <ul className="space-y-1 font-mono text-xs break-all text-slate-700">
                                {app.redirectUris.map((u) => (
                                  <li key={u}>{u}</li>
                                ))}
                              </ul>
                            </dd>
                            <dt className="font-medium text-slate-900">Post-logout URIs</dt>
                            <dd className="min-w-0">
                              <ul className="space-y-1 font-mono text-xs break-all text-slate-700">
                                {app.postLogoutRedirectUris.length ? (
                                  app.postLogoutRedirectUris.map((u) => <li key={u}>{u}</li>)
                                ) : (
                                  <li>—</li>
                                )}
                              </ul>
                            </dd>
                          </>
                        ) : null}
                        <dt className="font-medium text-slate-900">Registered</dt>
                        <dd className="text-slate-700">{app.createdAt.toISOString().slice(0, 16).replace("T", " ")} UTC</dd>
                      </dl>
                    </details>
                  </td>
                  <td className="min-w-0 text-slate-700 lg:py-4 lg:pr-4">
                    <span className="lg:hidden">Owner: </span>
                    <span className="font-medium wrap-anywhere text-slate-900">@{app.owner.handle}</span>
                  </td>
                  <td className="text-slate-700 lg:py-4 lg:pr-4">
                    <span className="lg:hidden">Submitted </span>
                    <TimeAgo date={app.createdAt} now={now} />
                  </td>
                  <td className="lg:py-4 lg:pr-5">
                    {app.firstParty ? (
                      <span className="text-xs text-slate-600">Platform app</span>
                    ) : (
                      <AppReviewActions clientId={app.clientId} name={app.name} status={app.status} revision={app.revision} />
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>

      <Dialog
        open={confirming}
        onClose={() => (pending ? undefined : setConfirming(false))}
        title={`Approve ${chosen.length} ${chosen.length === 1 ? "application" : "applications"}?`}
        description="Each API key client's owner can then reveal its secret once, and people can sign in to each login client. You can undo this from the notification for a few seconds."
        footer={
          <>
            <Button variant="secondary" onClick={() => setConfirming(false)} disabled={pending}>
              Cancel
            </Button>
            <Button onClick={approveChosen} loading={pending}>
              Approve {chosen.length}
            </Button>
          </>
        }
      >
        <ul className="max-h-48 space-y-1 overflow-y-auto text-left text-sm text-slate-700">
          {chosen.map((a) => (
            <li key={a.clientId} className="truncate">
              {a.name}
            </li>
          ))}
        </ul>
      </Dialog>
    </div>
  );
}
