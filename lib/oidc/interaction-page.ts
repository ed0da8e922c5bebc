import { z } from "zod";
import type { InteractionPageProps } from "../schemas/interaction-page";
import { findInteractionView } from "./interaction-view";
import { isLoginError, loginErrorMessage } from "./login-errors";
import { negotiateLocale, scopeDescription, translator } from "../i18n";

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
export const EXPIRED_INTERACTION_STATUS = 400;

export interface InteractionPageRequest {
  uid: string;
  /** The interaction cookie's value (INTERACTION_COOKIE), as the browser sent it. */
  interactionCookie: string | undefined;
  /** The refused sign-in's username (LOGIN_USERNAME_COOKIE), decoded. */
  usernameCookie: string | undefined;
  query: Record<string, unknown>;
  /** The page's language: LOCALE_COOKIE's value and the request's Accept-Language. */
  localeCookie?: string | undefined;
  acceptLanguage?: string | undefined;
}

/** The page's own path for the language switch: its uid and the refusal it shows, nothing else. */
function pagePath(uid: string, query: { error?: string; retry_at?: number }): string {
  const search = new URLSearchParams();
  if (query.error) search.set("error", query.error);
  if (query.retry_at) search.set("retry_at", String(query.retry_at));
  const rest = search.toString();
  return `/interaction/${encodeURIComponent(uid)}${rest ? `?${rest}` : ""}`;
}

/**
 * What `/interaction/:uid` shows (STYLE: the page only renders): the interaction is looked up
 * read-only by uid, and its details are shown only to the browser holding its cookie. Shared by
 * pages/interaction/[uid].tsx (Next) and the server's fast path (lib/server/hosted-page.ts).
 */
export async function findInteractionPageProps(request: InteractionPageRequest): Promise<InteractionPageProps> {
  const { uid } = request;
  const query = querySchema.parse(request.query);
  const language = (uiLocales?: string) => ({
    locale: negotiateLocale({ switched: request.query.lang, cookie: request.localeCookie, uiLocales, acceptLanguage: request.acceptLanguage }),
    path: pagePath(uid, query),
  });
  const expired = { ...language(), kind: "expired" } as const;
  if (request.interactionCookie !== uid) return expired;
  const view = await findInteractionView(uid);
  if (!view) return expired;
  if (view.prompt === "consent" && !view.consent) return expired;
  const { locale, path } = language(view.uiLocales);
  if (view.prompt === "login") {
    const { error, retry_at: retryAt } = query;
    const code = isLoginError(error) ? error : null;
    const message = error
      ? {
          code: code ?? "unknown",
          message: code ? loginErrorMessage(code, retryAt ?? null, Date.now() / 1000, locale) : translator(locale)("login.error.unknown"),
        }
      : null;
    if (view.secondFactor) {
      return {
        locale,
        path,
        kind: "second_factor",
        uid,
        clientName: view.client.name,
        sandbox: view.client.sandbox,
        device: view.device,
        handle: view.secondFactor.handle,
        stepUp: view.secondFactor.stepUp,
        passkey: view.secondFactor.passkey,
        totp: view.secondFactor.totp,
        error: message,
      };
    }
    return {
      locale,
      path,
      kind: "login",
      uid,
      clientName: view.client.name,
      sandbox: view.client.sandbox,
      device: view.device,
      username: (request.usernameCookie ?? "").slice(0, 100),
      // Passkeys belong to live accounts: a sandbox's test users have none.
      passkey: !view.client.sandbox,
      error: message,
    };
  }
  return {
    locale,
    path,
    kind: "consent",
    uid,
    clientName: view.client.name,
    sandbox: view.client.sandbox,
    ownerHandle: view.client.ownerHandle,
    account: view.account,
    scopes: view.scopes.map((s) => ({ scope: s.scope, description: scopeDescription(locale, s.scope, s.description) })),
    identity: view.consent!.identity,
    agent: view.client.agent ? { clientId: view.client.clientId, ...view.client.agent } : null,
    consentKind: view.consent!.kind,
    added: view.consent!.added,
  };
}
