import { Field, inputClasses } from "@/components/ui/field";
import { Icon } from "@/components/ui/icon";
import { template, translator, type Locale } from "@/lib/i18n";
import { Rich } from "./rich";
import { InteractionCard } from "./interaction-card";
import { InteractionError, InteractionFormActions } from "./interaction-form-actions";
import { PasskeyOption } from "./passkey-option";

/**
 * The hosted sign-in's second step: a code from the authenticator app or a recovery
 * code (only a recovery code for an account whose second factors are passkeys). A plain HTML form like the login form (no JavaScript), posting to
 * /interaction/:uid/second-factor (lib/oidc/interactions.ts); "Cancel" posts to .../abort. An
 * account with a passkey is offered "Use a passkey" too (the page's script shows it).
 */
export function SecondFactorForm({
  locale = "en",
  uid,
  clientName,
  device,
  handle,
  stepUp,
  passkey = false,
  totp = true,
  error,
}: {
  locale?: Locale;
  uid: string;
  clientName: string;
  device: boolean;
  handle: string;
  stepUp: boolean;
  passkey?: boolean;
  /** The account has an authenticator app; without one the code is a recovery code. */
  totp?: boolean;
  error: { code: string; message: string } | null;
}) {
  const describedBy = error ? "code-error code-hint" : "code-hint";
  const t = translator(locale);
  const names = {
    app: <strong className="font-semibold text-slate-900">{clientName}</strong>,
    handle: <strong className="font-semibold text-slate-900">@{handle}</strong>,
  };
  return (
    <InteractionCard labelledBy="second-factor-title">
      <div className="flex size-12 items-center justify-center rounded-xl bg-brand-600 text-white">
        <Icon name="shield" className="size-6" />
      </div>
      <h1 id="second-factor-title" className="mt-6 text-2xl font-semibold tracking-tight">
        {t("secondFactor.title")}
      </h1>
      <p className="mt-2 text-sm text-slate-600">
        <Rich text={template(locale, stepUp ? "secondFactor.stepUp" : "secondFactor.signingIn")} values={names} />
      </p>
      {error ? <InteractionError id="code-error" message={error.message} /> : null}
      <form method="post" action={`/interaction/${uid}/second-factor`} className="mt-6 space-y-5">
        <Field id="code" label={t("secondFactor.code")}>
          <input
            id="code"
            name="code"
            type="text"
            autoComplete="one-time-code"
            autoCapitalize="none"
            spellCheck={false}
            required
            maxLength={40}
            autoFocus
            aria-invalid={error?.code === "invalid_code" || undefined}
            aria-describedby={describedBy}
            className={inputClasses}
          />
        </Field>
        <p id="code-hint" className="-mt-3 text-sm text-slate-600">
          {t(totp ? "secondFactor.hint" : "secondFactor.hintRecovery")}
        </p>
        <InteractionFormActions locale={locale} uid={uid} clientName={clientName} device={device} submitLabel={t("secondFactor.submit")}>
          {passkey ? <PasskeyOption locale={locale} uid={uid} label={t("passkey.use")} autofill={false} /> : null}
        </InteractionFormActions>
      </form>
    </InteractionCard>
  );
}
