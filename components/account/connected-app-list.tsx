import { AppLogo } from "@/components/apps/app-identity";
import { EmptyState } from "@/components/ui/empty-state";
import { TimeAgo } from "@/components/ui/time-ago";
import { describeScope } from "@/lib/scopes";
import type { ConnectedApp } from "@/lib/schemas/connected-apps";
import { RevokeAppButton } from "./revoke-app-button";

/** The apps a person authorized, each with what it may do and a way to take it back; `now` is the page's clock (TimeAgo). */
export function ConnectedAppList({
  apps,
  handle,
  forSomeoneElse,
  now,
}: {
  apps: ConnectedApp[];
  handle: string;
  forSomeoneElse: boolean;
  now: Date;
}) {
  if (apps.length === 0) {
    return (
      <EmptyState
        icon="shield"
        title="No connected apps"
        description={
          forSomeoneElse
            ? `@${handle} has not signed in to any app with their platform account.`
            : "When you sign in to an app with your platform account and allow it access, it appears here, and you can revoke that access at any time."
        }
      />
    );
  }
  return (
    <ul className="space-y-4" aria-label="Connected apps">
      {apps.map((app) => (
        <li key={app.clientId} className="rounded-xl border border-slate-200 bg-white p-5 shadow-xs">
          <div className="flex flex-col gap-4 sm:flex-row sm:items-start">
            <AppLogo clientId={app.clientId} name={app.name} logo={app.logo} size="md" />
            <div className="min-w-0 flex-1">
              <h2 className="font-semibold break-words text-slate-900">{app.name}</h2>
              <p className="text-sm break-words text-slate-600">
                {app.agentDomain ? (
                  <>
                    AI agent from <strong className="font-medium text-slate-800">{app.agentDomain}</strong> (not reviewed by the platform unless its domain is trusted)
                  </>
                ) : app.agentDomain === "" ? (
                  <>AI agent that registered itself (no one verified who publishes it)</>
                ) : (
                  <>
                    by {app.ownerDisplayName} (@{app.ownerHandle})
                  </>
                )}
              </p>
              {app.description ? <p className="mt-2 text-sm break-words text-slate-700">{app.description}</p> : null}
              <h3 className="mt-4 text-xs font-semibold tracking-wide text-slate-600 uppercase">It can</h3>
              <ul className="mt-1 list-disc space-y-0.5 pl-5 text-sm text-slate-700">
                {app.scopes.map((scope) => (
                  <li key={scope}>{describeScope(scope)}</li>
                ))}
              </ul>
              <p className="mt-4 text-xs text-slate-600">
                Authorized <TimeAgo date={app.authorizedAt} now={now} /> · {app.lastUsedAt ? <>Last used <TimeAgo date={app.lastUsedAt} now={now} /></> : "Not used yet"}
              </p>
            </div>
            <div className="shrink-0">
              <RevokeAppButton handle={handle} clientId={app.clientId} appName={app.name} forSomeoneElse={forSomeoneElse} />
            </div>
          </div>
        </li>
      ))}
    </ul>
  );
}
