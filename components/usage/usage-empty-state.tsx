import { ButtonLink } from "@/components/ui/button-link";
import { Card } from "@/components/ui/card";
import { Quickstart } from "@/components/apps/quickstart";
import { Icon } from "@/components/ui/icon";
import type { DeveloperAppView } from "@/lib/schemas/apps";

/**
 * No traffic in the range yet: how to make the first call, with the app's own ids; in
 * sandbox mode, that the sandbox works before any review.
 */
export function UsageEmptyState({
  app,
  range,
  issuer,
  apiUrl,
  sandboxClientId,
}: {
  app: DeveloperAppView;
  range: string;
  issuer: string;
  apiUrl: string;
  /** Set in sandbox mode: the sandbox's client id. */
  sandboxClientId?: string;
}) {
  if (sandboxClientId) {
    return (
      <Card title={`No sandbox calls in the last ${range}`} description="Charts appear a few seconds after the sandbox's first call with its token.">
        <div className="space-y-4" data-testid="usage-empty">
          <p className="flex items-start gap-2 text-sm text-slate-600">
            <Icon name="info" className="mt-0.5 size-4 shrink-0" />
            <span>
              The sandbox works from the app&apos;s registration, before any review: get a token with its client ID{" "}
              <code className="font-mono text-xs break-all">{sandboxClientId}</code> and call the API against its synthetic
              people. Its calls are counted here, apart from the live app&apos;s.
            </span>
          </p>
          <ButtonLink href={`/apps/${app.clientId}`} variant="secondary" prefetch={false}>
            <Icon name="key" /> Sandbox credentials on the app page
          </ButtonLink>
        </div>
      </Card>
    );
  }
  return (
    <Card title={`No API calls in the last ${range}`} description="Charts appear a few seconds after this app's first call with its token.">
      <div className="space-y-4" data-testid="usage-empty">
        <p className="flex items-start gap-2 text-sm text-slate-600">
          <Icon name="info" className="mt-0.5 size-4 shrink-0" />
          {app.status === "approved"
            ? "Get a token for the app, then call any endpoint of the API with it: every call is counted here, by route, status and latency, and listed in the request log below."
            : "The app can get tokens once an admin approves it; its calls are counted here from then on."}
        </p>
        {app.status === "approved" ? <Quickstart app={app} issuer={issuer} apiUrl={apiUrl} /> : null}
        <ButtonLink href="/docs" variant="secondary" prefetch={false}>
          <Icon name="book" /> Read the docs
        </ButtonLink>
      </div>
    </Card>
  );
}
