import { AppIdentity, AppLogo, type AppIdentityWords } from "@/components/apps/app-identity";
import type { InteractionPageProps } from "@/lib/schemas/interaction-page";
import { buttonClasses } from "@/components/ui/button";
import { Icon } from "@/components/ui/icon";
import { plural, template, translator } from "@/lib/i18n";
import { Rich } from "./rich";
import { InteractionCard } from "./interaction-card";

/** What the consent page shows (lib/oidc/interaction-page.ts decides it; `added`: scopes not allowed before). */
type ConsentPageProps = Extract<InteractionPageProps, { kind: "consent" }>;

/** Where a person sees and revokes the apps they allowed. */
const CONNECTED_APPS = "/account/apps";

/**
 * The consent page for third-party login clients (a page people can trust): who asks
 * (the app's approved logo from our own origin, name, owner, description and links: AppIdentity),
 * whether it asks for the first time or now asks for more than the person allowed before, who is
 * signed in (with "Not you?", which signs that account out of the platform and restarts this same
 * sign-in), and each scope in plain words. "Allow" posts to /interaction/:uid/consent, "Deny" to
 * .../abort, "Use another account" to .../switch. Plain forms: the page ships no JavaScript.
 */
export function ConsentForm({
  locale,
  uid,
  clientName,
  ownerHandle,
  account,
  scopes,
  identity,
  agent,
  kind,
  added,
}: Omit<ConsentPageProps, "kind" | "consentKind" | "sandbox" | "path"> & { kind: ConsentPageProps["consentKind"] }) {
  const t = translator(locale);
  const bold = (text: string) => <strong className="font-semibold text-slate-900">{text}</strong>;
  const identityWords: AppIdentityWords = {
    homepage: t("identity.homepage"),
    privacyPolicy: t("identity.privacyPolicy"),
    terms: t("identity.terms"),
    links: t("identity.links"),
    newTab: t("consent.newTab"),
    about: (app) => t("identity.about", { app }),
    by: (name, handle) => <Rich text={template(locale, "identity.by")} values={{ name, handle }} />,
    ownerUnknown: t("identity.ownerUnknown"),
  };
  const isNew = (scope: string) => kind === "more" && added.includes(scope);
  // New permissions first: they are what the person decides about now.
  const ordered = kind === "more" ? [...scopes.filter((s) => isNew(s.scope)), ...scopes.filter((s) => !isNew(s.scope))] : scopes;
  return (
    <InteractionCard labelledBy="consent-title">
      <AppLogo clientId={identity.clientId} name={clientName} logo={identity.logo} size="lg" />
      <h1 id="consent-title" className="mt-6 text-2xl font-semibold tracking-tight wrap-anywhere">
        {agent
          ? t("consent.agent.title")
          : kind === "more"
            ? t("consent.title.more", { app: clientName })
            : t("consent.title.first", { app: clientName })}
      </h1>
      <p className="mt-2 text-sm text-slate-600" data-testid="consent-kind" data-kind={kind}>
        {kind === "first" ? t("consent.first") : kind === "more" ? plural(locale, "consent.more", added.length) : t("consent.again")}{" "}
        {agent ? null : ownerHandle ? <Rich text={template(locale, "consent.builtBy")} values={{ owner: bold(`@${ownerHandle}`) }} /> : t("consent.notPlatform")}
      </p>
      {agent ? (
        <AgentIdentity locale={locale} agent={agent} name={clientName} hasLogo={identity.logo !== null} />
      ) : (
        <AppIdentity app={identity} headingLevel="h2" showLogo={false} words={identityWords} className="mt-4 rounded-xl border border-slate-200 p-4" />
      )}
      {account ? (
        <form
          method="post"
          action={`/interaction/${uid}/switch`}
          className="mt-4 flex flex-wrap items-center gap-x-3 gap-y-1 rounded-xl bg-slate-50 px-4 py-3 text-sm text-slate-600 ring-1 ring-inset ring-slate-200"
        >
          <span className="flex min-w-0 items-center gap-2">
            <Icon name="user" className="size-4 shrink-0 text-slate-500" />
            <span className="min-w-0">
              <Rich text={template(locale, "consent.signedInAs")} values={{ name: bold(account.displayName), handle: account.handle }} />
            </span>
          </span>
          <button
            type="submit"
            className="-mx-1 inline-flex min-h-6 items-center rounded px-1 font-medium text-brand-700 underline-offset-2 hover:underline"
          >
            {t("consent.switch")}
          </button>
        </form>
      ) : null}
      {/* The name is in the title and on the identity card: not repeated in every sentence. */}
      <h2 className="mt-6 text-sm font-semibold text-slate-900">{t("consent.listTitle")}</h2>
      <ul className="mt-3 divide-y divide-slate-100 rounded-xl border border-slate-200" aria-label={t("consent.listLabel")}>
        {ordered.map((s) => (
          <li key={s.scope} className={`flex gap-3 px-4 py-3 ${isNew(s.scope) ? "bg-amber-50" : ""}`} data-new={isNew(s.scope) || undefined}>
            <Icon name={isNew(s.scope) ? "plus" : "check"} className={`mt-0.5 size-5 shrink-0 ${isNew(s.scope) ? "text-amber-800" : "text-brand-600"}`} />
            <div className="min-w-0">
              <p className="text-sm text-slate-900">
                {isNew(s.scope) ? (
                  <span className="mr-2 inline-block rounded bg-amber-200 px-1.5 py-0.5 text-xs font-semibold text-amber-950">{t("consent.new")}</span>
                ) : null}
                {s.description}
                {kind === "more" && !isNew(s.scope) ? <span className="text-slate-600"> {t("consent.alreadyAllowed")}</span> : null}
              </p>
              <p className="mt-0.5 font-mono text-xs text-slate-600">{s.scope}</p>
            </div>
          </li>
        ))}
      </ul>
      <p className="mt-4 text-xs text-slate-500">
        <Rich
          text={template(locale, "consent.footer")}
          values={{
            link: (
              <a
                href={CONNECTED_APPS}
                target="_blank"
                rel="noopener noreferrer"
                className="font-medium text-brand-700 underline underline-offset-2 hover:text-brand-800"
              >
                {t("consent.connectedApps")}
                <span className="sr-only"> {t("consent.newTab")}</span>
              </a>
            ),
          }}
        />
      </p>
      <form method="post" action={`/interaction/${uid}/consent`} className="mt-6 flex flex-col-reverse gap-3 sm:flex-row">
        <button
          type="submit"
          formAction={`/interaction/${uid}/abort`}
          className={buttonClasses("secondary", "lg", "w-full sm:w-auto sm:flex-1")}
        >
          {t("consent.deny")}
        </button>
        <button type="submit" className={buttonClasses("primary", "lg", "w-full sm:w-auto sm:flex-1")}>
          {t("consent.allow")}
        </button>
      </form>
    </InteractionCard>
  );
}

