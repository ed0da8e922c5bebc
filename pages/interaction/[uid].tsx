import type { GetServerSideProps, PageConfig } from "next";
import { z } from "zod";
import type { AppIdentityData } from "@/lib/schemas/apps";
import { ConsentForm } from "@/components/interaction/consent-form";
import { ExpiredCard } from "@/components/interaction/expired-card";
import { HostedPage } from "@/components/interaction/hosted-page";
import { LoginForm } from "@/components/interaction/login-form";
import { INTERACTION_COOKIE, LOGIN_USERNAME_COOKIE } from "@/lib/oidc/constants";
import { findInteractionView } from "@/lib/oidc/interaction-view";
import { isLoginError, loginErrorMessage } from "@/lib/oidc/login-errors";

/** Plain HTML forms: no React runtime, no hydration, nothing to download but the stylesheet. */
export const config: PageConfig = { unstable_runtimeJS: false };

type Props =
  | { kind: "expired" }
  | { kind: "login"; uid: string; clientName: string; username: string; error: { code: string; message: string } | null }
  | {
      kind: "consent";
      uid: string;
      clientName: string;
      ownerHandle: string | null;
      account: { handle: string; displayName: string } | null;
      scopes: { scope: string; description: string }[];
      identity: AppIdentityData;
      consentKind: "first" | "more" | "again";
      added: string[];
    };

/** The page's query, as lib/oidc/interactions.ts writes it after a refused sign-in. */
const querySchema = z.object({
  error: z.string().optional().catch(undefined),
  retry_at: z.coerce.number().int().positive().optional().catch(undefined),
});

/**
 * An interaction that is unknown, finished, expired, or not this browser's answers 400, as
 * oidc-provider answers its own `session_not_found` and as this page's form posts do
 * (lib/oidc/interactions.ts): the request cannot be carried out, and a retry will not help. Not
 * 404 or 410: without this browser's cookie we do not say whether the interaction exists.
 */
const EXPIRED_STATUS = 400;

/**
 * Hosted login and consent (STYLE: render only). The interaction is looked up read-only by uid; its
 * details are shown only to the browser holding its cookie. The form posts go to server.ts.
 */
export const getServerSideProps: GetServerSideProps<Props, { uid: string }> = async ({ params, query, req, res }) => {
  const uid = params?.uid ?? "";
  const expired = () => {
    res.statusCode = EXPIRED_STATUS;
    return { props: { kind: "expired" as const } };
  };
  if (req.cookies[INTERACTION_COOKIE] !== uid) return expired();
  const view = await findInteractionView(uid);
  if (!view) return expired();
  if (view.prompt === "consent" && !view.consent) return expired();
  if (view.prompt === "login") {
    const { error, retry_at: retryAt } = querySchema.parse(query);
    const code = isLoginError(error) ? error : null;
    return {
      props: {
        kind: "login",
        uid,
        clientName: view.client.name,
        username: (req.cookies[LOGIN_USERNAME_COOKIE] ?? "").slice(0, 100),
        error: error
          ? {
              code: code ?? "unknown",
              message: code ? loginErrorMessage(code, retryAt ?? null, Date.now() / 1000) : "Sign-in failed. Try again.",
            }
          : null,
      },
    };
  }
  return {
    props: {
      kind: "consent",
      uid,
      clientName: view.client.name,
      ownerHandle: view.client.ownerHandle,
      account: view.account,
      scopes: view.scopes,
      identity: view.consent!.identity,
      consentKind: view.consent!.kind,
      added: view.consent!.added,
    },
  };
};

export default function InteractionPage(props: Props) {
  if (props.kind === "expired") {
    return (
      <HostedPage title="Sign-in expired">
        <ExpiredCard />
      </HostedPage>
    );
  }
  if (props.kind === "login") {
    return (
      <HostedPage title="Sign in">
        <LoginForm uid={props.uid} clientName={props.clientName} username={props.username} error={props.error} />
      </HostedPage>
    );
  }
  return (
    <HostedPage title={`Allow ${props.clientName}?`}>
      <ConsentForm
        uid={props.uid}
        clientName={props.clientName}
        ownerHandle={props.ownerHandle}
        account={props.account}
        scopes={props.scopes}
        identity={props.identity}
        kind={props.consentKind}
        added={props.added}
      />
    </HostedPage>
  );
}
