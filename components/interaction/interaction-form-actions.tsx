import type { ReactNode } from "react";
import { Alert } from "@/components/ui/alert";
import { buttonClasses } from "@/components/ui/button";
import { translator, type Locale } from "@/lib/i18n";

/**
 * The hosted sign-in forms' refusal (login, second factor): one danger Alert the form's fields
 * name in aria-describedby by `id`.
 */
export function InteractionError({ id, message }: { id: string; message: string }) {
  return (
    <div className="mt-6" id={id}>
      <Alert tone="danger" role="alert">
        {message}
      </Alert>
    </div>
  );
}

/**
 * The hosted sign-in forms' buttons (login, second factor): the form's own submit, whatever the
 * page offers besides (`children`: the passkey option), then "Cancel", which posts the same form to
 * /interaction/:uid/abort without validating it (lib/oidc/interactions.ts). A device sign-in's
 * app is on another device, so its Cancel does not "return" to it.
 */
export function InteractionFormActions({
  locale,
  uid,
  clientName,
  device,
  submitLabel,
  children,
}: {
  locale: Locale;
  uid: string;
  clientName: string;
  device: boolean;
  submitLabel: string;
  children?: ReactNode;
}) {
  const t = translator(locale);
  return (
    <>
      <button type="submit" className={buttonClasses("primary", "lg", "w-full")}>
        {submitLabel}
      </button>
      {children}
      <button type="submit" formAction={`/interaction/${uid}/abort`} formNoValidate className={buttonClasses("ghost", "md", "w-full", true)}>
        {device ? t("login.cancelDevice") : t("login.cancel", { app: clientName })}
      </button>
    </>
  );
}
