import type { Metadata } from "next";
import Link from "next/link";
import { AppReviewActions } from "@/components/admin/app-review-actions";
import { ChangeReviewActions } from "@/components/admin/change-review-actions";
import { QuotaForm } from "@/components/admin/quota-form";
import { SandboxExercisePanel } from "@/components/admin/sandbox-exercise";
import { AppIdentity } from "@/components/apps/app-identity";
import { AppQuickstarts } from "@/components/apps/app-quickstarts";
import { AppStatusCallout } from "@/components/apps/app-status-callout";
import { AppPageHeader } from "@/components/apps/app-page-header";
import { ClientKeysPanel } from "@/components/apps/client-keys-panel";
import { ClientSecretPanel, type SecretItem } from "@/components/apps/client-secret-panel";
import { DeleteAppButton } from "@/components/apps/delete-app-button";
import { NewSandboxSecretBanner } from "@/components/apps/new-sandbox-secret-banner";
import { NewSecretBanner } from "@/components/apps/new-secret-banner";
import { ChangeRefusedNotice, PendingChangeDiff } from "@/components/apps/pending-change";
import { TeamPanel } from "@/components/apps/team-panel";
import { ButtonLink } from "@/components/ui/button-link";
import { Card } from "@/components/ui/card";
import { CopyField } from "@/components/ui/copy-field";
import { Icon } from "@/components/ui/icon";
import { TimeAgo } from "@/components/ui/time-ago";
import { env } from "@/lib/env";
import type { ClientKeysItem } from "@/lib/actions/apps";
import type { AppView, SecretView } from "@/lib/schemas/apps";
import { sandboxClientId } from "@/lib/schemas/sandboxes";
import { describeScope } from "@/lib/scopes";
import { requireAppPage } from "@/lib/portal/session";
import { capabilities } from "@/lib/services/app-access";
import { isSecretWaiting, listSecrets, MAX_ACTIVE_SECRETS, revealSecretOnce } from "@/lib/services/app-secrets";
import { getSandboxExercise } from "@/lib/services/usage";

export const metadata: Metadata = { title: "Application" };

function toSecretItem(secret: SecretView): SecretItem {
  return {
    id: secret.id,
    hint: secret.hint,
    createdAt: secret.createdAt.toISOString(),
    lastUsedAt: secret.lastUsedAt?.toISOString() ?? null,
  };
}

function toKeysItem(keys: NonNullable<AppView["clientKeys"]>): ClientKeysItem {
  return { jwksUri: keys.jwksUri, keys: keys.keys, updatedAt: keys.updatedAt?.toISOString() ?? null };
}

