import type { GetServerSideProps, PageConfig } from "next";
import { z } from "zod";
import { DeviceCodeForm } from "@/components/interaction/device-code-form";
import { DeviceConfirmForm } from "@/components/interaction/device-confirm-form";
import { DeviceResultCard } from "@/components/interaction/device-result-card";
import { ExpiredCard } from "@/components/interaction/expired-card";
import { HostedPage } from "@/components/interaction/hosted-page";
import { SandboxBanner } from "@/components/interaction/sandbox-banner";
import { Rich } from "@/components/interaction/rich";
import { env } from "@/lib/env";
import { hostedPageLocale, type PageLocale } from "@/lib/http/page-locale";
import { template, translator, type Locale } from "@/lib/i18n";
import { CLIENT_IP_HEADER } from "@/lib/http/client-ip";
import { DEVICE_ERRORS, DEVICE_STEPS, DEVICE_XSRF_COOKIE } from "@/lib/oidc/constants";
import { findDeviceRequestViewCounted } from "@/lib/oidc/device-view";
import { findClientName } from "@/lib/oidc/interaction-view";
import { describeRetryWait } from "@/lib/oidc/login-errors";
import { isSandboxClientId } from "@/lib/schemas/sandboxes";

/** Plain HTML forms: no JavaScript (pages/_app.tsx). */
export const config: PageConfig = { unstable_runtimeJS: false };

type Props = PageLocale &
  (
  | { kind: "expired"; restart: string }
  | { kind: "input"; action: string; xsrf: string; userCode: string; error: string | null }
  | { kind: "confirm"; action: string; xsrf: string; userCode: string; clientName: string; ownerHandle: string | null; sandbox: boolean }
  | { kind: "success"; clientName: string | null; sandbox: boolean }
  | { kind: "cancelled" }
  );

/** The page's query, as lib/oidc/device.ts writes it; junk is ignored. */
const querySchema = z.object({
  step: z.enum(DEVICE_STEPS).catch("input"),
  error: z.enum(DEVICE_ERRORS).optional().catch(undefined),
  user_code: z.string().trim().max(32).regex(/^[A-Za-z0-9 -]*$/).optional().catch(undefined),
  client_id: z.string().max(128).optional().catch(undefined),
  retry_at: z.coerce.number().int().positive().optional().catch(undefined),
});

function errorMessage(locale: Locale, error: (typeof DEVICE_ERRORS)[number], retryAt: number | null): string {
  if (error === "too_many_attempts") return describeRetryWait(retryAt, Date.now() / 1000, locale);
  return translator(locale)(`device.error.${error}`);
}

/**
 * Device sign-in (RFC 8628 verification URI), rendered for oidc-provider's `deviceFlow` sources
 * (lib/oidc/device.ts redirects here with `step`). The forms post to oidc-provider's verification
 * endpoint with the CSRF value from the cookie; without it the page has expired (400, as the
 * hosted login page answers), and "Start again" fetches a new one.
 */
export const getServerSideProps: GetServerSideProps<Props> = async ({ query, req, res, resolvedUrl }) => {
  const language = hostedPageLocale(req, res, { url: resolvedUrl });
  const q = querySchema.parse(query);
  const action = `${env().ISSUER}/device`;
  if (q.step === "success") {
    return {
      props: { ...language, kind: "success", clientName: await findClientName(q.client_id), sandbox: isSandboxClientId(q.client_id ?? "") },
    };
  }
  if (q.step === "cancelled") return { props: { ...language, kind: "cancelled" } };
  const xsrf = req.cookies[DEVICE_XSRF_COOKIE];
  if (!xsrf) {
    res.statusCode = 400;
    const restart = new URL(action);
    if (q.user_code) restart.searchParams.set("user_code", q.user_code);
    return { props: { ...language, kind: "expired", restart: restart.href } };
  }
  let throttledUntil: number | null = null;
  if (q.step === "confirm" && q.user_code) {
    // The code comes from the URL, i.e. from whoever sent it: a lookup counts toward the client's
    // user-code limit like a typed code. The client address is the one rule's (server.ts).
    const ipHeader = req.headers[CLIENT_IP_HEADER];
    const counted = await findDeviceRequestViewCounted(q.user_code, (typeof ipHeader === "string" && ipHeader) || "unknown");
    if (!counted.ok) throttledUntil = Math.ceil(counted.retryAt.getTime() / 1000);
    const request = counted.ok ? counted.view : null;
    if (request) {
      return {
        props: {
          ...language,
          kind: "confirm",
          action,
          xsrf,
          userCode: request.userCode,
          clientName: request.client.name,
          ownerHandle: request.client.ownerHandle,
          sandbox: request.client.sandbox,
        },
      };
    }
  }
  const error = throttledUntil !== null ? "too_many_attempts" : q.step === "confirm" ? "not_found" : (q.error ?? null);
  return {
    props: {
      ...language,
      kind: "input",
      action,
      xsrf,
      userCode: q.user_code ?? "",
      error: error ? errorMessage(language.locale, error, throttledUntil ?? q.retry_at ?? null) : null,
    },
  };
};

export default function DevicePage(props: Props) {
  const { locale, path } = props;
  const t = translator(locale);
  switch (props.kind) {
    case "expired":
      return (
        <HostedPage title={t("device.pageTitle.expired")} locale={locale} path={path}>
          <ExpiredCard locale={locale} title={t("device.expired.title")}>
            <Rich
              text={template(locale, "device.expired.text")}
              values={{
                restart: (
                  <a href={props.restart} className="font-medium text-brand-700 underline">
                    {t("device.expired.restart")}
                  </a>
                ),
              }}
            />
          </ExpiredCard>
        </HostedPage>
      );
    case "input":
      return (
        <HostedPage title={t("device.pageTitle.input")} locale={locale} path={path}>
          <DeviceCodeForm locale={locale} action={props.action} xsrf={props.xsrf} userCode={props.userCode} error={props.error} />
        </HostedPage>
      );
    case "confirm":
      return (
        <HostedPage title={t("device.pageTitle.confirm")} locale={locale} path={path}>
          {props.sandbox ? <SandboxBanner locale={locale} /> : null}
          <DeviceConfirmForm
            locale={locale}
            action={props.action}
            xsrf={props.xsrf}
            userCode={props.userCode}
            clientName={props.clientName}
            ownerHandle={props.ownerHandle}
          />
        </HostedPage>
      );
    case "success":
      return (
        <HostedPage title={t("device.pageTitle.success")} locale={locale} path={path}>
          {props.sandbox ? <SandboxBanner locale={locale} /> : null}
          <DeviceResultCard locale={locale} outcome="success" clientName={props.clientName} />
        </HostedPage>
      );
    case "cancelled":
      return (
        <HostedPage title={t("device.pageTitle.cancelled")} locale={locale} path={path}>
          <DeviceResultCard locale={locale} outcome="cancelled" clientName={null} />
        </HostedPage>
      );
  }
}