/**
 * Who an AI agent is, as far as the platform knows (issue 40): the name is the agent's own claim
 * ("says it is …"), the domain of its client ID is what was verified (the document was fetched
 * from it), shown with the client ID in full; and whether the platform reviewed it (its domain
 * trusted by the admins) or not.
 */
/**
 * Who an agent says it is, as claims: the name and the logo come from its own metadata (the logo,
 * copied to the platform's origin, is the one above the title); only its client ID's domain is verified.
 */
function AgentIdentity({
  locale,
  agent,
  name,
  hasLogo,
}: {
  locale: ConsentPageProps["locale"];
  agent: NonNullable<ConsentPageProps["agent"]>;
  name: string;
  hasLogo: boolean;
}) {
  const t = translator(locale);
  const bold = (text: string) => <strong className="font-semibold text-slate-900">{text}</strong>;
  return (
    <div className="mt-4 space-y-3 rounded-xl border border-slate-200 p-4 text-sm text-slate-700" data-testid="agent-identity">
      <p>
        <Rich text={template(locale, hasLogo ? "consent.agent.saysWithLogo" : "consent.agent.says")} values={{ app: bold(name) }} />
      </p>
      {/* A registered agent (RFC 7591) has no verified domain: only a metadata document's URL proves one. */}
      {agent.domain ? (
        <div>
          <p>
            <Rich text={template(locale, "consent.agent.verified")} values={{ domain: bold(agent.domain) }} />
          </p>
          <p className="mt-1 font-mono text-xs break-all text-slate-600">{agent.clientId}</p>
        </div>
      ) : (
        <p data-testid="agent-unverified">{t("consent.agent.unverified")}</p>
      )}
      {agent.reviewed ? (
        <p className="flex items-start gap-2 text-emerald-800">
          <Icon name="check" className="mt-0.5 size-4 shrink-0" />
          <span>
            <Rich text={template(locale, "consent.agent.trusted")} values={{ domain: agent.domain }} />
          </span>
        </p>
      ) : (
        <p className="flex items-start gap-2 rounded-lg bg-amber-50 px-3 py-2 text-amber-900 ring-1 ring-inset ring-amber-200" data-testid="agent-not-reviewed">
          <Icon name="info" className="mt-0.5 size-4 shrink-0" />
          <span>{t("consent.agent.notReviewed")}</span>
        </p>
      )}
    </div>
  );
}
