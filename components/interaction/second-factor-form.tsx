import { Alert } from "@/components/ui/alert";
import { buttonClasses } from "@/components/ui/button";
import { Field, inputClasses } from "@/components/ui/field";
import { Icon } from "@/components/ui/icon";
import { template, translator, type Locale } from "@/lib/i18n";
import { Rich } from "./rich";
import { InteractionCard } from "./interaction-card";

/**
 * The hosted sign-in's second step (issue 29): a code from the authenticator app or a recovery
 * code. A plain HTML form like the login form (no JavaScript), posting to
 * /interaction/:uid/second-factor (lib/oidc/interactions.ts); "Cancel" posts to .../abort.
 */
export function SecondFactorForm({
  locale = "en",
  uid,
  clientName,
  device,
  handle,
  stepUp,
  error,
}: {
  locale?: Locale;
  uid: string;
  clientName: string;
  device: boolean;
  handle: string;
  stepUp: boolean;
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
      {error ? (
        <div className="mt-6" id="code-error">
          <Alert tone="danger" role="alert">
            {error.message}
          </Alert>
        </div>
      ) : null}
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
          {t("secondFactor.hint")}
        </p>
        <button type="submit" className={buttonClasses("primary", "lg", "w-full")}>
          {t("secondFactor.submit")}
        </button>
        <button
          type="submit"
          formAction={`/interaction/${uid}/abort`}
          formNoValidate
          className={buttonClasses("ghost", "md", "w-full", true)}
        >
          {device ? t("login.cancelDevice") : t("login.cancel", { app: clientName })}
        </button>
      </form>
    </InteractionCard>
  );
}
