import type { Metadata } from "next";
import Link from "next/link";
import { AppPageHeader } from "@/components/apps/app-page-header";
import { ResetSandboxButton } from "@/components/apps/reset-sandbox-button";
import { SandboxSecretPanel } from "@/components/apps/sandbox-secret-panel";
import { SandboxTestUsers } from "@/components/apps/sandbox-test-users";
import { SandboxTriggerEvent } from "@/components/apps/sandbox-trigger-event";
import { Alert } from "@/components/ui/alert";
import { Card } from "@/components/ui/card";
import { CopyField } from "@/components/ui/copy-field";
import { Icon } from "@/components/ui/icon";
import { TimeAgo } from "@/components/ui/time-ago";
import { env } from "@/lib/env";
import { EVENT_AUDIENCE, TRIGGERABLE_EVENT_TYPES } from "@/lib/schemas/events";
import { SANDBOX_TEST_USER_LIMIT } from "@/lib/schemas/sandboxes";
import { requireAppPage } from "@/lib/portal/session";
import { capabilities } from "@/lib/services/app-access";
import { listSandboxTestUsers } from "@/lib/services/sandbox-users";
import { getSandbox } from "@/lib/services/sandboxes";
import { receivableTypes } from "@/lib/services/webhooks";

export const metadata: Metadata = { title: "Sandbox" };

/**
 * An app's Sandbox tab, whatever its review status (a pending app builds here). Its team
 * and platform admins read it; what each may do is decided by capabilities() and checked again by
 * lib/services/sandboxes.ts: the owner and team admins roll the secret (handleSecrets), whoever may
 * manage the app resets it.
 */
