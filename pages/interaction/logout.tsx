import type { GetServerSideProps, PageConfig } from "next";
import { ExpiredCard } from "@/components/interaction/expired-card";
import { HostedPage } from "@/components/interaction/hosted-page";
import { InteractionCard } from "@/components/interaction/interaction-card";
import { Rich } from "@/components/interaction/rich";
import { buttonClasses } from "@/components/ui/button";
import { Icon } from "@/components/ui/icon";
import { env } from "@/lib/env";
import { hostedPageLocale, type PageLocale } from "@/lib/http/page-locale";
import { template, translator } from "@/lib/i18n";
import { LOGOUT_XSRF_COOKIE } from "@/lib/oidc/constants";
import { findClientName } from "@/lib/oidc/interaction-view";

/** A plain HTML form: no JavaScript (pages/_app.tsx). */
export const config: PageConfig = { unstable_runtimeJS: false };

type Props = PageLocale & ({ kind: "expired" } | { kind: "confirm"; xsrf: string; action: string; clientName: string | null });

/**
 * Logout confirmation (RP-initiated logout). The form posts to oidc-provider's end-session confirm
 * endpoint with its CSRF value; "Sign out" ends the platform session (logout=yes), the other button
 * only signs out of the app that asked. Without the CSRF cookie the request has expired: 400, as
 * for an expired sign-in (pages/interaction/[uid].tsx).
 */
export const getServerSideProps: GetServerSideProps<Props> = async ({ query, req, res, resolvedUrl }) => {
  const language = hostedPageLocale(req, res, { url: resolvedUrl });
  const xsrf = req.cookies[LOGOUT_XSRF_COOKIE];
  if (!xsrf) {
    res.statusCode = 400;
    return { props: { ...language, kind: "expired" } };
  }
  const clientName = await findClientName(typeof query.client_id === "string" ? query.client_id : undefined);
  return {
    props: { ...language, kind: "confirm", xsrf, action: `${env().ISSUER}/protocol/openid-connect/logout/confirm`, clientName },
  };
};

export default function LogoutPage(props: Props) {
  const { locale, path } = props;
  const t = translator(locale);
  if (props.kind === "expired") {
    return (
      <HostedPage title={t("logout.expiredPageTitle")} locale={locale} path={path}>
        <ExpiredCard locale={locale} title={t("logout.expiredTitle")}>
          {t("logout.expiredText")}
        </ExpiredCard>
      </HostedPage>
    );
  }
  const { xsrf, action, clientName } = props;
  return (
    <HostedPage title={t("logout.pageTitle")} locale={locale} path={path}>
      <InteractionCard labelledBy="logout-title">
        <div className="flex size-12 items-center justify-center rounded-xl bg-brand-600 text-white">
          <Icon name="logout" className="size-6" />
        </div>
        <h1 id="logout-title" className="mt-6 text-2xl font-semibold tracking-tight">
          {t("logout.title")}
        </h1>
        <p className="mt-2 text-sm text-slate-600">
          {clientName ? (
            <>
              <Rich
                text={template(locale, "logout.askedBy")}
                values={{ app: <strong className="font-semibold text-slate-900">{clientName}</strong> }}
              />{" "}
            </>
          ) : null}
          {t("logout.text")}
        </p>
        <form method="post" action={action} className="mt-6 flex flex-col gap-3">
          <input type="hidden" name="xsrf" value={xsrf} />
          <button type="submit" name="logout" value="yes" autoFocus className={buttonClasses("primary", "lg", "w-full")}>
            {t("logout.submit")}
          </button>
          <button type="submit" className={buttonClasses("secondary", "lg", "w-full", true)}>
            {clientName ? t("logout.onlyApp", { app: clientName }) : t("logout.stay")}
          </button>
        </form>
      </InteractionCard>
    </HostedPage>
  );
}
