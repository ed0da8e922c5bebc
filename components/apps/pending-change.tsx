import { CHANGE_FIELDS, type AppView, type ChangeField } from "@/lib/schemas/apps";
import { AppLogo } from "./app-identity";

const LABELS: Record<ChangeField, string> = {
  name: "Name",
  logo: "Logo",
  description: "Description",
  homepageUrl: "Homepage",
  privacyPolicyUrl: "Privacy policy",
  termsUrl: "Terms of service",
  scopes: "Scopes",
  redirectUris: "Redirect URIs",
  postLogoutRedirectUris: "Post-logout redirect URIs",
  deviceFlow: "Device sign-in",
};

/** How a requested or approved value reads in the diff; a flag reads On/Off. */
function display(value: string | boolean | null): string {
  if (typeof value === "boolean") return value ? "On" : "Off";
  return value || "(empty)";
}

/**
 * The change waiting on an approved app, as a before/after diff: the approved value and
 * the requested one; for lists, the entries it adds and the ones it drops.
 */
export function PendingChangeDiff({ app }: { app: AppView }) {
  const change = app.pendingChange;
  if (!change) return null;
  const fields = CHANGE_FIELDS.filter((field) => change[field] !== undefined);
  return (
    <dl className="divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white text-sm" data-testid="pending-change">
      {change.owner ? (
        // An accepted transfer: who people see "built by" on the consent page.
        <div className="grid gap-1 p-3 sm:grid-cols-[10rem_minmax(0,1fr)]" data-testid="pending-owner">
          <dt className="font-medium text-slate-700">Owner</dt>
          <dd className="min-w-0 space-y-1 break-words">
            <p className="text-red-700">
              <span className="font-medium">Approved:</span> <span className="line-through">@{app.owner.handle}</span>
            </p>
            <p className="text-emerald-800">
              <span className="font-medium">Requested:</span> @{change.owner.handle} (accepted the transfer)
            </p>
          </dd>
        </div>
      ) : null}
      {fields.map((field) => {
        const requested = change[field];
        const approved = app[field];
        return (
          <div key={field} className="grid gap-1 p-3 sm:grid-cols-[10rem_minmax(0,1fr)]">
            <dt className="font-medium text-slate-700">{LABELS[field]}</dt>
            <dd className="min-w-0">
              {field === "logo" ? (
                <div className="flex flex-wrap items-center gap-4" data-testid="pending-logo">
                  <figure className="flex flex-col items-center gap-1">
                    <AppLogo clientId={app.clientId} name={app.name} logo={app.logo} size="md" />
                    <figcaption className="text-xs text-red-700">Approved{app.logo ? "" : " (none)"}</figcaption>
                  </figure>
                  <span aria-hidden="true" className="text-slate-500">→</span>
                  <figure className="flex flex-col items-center gap-1">
                    {typeof requested === "string" ? (
                      <AppLogo clientId={app.clientId} name={app.name} logo={requested} size="md" />
                    ) : (
                      <AppLogo clientId={app.clientId} name={change.name ?? app.name} logo={null} size="md" />
                    )}
                    <figcaption className="text-xs text-emerald-800">Requested{requested ? "" : " (removed)"}</figcaption>
                  </figure>
                </div>
              ) : Array.isArray(requested) ? (
                <ul className="space-y-1">
                  {[...new Set([...(approved as string[]), ...requested])].map((entry) => {
                    const added = !(approved as string[]).includes(entry);
                    const dropped = !requested.includes(entry);
                    return (
                      <li
                        key={entry}
                        className={`font-mono text-xs break-all ${added ? "text-emerald-800" : dropped ? "text-red-700 line-through" : "text-slate-700"}`}
                      >
                        <span className="sr-only">{added ? "Added: " : dropped ? "Removed: " : "Unchanged: "}</span>
                        <span aria-hidden="true">{added ? "+ " : dropped ? "− " : "  "}</span>
                        {entry}
                      </li>
                    );
                  })}
                </ul>
              ) : (
                <div className="space-y-1 break-words">
                  <p className="text-red-700">
                    <span className="font-medium">Approved:</span>{" "}
                    <span className="line-through wrap-anywhere">{display(approved as string | boolean | null)}</span>
                  </p>
                  <p className="text-emerald-800">
                    <span className="font-medium">Requested:</span>{" "}
                    <span className="wrap-anywhere">{display(requested as string | boolean | null)}</span>
                  </p>
                </div>
              )}
            </dd>
          </div>
        );
      })}
    </dl>
  );
}

/** Why the team's last change request was refused (shown until the next request). */
export function ChangeRefusedNotice({ reason }: { reason: string }) {
  return (
    <div role="status" className="rounded-lg border border-amber-300 bg-amber-50 p-4 text-sm break-words text-amber-900" data-testid="change-refused">
      <p className="font-medium">Your last changes were not approved.</p>
      <p className="mt-1">Reason: {reason}</p>
    </div>
  );
}
