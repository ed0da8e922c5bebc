import { Alert } from "@/components/ui/alert";
import { buttonClasses } from "@/components/ui/button";
import { Field, inputClasses } from "@/components/ui/field";
import { Icon } from "@/components/ui/icon";
import { translator, type Locale } from "@/lib/i18n";
import { InteractionCard } from "./interaction-card";

/**
 * Device sign-in, step 1 (RFC 8628 §3.3): the person types the code their TV, CLI or bot shows.
 * A plain HTML form (no JavaScript) posting to oidc-provider's verification endpoint with its CSRF
 * value; a code from verification_uri_complete arrives filled in and still needs "Continue".
 */
export function DeviceCodeForm({
  locale = "en",
  action,
  xsrf,
  userCode,
  error,
}: {
  locale?: Locale;
  action: string;
  xsrf: string;
  userCode: string;
  error: string | null;
}) {
  const t = translator(locale);
  return (
    <InteractionCard labelledBy="device-title">
      <div className="flex size-12 items-center justify-center rounded-xl bg-brand-600 text-white">
        <Icon name="code" className="size-6" />
      </div>
      <h1 id="device-title" className="mt-6 text-2xl font-semibold tracking-tight">
        {t("device.input.title")}
      </h1>
      <p className="mt-2 text-sm text-slate-600">{t("device.input.text")}</p>
      {error ? (
        <div className="mt-6" id="device-error">
          <Alert tone="danger" role="alert">
            {error}
          </Alert>
        </div>
      ) : null}
      <form method="post" action={action} className="mt-6 space-y-5">
        <input type="hidden" name="xsrf" value={xsrf} />
        <Field id="user_code" label={t("device.code")}>
          <input
            id="user_code"
            name="user_code"
            type="text"
            autoComplete="off"
            autoCapitalize="characters"
            spellCheck={false}
            required
            maxLength={32}
            placeholder="XXXX-XXXX"
            defaultValue={userCode}
            autoFocus
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? "device-error" : undefined}
            className={`${inputClasses} text-center font-mono text-lg tracking-[0.2em] uppercase`}
          />
        </Field>
        <button type="submit" className={buttonClasses("primary", "lg", "w-full")}>
          {t("device.continue")}
        </button>
      </form>
    </InteractionCard>
  );
}
