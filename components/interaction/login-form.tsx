import { Field, inputClasses } from "@/components/ui/field";
import { Icon } from "@/components/ui/icon";
import { template, translator, type Locale } from "@/lib/i18n";
import { Rich } from "./rich";
import { InteractionCard } from "./interaction-card";
import { InteractionError, InteractionFormActions } from "./interaction-form-actions";
import { PasskeyOption } from "./passkey-option";

/**
 * The hosted login form. A plain HTML form (the password path needs no JavaScript) posting to
 * /interaction/:uid/login, handled by lib/oidc/interactions.ts; "Cancel" posts to .../abort. After a
 * refused attempt the username comes back filled in and the password field takes the focus.
 * `passkey`: "Sign in with a passkey" is offered, for browsers running the page's script, and the
 * username field lets the browser suggest passkeys (autocomplete "webauthn", conditional UI).
 */
export function LoginForm({
  locale = "en",
  uid,
  clientName,
  device = false,
  username,
  passkey = false,
  error,
}: {
  locale?: Locale;
  uid: string;
  clientName: string;
  /** A device sign-in: the app is on another device, so Cancel does not "return" to it. */
  device?: boolean;
  username: string;
  passkey?: boolean;
  /** The refusal's code and its message, or null. */
  error: { code: string; message: string } | null;
}) {
  const invalid = error?.code === "invalid_credentials" || error?.code === "missing_fields";
  const describedBy = error ? "login-error" : undefined;
  const t = translator(locale);
  return (
    <InteractionCard labelledBy="login-title">
      <div className="flex size-12 items-center justify-center rounded-xl bg-brand-600 text-white">
        <Icon name="lock" className="size-6" />
      </div>
      <h1 id="login-title" className="mt-6 text-2xl font-semibold tracking-tight">
        {t("login.title")}
      </h1>
      <p className="mt-2 text-sm text-slate-600">
        <Rich text={template(locale, "login.continueTo")} values={{ app: <strong className="font-semibold text-slate-900">{clientName}</strong> }} />
      </p>
      {error ? <InteractionError id="login-error" message={error.message} /> : null}
      <form method="post" action={`/interaction/${uid}/login`} className="mt-6 space-y-5">
        <Field id="username" label={t("login.username")}>
          <input
            id="username"
            name="username"
            type="text"
            autoComplete={passkey ? "username webauthn" : "username"}
            autoCapitalize="none"
            spellCheck={false}
            required
            maxLength={100}
            defaultValue={username}
            autoFocus={!username}
            aria-invalid={invalid || undefined}
            aria-describedby={describedBy}
            className={inputClasses}
          />
        </Field>
        <Field id="password" label={t("login.password")}>
          <input
            id="password"
            name="password"
            type="password"
            autoComplete="current-password"
            required
            maxLength={1024}
            autoFocus={Boolean(username)}
            aria-invalid={invalid || undefined}
            aria-describedby={describedBy}
            className={inputClasses}
          />
        </Field>
        <InteractionFormActions locale={locale} uid={uid} clientName={clientName} device={device} submitLabel={t("login.submit")}>
          {passkey ? <PasskeyOption locale={locale} uid={uid} label={t("passkey.signIn")} autofill /> : null}
        </InteractionFormActions>
      </form>
    </InteractionCard>
  );
}
