import { translator } from "@/lib/i18n";
import type { InteractionPageProps } from "@/lib/schemas/interaction-page";
import { ConsentForm } from "./consent-form";
import { ExpiredCard } from "./expired-card";
import { HostedPage } from "./hosted-page";
import { LoginForm } from "./login-form";
import { SandboxBanner } from "./sandbox-banner";
import { PasskeyScript } from "./passkey-option";
import { SecondFactorForm } from "./second-factor-form";

/** The document title of `/interaction/:uid` (also written by the server's fast path, lib/server/hosted-page.ts). */
export function interactionPageTitle(props: InteractionPageProps): string {
  const t = translator(props.locale);
  if (props.kind === "expired") return t("expired.pageTitle");
  if (props.kind === "login") return t("login.pageTitle");
  if (props.kind === "second_factor") return t("secondFactor.title");
  return t("consent.pageTitle", { app: props.clientName });
}

/**
 * The hosted login and consent page, whoever serves it: Next (pages/interaction/[uid].tsx) or the
 * server's fast path (lib/server/hosted-page.ts, the same tree through react-dom/server). `nonce`:
 * the response's CSP nonce, for the passkey script of the login and second-factor pages.
 */
export function InteractionPage({ nonce, ...props }: InteractionPageProps & { nonce?: string }) {
  const title = interactionPageTitle(props);
  const { locale, path } = props;
  if (props.kind === "expired") {
    return (
      <HostedPage title={title} locale={locale} path={path}>
        <ExpiredCard locale={locale} />
      </HostedPage>
    );
  }
  const body =
    props.kind === "login" ? (
      <LoginForm
        locale={locale}
        uid={props.uid}
        clientName={props.clientName}
        device={props.device}
        username={props.username}
        passkey={props.passkey}
        error={props.error}
      />
    ) : props.kind === "second_factor" ? (
      <SecondFactorForm
        locale={locale}
        uid={props.uid}
        clientName={props.clientName}
        device={props.device}
        handle={props.handle}
        stepUp={props.stepUp}
        passkey={props.passkey}
        totp={props.totp}
        error={props.error}
      />
    ) : (
      <ConsentForm
        locale={locale}
        uid={props.uid}
        clientName={props.clientName}
        ownerHandle={props.ownerHandle}
        account={props.account}
        scopes={props.scopes}
        identity={props.identity}
        agent={props.agent}
        kind={props.consentKind}
        added={props.added}
      />
    );
  // The login and second-factor pages carry the passkey script when they offer a passkey.
  const passkey = props.kind !== "consent" && props.passkey;
  return (
    <HostedPage title={title} locale={locale} path={path}>
      {props.sandbox ? <SandboxBanner locale={locale} /> : null}
      {body}
      {passkey ? <PasskeyScript nonce={nonce} /> : null}
    </HostedPage>
  );
}
