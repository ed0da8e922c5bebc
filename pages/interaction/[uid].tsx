import type { GetServerSideProps, PageConfig } from "next";
import { InteractionPage } from "@/components/interaction/interaction-page";
import { INTERACTION_COOKIE, LOGIN_USERNAME_COOKIE } from "@/lib/oidc/constants";
import { EXPIRED_INTERACTION_STATUS, findInteractionPageProps } from "@/lib/oidc/interaction-page";
import type { InteractionPageProps } from "@/lib/schemas/interaction-page";

/** Plain HTML forms: no React runtime, no hydration, nothing to download but the stylesheet. */
export const config: PageConfig = { unstable_runtimeJS: false };

/**
 * Hosted login and consent (STYLE: render only). What it shows is decided by
 * lib/oidc/interaction-page.ts; the form posts go to server.ts. In production the server answers
 * the plain GET of this page itself (lib/server/hosted-page.ts, issue 24) with the same
 * components; this route answers everything else (other query parameters, HEAD, expired
 * interactions, `next dev`).
 */
export const getServerSideProps: GetServerSideProps<InteractionPageProps, { uid: string }> = async ({ params, query, req, res }) => {
  const props = await findInteractionPageProps({
    uid: params?.uid ?? "",
    interactionCookie: req.cookies[INTERACTION_COOKIE],
    usernameCookie: req.cookies[LOGIN_USERNAME_COOKIE],
    query,
  });
  if (props.kind === "expired") res.statusCode = EXPIRED_INTERACTION_STATUS;
  return { props };
};

export default InteractionPage;
