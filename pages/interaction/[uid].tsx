import type { GetServerSideProps, PageConfig } from "next";
import { InteractionPage } from "@/components/interaction/interaction-page";
import { rememberLocale } from "@/lib/http/page-locale";
import { LOCALE_COOKIE, LOCALE_QUERY } from "@/lib/i18n";
import { INTERACTION_COOKIE, LOGIN_USERNAME_COOKIE } from "@/lib/oidc/constants";
import { EXPIRED_INTERACTION_STATUS, findInteractionPageProps } from "@/lib/oidc/interaction-page";
import type { InteractionPageProps } from "@/lib/schemas/interaction-page";

/**
 * Plain HTML forms: no React runtime, no hydration. The login and second-factor pages load one small
 * script of their own for passkeys (components/interaction/passkey-option.tsx), nothing else.
 */
export const config: PageConfig = { unstable_runtimeJS: false };

/**
 * Hosted login and consent (STYLE: render only). What it shows is decided by
 * lib/oidc/interaction-page.ts; the form posts go to server.ts. In production the server answers
 * the plain GET of this page itself (lib/server/hosted-page.ts) with the same
 * components; this route answers everything else (other query parameters, HEAD, expired
 * interactions, `next dev`).
 */
export const getServerSideProps: GetServerSideProps<InteractionPageProps & { nonce?: string }, { uid: string }> = async ({ params, query, req, res }) => {
  const props = await findInteractionPageProps({
    uid: params?.uid ?? "",
    interactionCookie: req.cookies[INTERACTION_COOKIE],
    usernameCookie: req.cookies[LOGIN_USERNAME_COOKIE],
    query,
    localeCookie: req.cookies[LOCALE_COOKIE],
    acceptLanguage: req.headers["accept-language"],
  });
  // The language switch's choice is remembered for the next hosted pages.
  if (query[LOCALE_QUERY] === props.locale) rememberLocale(res, props.locale);
  if (props.kind === "expired") res.statusCode = EXPIRED_INTERACTION_STATUS;
  // The passkey script's CSP nonce (proxy.ts makes one per request).
  const nonce = req.headers["x-nonce"];
  return { props: typeof nonce === "string" ? { ...props, nonce } : props };
};

export default InteractionPage;
