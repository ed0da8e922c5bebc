import { Alert } from "@/components/ui/alert";
import { buttonClasses } from "@/components/ui/button";
import { Field, inputClasses } from "@/components/ui/field";
import { Icon } from "@/components/ui/icon";
import { InteractionCard } from "./interaction-card";

/** One message per outcome; wrong user and wrong password read the same (no account enumeration). */
const ERRORS: Record<string, string> = {
  invalid_credentials: "Incorrect username or password.",
  missing_fields: "Enter your username and password.",
  too_many_attempts: "Too many failed sign-in attempts. Wait 15 minutes, then try again.",
  account_disabled: "This account is disabled, so it cannot sign in. Contact the platform's support if you think this is a mistake.",
};

/**
 * The hosted login form. A plain HTML form (works without JavaScript) posting to
 * /interaction/:uid/login, handled by lib/oidc/interactions.ts; "Cancel" posts to .../abort.
 */
export function LoginForm({ uid, clientName, error }: { uid: string; clientName: string; error?: string }) {
  const message = error ? (ERRORS[error] ?? "Sign-in failed. Try again.") : undefined;
  const invalid = error === "invalid_credentials" || error === "missing_fields";
  return (
    <InteractionCard labelledBy="login-title">
      <div className="flex size-12 items-center justify-center rounded-xl bg-brand-600 text-white">
        <Icon name="lock" className="size-6" />
      </div>
      <h1 id="login-title" className="mt-6 text-2xl font-semibold tracking-tight">
        Sign in
      </h1>
      <p className="mt-2 text-sm text-slate-600">
        to continue to <strong className="font-semibold text-slate-900">{clientName}</strong>
      </p>
      {message ? (
        <div className="mt-6" id="login-error">
          <Alert tone="danger" role="alert">
            {message}
          </Alert>
        </div>
      ) : null}
      <form method="post" action={`/interaction/${uid}/login`} className="mt-6 space-y-5">
        <Field id="username" label="Username">
          <input
            id="username"
            name="username"
            type="text"
            autoComplete="username"
            autoCapitalize="none"
            spellCheck={false}
            required
            maxLength={100}
            autoFocus
            aria-invalid={invalid || undefined}
            aria-describedby={message ? "login-error" : undefined}
            className={inputClasses}
          />
        </Field>
        <Field id="password" label="Password">
          <input
            id="password"
            name="password"
            type="password"
            autoComplete="current-password"
            required
            maxLength={1024}
            aria-invalid={invalid || undefined}
            aria-describedby={message ? "login-error" : undefined}
            className={inputClasses}
          />
        </Field>
        <button type="submit" className={buttonClasses("primary", "lg", "w-full")}>
          Sign in
        </button>
        <button type="submit" formAction={`/interaction/${uid}/abort`} formNoValidate className={buttonClasses("ghost", "md", "w-full")}>
          Cancel and return to {clientName}
        </button>
      </form>
    </InteractionCard>
  );
}