export default async function AppPage({ params }: { params: Promise<{ clientId: string }> }) {
  const now = new Date();
  const { user, actor, app } = await requireAppPage(params);
  // Only the app's team and platform admins get here (the service answers not_found to anyone
  // else). The team (owner, team admins, viewers: issue 15) sees the owner's page, with what their
  // role allows; anyone else is an admin reviewing someone else's app, and the page speaks to them
  // as such. The services check every action again.
  const can = capabilities(app, actor);
  const isOwner = can.onTeam;
  // SPEC: the secret is revealed once on the application page, to its team, after approval. The
  // service generates it only if none exists yet (under the app's row lock), so a reload gets null;
  // it also announces the change, so the new secret works at once in every process.
  const revealed = can.handleSecrets && isSecretWaiting(app) ? await revealSecretOnce(app.clientId, actor) : null;
  const secrets = revealed ? await listSecrets(app.clientId, actor) : app.secrets;
  // Reviewers see how much the app's sandbox was exercised, next to the Review panel.
  const sandboxExercise = can.review && !isOwner && !app.firstParty ? await getSandboxExercise(app.clientId, actor, now.getTime()) : null;
  const config = env();
  const discoveryUrl = `${config.ISSUER}/.well-known/openid-configuration`;
  // private_key_jwt (lib/services/app-keys.ts): managed by whoever handles secrets; an API client's
  // once approved (like its secrets), a login client's whatever its status.
  const keysCard = app.firstParty ? null : (
    <Card
      id="client-keys"
      title="Keys (private_key_jwt)"
      description="Sign each token request with the app's own private key instead of sending a secret (RFC 7523)."
    >
      <ClientKeysPanel
        clientId={app.clientId}
        appType={app.type}
        clientKeys={app.clientKeys ? toKeysItem(app.clientKeys) : null}
        canManage={can.handleSecrets && (app.type === "login" || app.status === "approved")}
        notice={
          !can.handleSecrets
            ? isOwner
              ? "Viewers cannot manage keys: ask the owner or a team admin."
              : "Only the app's owner and team admins can manage its keys."
            : app.type === "api" && app.status !== "approved"
              ? `Keys can be set once the application is approved${app.status === "suspended" ? " and reinstated" : ""}.`
              : undefined
        }
      />
    </Card>
  );

  return (
    <div className="space-y-8">
      <AppPageHeader
        app={app}
        current="overview"
        onTeam={isOwner}
        details={
          !isOwner ? (
            <span className="min-w-0 text-sm break-words text-slate-600" data-testid="app-owner">
              Owned by <span className="font-medium text-slate-900">{app.owner.displayName}</span> (@{app.owner.handle})
            </span>
          ) : null
        }
        actions={
          can.onTeam && can.manage && !app.firstParty ? (
            <ButtonLink href={`/apps/${app.clientId}/edit`} variant="secondary" prefetch={false}>
              <Icon name="pencil" /> Edit
            </ButtonLink>
          ) : null
        }
      />

      {app.type === "api" ? <NewSandboxSecretBanner clientId={app.clientId} /> : null}

      {revealed ? (
        <NewSecretBanner
          secret={{ secretId: revealed.secretId, clientSecret: revealed.clientSecret }}
          activeSecretIds={secrets.map((s) => s.id)}
        />
      ) : null}

      <div className="grid gap-8 lg:grid-cols-3">
        <div className="min-w-0 space-y-6 lg:col-span-2">
          <AppStatusCallout app={app} viewer={isOwner ? "owner" : "admin"} secretShownAbove={revealed !== null} now={now} />

          {/* API clients never meet a person: no consent page, so their card is what reviewers read. */}
          {app.firstParty ? null : (
            <Card
              title={app.type === "login" ? "On the consent page" : "About the app"}
              description={
                app.type === "login"
                  ? "Who people see asking for access when they sign in: the approved logo, name, owner, description and links."
                  : "How the app describes itself to reviewers: the approved logo, name, owner, description and links. API clients act for themselves, so no person sees a consent page for them."
              }
            >
              <AppIdentity app={app} headingLevel="p" />
            </Card>
          )}

          {app.pendingChange ? (
            <Card
              title="Changes waiting for review"
              description={
                <>
                  Requested by @{app.pendingChange.requestedBy} <TimeAgo date={app.pendingChange.requestedAt} now={now} />.{" "}
                  {can.review && !isOwner
                    ? "The app runs on its approved configuration until you approve them; new tokens and consents then include what they add."
                    : "The app keeps running on its approved configuration (tokens, the consent page) until an admin approves them."}
                </>
              }
              actions={can.review ? <ChangeReviewActions clientId={app.clientId} name={app.name} revision={app.revision} /> : null}
            >
              <PendingChangeDiff app={app} />
            </Card>
          ) : app.pendingChangeRejection && isOwner ? (
            <ChangeRefusedNotice reason={app.pendingChangeRejection} />
          ) : null}

          {can.review && !app.firstParty ? (
            <Card
              title="Review"
              description={
                app.status === "approved"
                  ? "Admin actions. Suspending voids every access and refresh token of the app at once, for good: reinstating does not revive them. The owner sees your reason on this page."
                  : app.status === "suspended"
                    ? "Admin actions. Reinstating lets the app get new tokens; the tokens voided by the suspension stay void."
                    : "Admin actions. The owner sees the outcome and your reason on this page."
              }
              actions={<AppReviewActions clientId={app.clientId} name={app.name} status={app.status} revision={app.revision} size="md" />}
            />
          ) : null}
          {sandboxExercise ? <SandboxExercisePanel clientId={app.clientId} exercise={sandboxExercise} now={now} /> : null}

          <Card
            title="Credentials"
            description={isOwner ? "Identify your app to the sign-in service." : "How this app identifies itself to the sign-in service."}
          >
            <dl className="space-y-5">
              <CopyField label="Client ID" value={app.clientId} />
              <CopyField
                label="Sandbox client ID"
                value={sandboxClientId(app.clientId)}
                hint={
                  <>
                    Works from registration, whatever the review status, on synthetic data only.{" "}
                    <Link href={`/apps/${app.clientId}/sandbox`} prefetch={false} className="font-medium underline">
                      Sandbox tab
                    </Link>
                  </>
                }
              />
              <CopyField
                label="Discovery URL"
                value={discoveryUrl}
                hint="OpenID Connect discovery: every endpoint (authorization, token, logout, keys, userinfo, introspection, revocation) is listed here."
              />
              <CopyField label="Token endpoint" value={`${config.ISSUER}/protocol/openid-connect/token`} />
              <CopyField label="API base URL" value={config.API_URL} />
            </dl>
          </Card>

          {app.type === "api" ? (
            <Card
              id="client-secrets"
              title="Client secrets"
              description={
                app.clientKeys
                  ? "Not used while the app signs its token requests with keys."
                  : `Used with the client ID to get app-only tokens. Up to ${MAX_ACTIVE_SECRETS} can be active at once, so ${isOwner ? "you" : "the owner"} can rotate without downtime.`
              }
            >
              {app.clientKeys ? (
                <p className="flex items-start gap-2 text-sm text-slate-600" data-testid="secrets-keys-instead">
                  <Icon name="key" className="mt-0.5 size-4 shrink-0" />
                  <span>
                    This app authenticates with its keys (private_key_jwt, below) and holds no client secret: a token request with
                    a secret fails with <code className="font-mono">invalid_client</code>.
                  </span>
                </p>
              ) : app.status === "approved" || secrets.length > 0 ? (
                <ClientSecretPanel
                  clientId={app.clientId}
                  secrets={secrets.map(toSecretItem)}
                  maxActive={MAX_ACTIVE_SECRETS}
                  newSecretId={revealed?.secretId ?? null}
                  canManage={can.handleSecrets && app.status === "approved"}
                  notice={
                    app.status !== "approved" ? (
                      <>
                        While the application is {app.status}, token requests with these secrets fail with{" "}
                        <code className="font-mono">invalid_client</code>.
                      </>
                    ) : can.handleSecrets ? undefined : isOwner ? (
                      "Viewers cannot see or manage secrets: ask the owner or a team admin."
                    ) : (
                      "Only the app's owner and team admins can see or manage secrets."
                    )
                  }
                />
              ) : (
                <p className="flex items-start gap-2 text-sm text-slate-600">
                  <Icon name="lock" className="mt-0.5 size-4 shrink-0" />
                  {isOwner
                    ? "The secret is shown at the top of this page once, on your first visit after the application is approved."
                    : "The owner sees the secret once, on their first visit after approval; admins never see it."}
                </p>
              )}
            </Card>
          ) : null}
          {app.type === "api" ? keysCard : null}
          {app.type === "login" ? (
            <Card
              title="No client secret"
              description={app.clientKeys ? "This login client authenticates with its keys." : "Login clients are public clients."}
            >
              <p className="text-sm text-slate-600" data-testid="login-client-auth">
                {app.clientKeys ? (
                  <>
                    It signs each token request with its own private key (private_key_jwt, below), so it is a confidential
                    client: keep that key on a server, never in a browser or a phone app.
                  </>
                ) : (
                  <>
                    A public client: it runs where people can read its code (a browser, a phone), so it never gets a secret.
                    It proves itself with PKCE instead: a fresh verifier for every sign-in.
                    {keysCard ? " An app with a server can sign its token requests with its own keys instead (below)." : ""}
                  </>
                )}
              </p>
            </Card>
          ) : null}
          {app.type === "login" ? keysCard : null}

          <Card
            title="Quickstart"
            description={
              app.type === "api"
                ? isOwner
                  ? "Your first API call in two requests."
                  : "How the owner gets a token and makes a first API call."
                : isOwner
                  ? "Sign people in and call the API on their behalf."
                  : "How the owner's app signs people in and calls the API on their behalf."
            }
          >
            <AppQuickstarts app={app} issuer={config.ISSUER} apiUrl={config.API_URL} />
            <p className="mt-4 text-sm text-slate-600">
              <Link href="/docs/sandbox" className="underline">
                Build in the sandbox, go live after review
              </Link>
              : what the sandbox holds, test users, reset and the <code className="font-mono text-xs">sandbox</code> token claim.
            </p>
          </Card>
        </div>

        <aside className="min-w-0 space-y-6" aria-label="Application details">
          <Card title="Details">
            <dl className="space-y-4 text-sm">
              {/* Other apps show their description in the identity block ("On the consent page"). */}
              {app.firstParty ? (
              <div>
                  <dt className="font-medium text-slate-700">Description</dt>
                  <dd className="mt-1 break-words whitespace-pre-line text-slate-900" data-testid="app-description">
                    {app.description || <span className="text-slate-600 italic">None</span>}
                  </dd>
                </div>
              ) : null}
              <div>
                <dt className="font-medium text-slate-700">Scopes</dt>
                <dd className="mt-1">
                  {app.scopes.length ? (
                    <ul className="space-y-2">
                      {app.scopes.map((s) => (
                        <li key={s}>
                          <code className="font-mono text-xs font-medium text-slate-900">{s}</code>
                          <span className="block text-slate-600">{describeScope(s)}</span>
                        </li>
                      ))}
                    </ul>
                  ) : (
                    <span className="text-slate-600">{app.type === "login" ? "openid only" : "None"}</span>
                  )}
                </dd>
              </div>
              {app.type === "login" ? (
                <>
                  <div>
                    <dt className="font-medium text-slate-700">Redirect URIs</dt>
                    <dd className="mt-1 space-y-1">
                      {app.redirectUris.map((u) => (
                        <code key={u} className="block font-mono text-xs break-all text-slate-900">
                          {u}
                        </code>
                      ))}
                    </dd>
                  </div>
                  <div>
                    <dt className="font-medium text-slate-700">Post-logout redirect URIs</dt>
                    <dd className="mt-1 space-y-1">
                      {app.postLogoutRedirectUris.length ? (
                        app.postLogoutRedirectUris.map((u) => (
                          <code key={u} className="block font-mono text-xs break-all text-slate-900">
                            {u}
                          </code>
                        ))
                      ) : (
                        <span className="text-slate-600">None (any redirect URI works after logout)</span>
                      )}
                    </dd>
                  </div>
                  <div>
                    <dt className="font-medium text-slate-700">Device sign-in</dt>
                    <dd className="mt-1 text-slate-900">
                      {app.deviceFlow ? "Allowed (device authorization grant)" : "Off"}
                      {app.pendingChange?.deviceFlow ? <span className="text-slate-600"> · turning it on waits for review</span> : null}
                    </dd>
                  </div>
                  <div>
                    <dt className="font-medium text-slate-700">Pushed authorization requests</dt>
                    <dd className="mt-1 text-slate-900">
                      {app.requirePar ? "Required: a sign-in request must be pushed first (PAR)" : "Optional"}
                    </dd>
                  </div>
                </>
              ) : null}
              <div>
                <dt className="font-medium text-slate-700">DPoP</dt>
                <dd className="mt-1 text-slate-900">{app.requireDpop ? "Required" : "Not required"}</dd>
              </div>
              <div>
                <dt className="font-medium text-slate-700">API quota</dt>
                <dd className="mt-1 text-slate-900" data-testid="app-quota">
                  {app.requestsPerMinute.toLocaleString("en-US")} requests per minute
                  {app.customQuota ? " (set by an admin)" : " (the default)"}
                  <span className="block text-slate-600">
                    Every API response says what is left in the <code className="font-mono text-xs">RateLimit</code> and{" "}
                    <code className="font-mono text-xs">X-RateLimit-*</code> headers.{" "}
                    <Link href="/docs/errors" className="underline">
                      Limits
                    </Link>
                  </span>
                  {can.review && !app.firstParty ? (
                    <div className="mt-3">
                      <QuotaForm clientId={app.clientId} perMinute={app.requestsPerMinute} custom={app.customQuota} />
                    </div>
                  ) : null}
                </dd>
              </div>
              <div>
                <dt className="font-medium text-slate-700">Registered</dt>
                <dd className="mt-1 text-slate-900">
                  <TimeAgo date={app.createdAt} now={now} /> by {app.owner.displayName} (@{app.owner.handle})
                </dd>
              </div>
              <div>
                <dt className="font-medium text-slate-700">Last updated</dt>
                <dd className="mt-1 text-slate-900">
                  <TimeAgo date={app.updatedAt} now={now} />
                </dd>
              </div>
            </dl>
          </Card>
          {!app.firstParty ? (
            <Card
              title="Team"
              description={
                can.manageTeam
                  ? "Admins manage everything but deleting and transferring the app; viewers only read."
                  : "The people who work on this app. Ask the owner to change roles."
              }
            >
              <TeamPanel
                clientId={app.clientId}
                appName={app.name}
                viewerHandle={user.handle}
                canManageTeam={can.manageTeam}
                transferTo={app.transferTo?.handle ?? null}
                canRollSecrets={can.handleSecrets && app.type === "api" && !app.clientKeys}
                people={[
                  { handle: app.owner.handle, displayName: app.owner.displayName, role: "owner" },
                  ...app.members.map((m) => ({ handle: m.handle, displayName: m.displayName, role: m.role })),
                ]}
              />
            </Card>
          ) : null}
          {!app.firstParty && can.delete ? (
            <Card title="Danger zone" className="border-red-200">
              <p className="text-sm text-slate-600">
                {isOwner ? null : "Deleting removes this application for its owner too. "}
                Deleting revokes every access token, refresh token and grant of this app at once: its API calls answer{" "}
                <code className="font-mono">401 invalid_token</code>, and people who signed in to it are signed out of it.
              </p>
              <div className="mt-4">
                <DeleteAppButton clientId={app.clientId} name={app.name} />
              </div>
            </Card>
          ) : null}
        </aside>
      </div>
    </div>
  );
}
