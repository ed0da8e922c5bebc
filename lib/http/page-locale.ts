import type { IncomingMessage, ServerResponse } from "node:http";
import { env } from "../env";
import { LOCALE_COOKIE, LOCALE_QUERY, localeCookie, negotiateLocale, pathWithoutLocale, type Locale } from "../i18n";

export interface PageLocale {
  locale: Locale;
  /** The page's path and query without `lang`, for the language switch. */
  path: string;
}

/**
 * A hosted page's language (lib/i18n), for the Pages Router's getServerSideProps and
 * oidc-provider's pages: the switch's `?lang=` (then remembered in a cookie), the cookie, the app's
 * `ui_locales`, `Accept-Language`.
 */
export function hostedPageLocale(
  req: IncomingMessage & { cookies?: Partial<Record<string, string>> },
  res: ServerResponse | null,
  options: { uiLocales?: unknown; url?: string } = {},
): PageLocale {
  const url = options.url ?? req.url ?? "/";
  const switched = new URL(url, "http://localhost").searchParams.get(LOCALE_QUERY);
  const locale = negotiateLocale({
    switched,
    cookie: req.cookies?.[LOCALE_COOKIE] ?? readCookie(req.headers.cookie, LOCALE_COOKIE),
    uiLocales: options.uiLocales,
    acceptLanguage: req.headers["accept-language"],
  });
  if (res && switched === locale) rememberLocale(res, locale);
  return { locale, path: pathWithoutLocale(url) };
}

/** Remembers a language chosen on the switch for the next hosted pages (LOCALE_COOKIE). */
export function rememberLocale(res: ServerResponse, locale: Locale): void {
  res.appendHeader("set-cookie", localeCookie(locale, env().APP_URL.startsWith("https:")));
}

function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const [key, ...value] = part.split("=");
    if (key?.trim() === name) return value.join("=").trim();
  }
  return undefined;
}
