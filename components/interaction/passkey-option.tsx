import { buttonClasses } from "@/components/ui/button";
import { Icon } from "@/components/ui/icon";
import { translator, type Locale } from "@/lib/i18n";

/** The one script of the hosted pages (built from scripts/hosted/passkey.ts by `npm run hosted:script`). */
export const PASSKEY_SCRIPT_PATH = "/hosted/passkey.js";

/**
 * "Sign in with a passkey": progressive enhancement. The block is `hidden` in the HTML,
 * so without JavaScript the page is the password (or code) form alone; the page's script
 * (PASSKEY_SCRIPT_PATH) shows it where the browser has WebAuthn, asks
 * /interaction/:uid/passkey-options for a challenge, and posts the browser's answer to
 * /interaction/:uid/passkey as a form, which finishes the sign-in like the password form. Its
 * words come from here (the page's language); the script holds none.
 */
export function PasskeyOption({ locale, uid, label, autofill }: { locale: Locale; uid: string; label: string; autofill: boolean }) {
  const t = translator(locale);
  return (
    <div
      hidden
      data-passkey=""
      data-options={`/interaction/${uid}/passkey-options`}
      data-action={`/interaction/${uid}/passkey`}
      data-failed={t("passkey.failed")}
      data-autofill={autofill ? "" : undefined}
      className="space-y-3"
    >
      <div className="flex items-center gap-3 text-xs text-slate-500" aria-hidden="true">
        <span className="h-px flex-1 bg-slate-200" />
        {t("login.or")}
        <span className="h-px flex-1 bg-slate-200" />
      </div>
      <button type="button" data-passkey-start="" className={buttonClasses("secondary", "lg", "w-full gap-2", true)}>
        <Icon name="key" className="size-5 shrink-0" />
        {label}
      </button>
      <p data-passkey-status="" role="status" className="text-sm text-red-700" />
    </div>
  );
}

/** The script tag, with this response's CSP nonce (pageContentSecurityPolicy: 'strict-dynamic' admits only it). */
export function PasskeyScript({ nonce }: { nonce: string | undefined }) {
  return <script src={PASSKEY_SCRIPT_PATH} nonce={nonce} defer />;
}
