import type { GetServerSideProps, PageConfig } from "next";
import { ExpiredCard } from "@/components/interaction/expired-card";
import { HostedPage } from "@/components/interaction/hosted-page";
import { InteractionCard } from "@/components/interaction/interaction-card";
import { buttonClasses } from "@/components/ui/button";
import { Icon } from "@/components/ui/icon";
import { env } from "@/lib/env";
import { LOGOUT_XSRF_COOKIE } from "@/lib/oidc/constants";
import { findClientName } from "@/lib/oidc/interaction-view";

/** A plain HTML form: no JavaScript (pages/_app.tsx). */
export const config: PageConfig = { unstable_runtimeJS: false };

type Props = { kind: "expired" } | { kind: "confirm"; xsrf: string; action: string; clientName: string | null };

/**
 * Logout confirmation (RP-initiated logout). The form posts to oidc-provider's end-session confirm
 * endpoint with its CSRF value; "Sign out" ends the platform session (logout=yes), the other button
 * only signs out of the app that asked. Without the CSRF cookie the request has expired: 400, as
 * for an expired sign-in (pages/interaction/[uid].tsx).
 */
export const getServerSideProps: GetServerSideProps<Props> = async ({ query, req, res }) => {
  const xsrf = req.cookies[LOGOUT_XSRF_COOKIE];
  if (!xsrf) {
    res.statusCode = 400;
    return { props: { kind: "expired" } };
  }
  const clientName = await findClientName(typeof query.client_id === "string" ? query.client_id : undefined);
  return {
    props: { kind: "confirm", xsrf, action: `${env().ISSUER}/protocol/openid-connect/logout/confirm`, clientName },
  };
};

export default function LogoutPage(props: Props) {
  if (props.kind === "expired") {
    return (
      <HostedPage title="Sign-out expired">
        <ExpiredCard title="This sign-out request has expired">Go back to the app you came from and sign out again.</ExpiredCard>
      </HostedPage>
    );
  }
  const { xsrf, action, clientName } = props;
  return (
    <HostedPage title="Sign out">
      <InteractionCard labelledBy="logout-title">
        <div className="flex size-12 items-center justify-center rounded-xl bg-brand-600 text-white">
          <Icon name="logout" className="size-6" />
        </div>
        <h1 id="logout-title" className="mt-6 text-2xl font-semibold tracking-tight">
          Sign out of the platform?
        </h1>
        <p className="mt-2 text-sm text-slate-600">
          {clientName ? (
            <>
              <strong className="font-semibold text-slate-900">{clientName}</strong> asked to sign you out.{" "}
            </>
          ) : null}
          Signing out ends your platform session: every app you signed in to here will ask you to sign in again.
        </p>
        <form method="post" action={action} className="mt-6 flex flex-col gap-3">
          <input type="hidden" name="xsrf" value={xsrf} />
          <button type="submit" name="logout" value="yes" autoFocus className={buttonClasses("primary", "lg", "w-full")}>
            Sign out
          </button>
          <button type="submit" className={buttonClasses("secondary", "lg", "w-full", true)}>
            {clientName ? `Only sign out of ${clientName}` : "Stay signed in to the platform"}
          </button>
        </form>
      </InteractionCard>
    </HostedPage>
  );
}
