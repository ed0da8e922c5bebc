import Link from "next/link";
import type { GetServerSideProps, PageConfig } from "next";
import { HostedPage } from "@/components/interaction/hosted-page";
import { InteractionCard } from "@/components/interaction/interaction-card";
import { Icon } from "@/components/ui/icon";
import { translator } from "@/lib/i18n";
import { hostedPageLocale, type PageLocale } from "@/lib/http/page-locale";

/** Plain HTML, no JavaScript (pages/_app.tsx). */
export const config: PageConfig = { unstable_runtimeJS: false };

/** Rendered per request for its language. */
export const getServerSideProps: GetServerSideProps<PageLocale> = async ({ req, res, resolvedUrl }) => ({
  props: hostedPageLocale(req, res, { url: resolvedUrl }),
});

/** Where end-session lands when the app gave no post_logout_redirect_uri. */
export default function SignedOutPage({ locale, path }: PageLocale) {
  const t = translator(locale);
  return (
    <HostedPage title={t("signedOut.pageTitle")} locale={locale} path={path}>
      <InteractionCard labelledBy="signed-out-title">
        <div className="flex size-12 items-center justify-center rounded-xl bg-emerald-100 text-emerald-700">
          <Icon name="check" className="size-6" />
        </div>
        <h1 id="signed-out-title" className="mt-6 text-2xl font-semibold tracking-tight">
          {t("signedOut.title")}
        </h1>
        <p className="mt-2 text-sm text-slate-600">{t("signedOut.text")}</p>
        <Link href="/" className="mt-6 inline-flex text-sm font-medium text-brand-700 hover:underline">
          {t("expired.home")}
        </Link>
      </InteractionCard>
    </HostedPage>
  );
}
