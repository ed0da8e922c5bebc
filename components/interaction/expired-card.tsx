import Link from "next/link";
import { Icon } from "@/components/ui/icon";
import { translator, type Locale } from "@/lib/i18n";
import { InteractionCard } from "./interaction-card";

/** Shown when the interaction is unknown, finished or expired (or its cookie is missing). */
export function ExpiredCard({ locale = "en", title, children }: { locale?: Locale; title?: string; children?: React.ReactNode }) {
  const t = translator(locale);
  return (
    <InteractionCard labelledBy="expired-title">
      <div className="flex size-12 items-center justify-center rounded-xl bg-amber-100 text-amber-700">
        <Icon name="clock" className="size-6" />
      </div>
      <h1 id="expired-title" className="mt-6 text-2xl font-semibold tracking-tight">
        {title ?? t("expired.title")}
      </h1>
      <p className="mt-2 text-sm text-slate-600">
        {children ?? t("expired.text")}
      </p>
      <Link href="/" className="mt-6 inline-flex text-sm font-medium text-brand-700 hover:underline">
        {t("expired.home")}
      </Link>
    </InteractionCard>
  );
}
