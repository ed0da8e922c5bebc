import { Icon } from "@/components/ui/icon";
import { template, translator, type Locale } from "@/lib/i18n";
import { Rich } from "./rich";
import { InteractionCard } from "./interaction-card";

/** Device sign-in, the end: signed in (the device picks its tokens up) or cancelled (it gets access_denied). */
export function DeviceResultCard({
  locale = "en",
  outcome,
  clientName,
}: {
  locale?: Locale;
  outcome: "success" | "cancelled";
  clientName: string | null;
}) {
  const t = translator(locale);
  const success = outcome === "success";
  return (
    <InteractionCard labelledBy="device-result-title">
      <div
        className={`flex size-12 items-center justify-center rounded-xl ${success ? "bg-emerald-100 text-emerald-700" : "bg-slate-100 text-slate-700"}`}
      >
        <Icon name={success ? "check" : "x"} className="size-6" />
      </div>
      <h1 id="device-result-title" className="mt-6 text-2xl font-semibold tracking-tight">
        {success ? t("device.success.title") : t("device.cancelled.title")}
      </h1>
      <p className="mt-2 text-sm text-slate-600">
        {success ? t("device.success.text", { app: clientName ?? t("device.success.theApp") }) : t("device.cancelled.text")}
      </p>
      {success ? (
        <p className="mt-4 text-xs text-slate-500">
          <Rich
            text={template(locale, "device.success.revoke")}
            values={{
              link: (
                <a href="/account/apps" className="font-medium text-brand-700 underline underline-offset-2 hover:text-brand-800">
                  {t("consent.connectedApps")}
                </a>
              ),
            }}
          />
        </p>
      ) : null}
    </InteractionCard>
  );
}
