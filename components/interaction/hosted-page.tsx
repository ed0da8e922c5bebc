import Head from "next/head";
import type { ReactNode } from "react";
import { LOCALE_NAMES, LOCALE_QUERY, LOCALES, translator, type Locale } from "@/lib/i18n";

/**
 * The <head> elements of a hosted page. Next places them through next/head; the server's fast path
 * for the login and consent page (lib/server/hosted-page.ts) writes the same ones into its shell.
 */
export function hostedPageHead(title: string) {
  return [
    <title key="title">{`${title} · Platform`}</title>,
    <meta key="viewport" name="viewport" content="width=device-width, initial-scale=1" />,
    <meta key="theme-color" name="theme-color" content="#0b1020" />,
    // Hosted sign-in pages are never worth indexing, and must not be framed (proxy.ts sets DENY).
    <meta key="robots" name="robots" content="noindex, nofollow" />,
    <link key="icon" rel="icon" href="/favicon.svg" type="image/svg+xml" />,
  ];
}

/**
 * The frame of every hosted sign-in page (login, consent, logout, signed out): the platform's own
 * look, a centered card on the slate background, independent of the portal's header so third-party
 * users are not confused. The pages are rendered by the Pages Router without any JavaScript
 * (pages/interaction, `unstable_runtimeJS: false`), so this frame is plain HTML and CSS.
 */
export function HostedPage({
  title,
  children,
  locale = "en",
  path,
}: {
  title: string;
  children: ReactNode;
  /** The page's language (lib/i18n: the switch, ui_locales, Accept-Language). */
  locale?: Locale;
  /** This page's path and query without `lang`: the language switch links to it. None: no switch. */
  path?: string;
}) {
  const t = translator(locale);
  return (
    <>
      <Head>{hostedPageHead(title)}</Head>
      <a
        href="#main"
        className="sr-only z-50 rounded-md bg-white px-4 py-2 text-sm font-medium text-slate-900 shadow focus:not-sr-only focus:fixed focus:top-3 focus:left-3"
      >
        {t("hosted.skip")}
      </a>
      <main id="main" className="relative flex min-h-screen flex-col items-center overflow-hidden px-4 py-12 sm:py-20">
        <div
          aria-hidden="true"
          className="absolute inset-x-0 top-0 h-72 bg-gradient-to-b from-brand-100/70 via-brand-50/40 to-transparent"
        />
        <div className="relative flex w-full max-w-md min-w-0 flex-col items-center">
          <div className="mb-8 flex items-center gap-2.5 font-semibold tracking-tight text-slate-900">
            <svg viewBox="0 0 32 32" className="size-8" aria-hidden="true">
              <rect width="32" height="32" rx="8" fill="#4f46e5" />
              <path d="M9 11.5 16 7l7 4.5v9L16 25l-7-4.5z" fill="none" stroke="#fff" strokeWidth="2.4" strokeLinejoin="round" />
              <circle cx="16" cy="16" r="2.6" fill="#fff" />
            </svg>
            <span className="text-lg">Platform</span>
          </div>
          {children}
          <p className="mt-8 text-center text-xs text-slate-500">{t("hosted.passwordNote")}</p>
          {path ? <LanguageSwitch locale={locale} path={path} label={t("hosted.language")} /> : null}
        </div>
      </main>
    </>
  );
}

/**
 * Links to this same page in each language: plain links, so the switch works without
 * JavaScript and keeps the interaction (same path, same query). The chosen language is remembered
 * in a cookie by the page that answers the link.
 */
function LanguageSwitch({ locale, path, label }: { locale: Locale; path: string; label: string }) {
  const separator = path.includes("?") ? "&" : "?";
  return (
    <nav aria-label={label} className="mt-4">
      <ul className="flex flex-wrap justify-center gap-x-1 gap-y-1 text-xs">
        {LOCALES.map((code) => (
          <li key={code}>
            <a
              href={`${path}${separator}${LOCALE_QUERY}=${code}`}
              hrefLang={code}
              lang={code}
              aria-current={code === locale ? "true" : undefined}
              className={`inline-flex min-h-6 items-center rounded px-2 ${code === locale ? "font-semibold text-slate-900" : "text-brand-700 hover:underline"}`}
            >
              {LOCALE_NAMES[code]}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
