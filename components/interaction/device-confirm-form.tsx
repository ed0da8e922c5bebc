import { buttonClasses } from "@/components/ui/button";
import { Icon } from "@/components/ui/icon";
import { template, translator, type Locale } from "@/lib/i18n";
import { Rich } from "./rich";
import { InteractionCard } from "./interaction-card";

/**
 * Device sign-in, step 2 (RFC 8628 §5.4, remote phishing): the app and the code, to compare with
 * the device before anything else happens. "Continue" goes on to the usual login and consent pages;
 * "Cancel" refuses the device (it then gets access_denied). Posts to oidc-provider with its CSRF value.
 */
export function DeviceConfirmForm({
  locale = "en",
  action,
  xsrf,
  userCode,
  clientName,
  ownerHandle,
}: {
  locale?: Locale;
  action: string;
  xsrf: string;
  userCode: string;
  clientName: string;
  ownerHandle: string | null;
}) {
  const t = translator(locale);
  const app = <strong className="font-semibold text-slate-900">{clientName}</strong>;
  return (
    <InteractionCard labelledBy="device-confirm-title">
      <div className="flex size-12 items-center justify-center rounded-xl bg-brand-600 text-white">
        <Icon name="shield" className="size-6" />
      </div>
      <h1 id="device-confirm-title" className="mt-6 text-2xl font-semibold tracking-tight">
        {t("device.confirm.title")}
      </h1>
      <p className="mt-2 text-sm text-slate-600">
        {ownerHandle ? (
          <Rich
            text={template(locale, "device.confirm.asksWithOwner")}
            values={{ app, owner: <strong className="font-semibold text-slate-900">@{ownerHandle}</strong> }}
          />
        ) : (
          <Rich text={template(locale, "device.confirm.asks")} values={{ app }} />
        )}
      </p>
      <p
        className="mt-4 rounded-xl bg-slate-50 px-4 py-3 text-center font-mono text-2xl font-semibold tracking-[0.2em] text-slate-900 ring-1 ring-inset ring-slate-200"
        aria-label={t("device.confirm.codeLabel", { code: userCode.split("").join(" ") })}
      >
        {userCode}
      </p>
      <p className="mt-4 text-xs text-slate-600">{t("device.confirm.warning")}</p>
      <form method="post" action={action} className="mt-6 flex flex-col-reverse gap-3 sm:flex-row">
        <input type="hidden" name="xsrf" value={xsrf} />
        <input type="hidden" name="user_code" value={userCode} />
        <input type="hidden" name="confirm" value="yes" />
        <button type="submit" name="abort" value="yes" className={buttonClasses("secondary", "lg", "w-full sm:w-auto sm:flex-1")}>
          {t("device.cancel")}
        </button>
        <button type="submit" autoFocus className={buttonClasses("primary", "lg", "w-full sm:w-auto sm:flex-1")}>
          {t("device.continue")}
        </button>
      </form>
    </InteractionCard>
  );
}
