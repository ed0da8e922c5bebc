import { Alert } from "@/components/ui/alert";
import { translator, type Locale } from "@/lib/i18n";

/**
 * Over every hosted page of a sandbox client (`sbx_…`: login, consent, device), so
 * nobody mistakes the app's test environment for the real thing, nor types a real password there.
 */
export function SandboxBanner({ locale = "en" }: { locale?: Locale }) {
  const t = translator(locale);
  return (
    <div className="mb-4 w-full" data-sandbox-banner="">
      <Alert tone="warning" title={t("sandbox.title")}>
        {t("sandbox.text")}
      </Alert>
    </div>
  );
}