export default async function AppSandboxPage({ params }: { params: Promise<{ clientId: string }> }) {
  const now = new Date();
  const { actor, app } = await requireAppPage(params);
  const can = capabilities(app, actor);
  const [sandbox, testUsers] = await Promise.all([getSandbox(app.clientId, actor), listSandboxTestUsers(app.clientId, actor)]);
  const config = env();
  // The sandbox runs on the current configuration, changes waiting for review included: an event
  // type is offered when those scopes let the sandbox receive it (the service checks it again).
  const receivable = receivableTypes(app, { sandbox: true });
  // The catalog's descriptions mark code with backticks (Markdown for the docs); plain text here.
  const triggerable = TRIGGERABLE_EVENT_TYPES.filter((type) => receivable.includes(type)).map((type) => ({
    type,
    description: EVENT_AUDIENCE[type].description.replaceAll("`", ""),
  }));

  return (
    <div className="space-y-8">
      <AppPageHeader app={app} current="sandbox" onTeam={can.onTeam} />

      {app.status === "suspended" ? (
        <Alert tone="danger" title="The sandbox is off while the app is suspended">
          Sandbox token requests fail with <code className="font-mono">invalid_client</code> until an admin reinstates the app.
        </Alert>
      ) : (
        <Alert tone="info" title={app.status === "approved" ? "Test here, not on real people" : "Build now: the sandbox works before review"}>
          The sandbox is a twin of this app with its own client ID, its own synthetic people and its own quota. Sandbox
          tokens read and write only sandbox data; nothing done here reaches a real person.{" "}
          <Link href="/docs/sandbox" className="font-medium underline">
            Build in the sandbox, go live after review
          </Link>
        </Alert>
      )}

      <div className="grid gap-8 lg:grid-cols-3">
        <div className="min-w-0 space-y-6 lg:col-span-2">
          <Card
            id="sandbox-credentials"
            title="Sandbox credentials"
            description={
              app.type === "api"
                ? "The sandbox client ID and its secret get app-only tokens marked \"sandbox\": true, with the app's current scopes (changes waiting for review included)."
                : "The sandbox client ID signs in test users through the hosted login page (PKCE, no secret), with the app's current scopes and redirect URIs (changes waiting for review included)."
            }
          >
            <dl className="space-y-5">
              <CopyField label="Sandbox client ID" value={sandbox.clientId} />
              <CopyField label="Token endpoint" value={`${config.ISSUER}/protocol/openid-connect/token`} />
              <CopyField label="API base URL" value={config.API_URL} hint="The same API as live: the token decides which world it reads." />
            </dl>
            <div className="mt-5 border-t border-slate-100 pt-5">
              {app.type === "api" ? (
                <SandboxSecretPanel clientId={app.clientId} canRoll={can.handleSecrets} />
              ) : (
                <p className="flex items-start gap-2 text-sm text-slate-600">
                  <Icon name="lock" className="mt-0.5 size-4 shrink-0" />A login client&apos;s sandbox has no secret, like the
                  app itself.
                </p>
              )}
            </div>
          </Card>

          <Card
            id="test-users"
            title="Test users"
            description={`Synthetic accounts your team signs in with on the hosted login page, through the sandbox client ID only (a Sandbox banner says so). Up to ${SANDBOX_TEST_USER_LIMIT}; a reset keeps them.`}
          >
            <SandboxTestUsers
              clientId={app.clientId}
              users={testUsers.map((u) => ({ handle: u.handle, createdAt: u.createdAt.toISOString() }))}
              limit={SANDBOX_TEST_USER_LIMIT}
              canManage={can.manage && app.status !== "suspended"}
            />
          </Card>

          <Card
            id="trigger-event"
            title="Trigger event"
            description={
              <>
                One event with synthetic data, delivered to the app&apos;s sandbox webhook endpoints and sandbox event streams
                only.{" "}
                <Link href="/docs/events" className="underline">
                  Events
                </Link>
              </>
            }
          >
            {!can.manage ? (
              <p className="flex items-start gap-2 text-sm text-slate-600">
                <Icon name="lock" className="mt-0.5 size-4 shrink-0" />
                The owner and team admins trigger events.
              </p>
            ) : app.status === "suspended" ? (
              <p className="text-sm text-slate-600">A suspended app&apos;s sandbox hears no events.</p>
            ) : triggerable.length ? (
              <SandboxTriggerEvent clientId={app.clientId} types={triggerable} />
            ) : (
              <p className="text-sm text-slate-600">None of the triggerable events is open to this app&apos;s scopes.</p>
            )}
          </Card>
        </div>

        <aside className="min-w-0 space-y-6" aria-label="Sandbox details">
          <Card
            title="Synthetic world"
            description="About 50 generated people with profiles, friendships, stats, Beetle cards and notifications, and a few hundred chat messages. Only this app's sandbox sees them."
          >
            <dl className="space-y-4 text-sm">
              <div>
                <dt className="font-medium text-slate-700">World</dt>
                <dd className="mt-1 text-slate-900" data-testid="sandbox-world">
                  {sandbox.generatedAt ? (
                    <>
                      Built <TimeAgo date={sandbox.generatedAt} now={now} />
                    </>
                  ) : (
                    <>
                      Not built yet
                      <span className="block text-slate-600">It is generated on the first API call with a sandbox token.</span>
                    </>
                  )}
                </dd>
              </div>
              <div>
                <dt className="font-medium text-slate-700">Sandbox quota</dt>
                <dd className="mt-1 text-slate-900" data-testid="sandbox-quota">
                  {sandbox.quotaPerMinute.toLocaleString("en-US")} requests per minute
                  <span className="block text-slate-600">Counted apart from the live quota: testing never eats into it.</span>
                </dd>
              </div>
              <div>
                <dt className="font-medium text-slate-700">Created</dt>
                <dd className="mt-1 text-slate-900">
                  <TimeAgo date={sandbox.createdAt} now={now} />
                </dd>
              </div>
            </dl>
            {can.manage ? (
              <div className="mt-5 border-t border-slate-100 pt-5">
                <p className="mb-3 text-sm text-slate-600">Start over with a fresh world: everything in it is generated again.</p>
                <ResetSandboxButton clientId={app.clientId} />
              </div>
            ) : (
              <p className="mt-5 flex items-start gap-2 border-t border-slate-100 pt-5 text-sm text-slate-600" data-testid="sandbox-read-only">
                <Icon name="lock" className="mt-0.5 size-4 shrink-0" />
                Viewers can read the sandbox; the owner and team admins reset it and manage its test users.
              </p>
            )}
          </Card>
        </aside>
      </div>
    </div>
  );
}
