import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { getCookieParser } from "next/dist/server/api-utils/get-cookie-parser";
import { cloneElement, createElement, Fragment, type ReactElement } from "react";
import { renderToStaticMarkup, renderToString } from "react-dom/server";
import { InteractionPage, interactionPageTitle } from "../../components/interaction/interaction-page";
import { hostedPageHead } from "../../components/interaction/hosted-page";
import { pageContentSecurityPolicy, securityHeaders } from "../http/security-headers";
import { LOCALE_COOKIE, type Locale } from "../i18n";
import { INTERACTION_COOKIE, LOGIN_USERNAME_COOKIE } from "../oidc/constants";
import { findInteractionPageProps } from "../oidc/interaction-page";

/**
 * The hosted login and consent page's fast path (sign-in flow bench case F). Next's
 * Pages Router spent ~18 ms of the event loop on each GET of `/interaction/:uid` (routing, proxy.ts,
 * the document, gzip) for a page without any JavaScript: about a third of a login's non-hash CPU.
 * The server renders the same page itself: the same data (lib/oidc/interaction-page.ts, which
 * pages/interaction/[uid].tsx uses too), the same components through react-dom/server, in the same
 * document as pages/_document.tsx (its <html> and <body> attributes below, the stylesheet Next's
 * build links), with the same CSP and security headers as proxy.ts gives Next's pages.
 *
 * Exact happy shapes only, as the token endpoint's fast paths (STYLE: Request path, OIDC request):
 * a GET whose query has at most the page's own `error` and `retry_at`, from the browser holding the
 * interaction's cookie, for an interaction showing its login or consent form. Everything else
 * (HEAD, other parameters, an expired or foreign interaction and its 400 page) is left to Next,
 * which answers it as before. Which path answered is counted (lib/metrics.ts), for the tests.
 */
export interface HostedPageFastPath {
  /** True when the page was answered here; false leaves the request untouched for Next. */
  serve(req: IncomingMessage, res: ServerResponse, uid: string, search: string): Promise<boolean>;
  /** Whether `/interaction/<segment>` is the login and consent page (not one of the static pages beside it). */
  isInteractionPage(segment: string): boolean;
}

/** pages/_document.tsx's <html> (with the page's language) and <body> attributes. */
const htmlOpen = (locale: Locale) => `<!DOCTYPE html><html lang="${locale}" class="hosted bg-slate-50">`;
const BODY_OPEN = '<body class="min-h-screen bg-slate-50 font-sans text-slate-900 antialiased"><div id="__next">';
const PAGE_QUERY = new Set(["error", "retry_at"]);

/** The headers Next sends with a getServerSideProps page (besides proxy.ts's security headers). */
const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "private, no-cache, no-store, max-age=0, must-revalidate",
};

/**
 * The stylesheets Next links into the page: the CSS files of `_app` and of the page in the build
 * manifest (next/dist/pages/_document.js getDocumentFiles), read once at start-up.
 */
function readStylesheets(distDir: string): string[] {
  const manifest = JSON.parse(readFileSync(path.join(distDir, "build-manifest.json"), "utf8")) as { pages?: Record<string, string[]> };
  const files = [...(manifest.pages?.["/_app"] ?? []), ...(manifest.pages?.["/interaction/[uid]"] ?? [])];
  const css = [...new Set(files.filter((file) => file.endsWith(".css")))];
  if (!css.length) throw new Error(`${distDir}/build-manifest.json names no stylesheet for /interaction/[uid]: run next build again`);
  // Build output names: nothing to escape in an attribute, which is checked once here.
  const hrefs = css.map((file) => `/_next/${file}`);
  if (hrefs.some((href) => /["<>&\s]/.test(href))) throw new Error(`${distDir}/build-manifest.json: unexpected stylesheet name`);
  return hrefs;
}

/** The routes beside `/interaction/[uid]` (logout, signed-out, device…): Next's own, not ours. */
function readSiblingRoutes(distDir: string): Set<string> {
  const routes = new Set<string>();
  const read = (file: string): string[] => {
    try {
      return Object.keys(JSON.parse(readFileSync(path.join(distDir, file), "utf8")) as Record<string, string>);
    } catch {
      return [];
    }
  };
  const app = JSON.parse(readFileSync(path.join(distDir, "app-path-routes-manifest.json"), "utf8")) as Record<string, string>;
  for (const route of [...read("server/pages-manifest.json"), ...Object.values(app)]) {
    const match = /^\/interaction\/([^/[]+)$/.exec(route);
    if (match) routes.add(match[1]!);
  }
  return routes;
}

export function createHostedPageFastPath(options: { distDir: string; https: boolean }): HostedPageFastPath {
  const stylesheets = readStylesheets(options.distDir);
  const siblings = readSiblingRoutes(options.distDir);
  const { https } = options;

  /**
   * The document Next writes for the page (next/dist/pages/_document.js with `unstable_runtimeJS:
   * false`): charset, the page's next/head elements marked as Next marks them, each stylesheet
   * preloaded then linked with the nonce, the body rendered as Next renders it (renderToString,
   * whose text separators it keeps). tests/oidc/hosted-page-fast-path.test.ts compares the two.
   */
  function render(props: Parameters<typeof InteractionPage>[0], nonce: string): string {
    const tags = hostedPageHead(interactionPageTitle(props)).map((tag: ReactElement) => cloneElement(tag, { "data-next-head": "" } as object));
    const head = renderToStaticMarkup(createElement(Fragment, null, ...tags));
    const links = stylesheets
      .map((href) => `<link nonce="${nonce}" rel="preload" href="${href}" as="style"/><link nonce="${nonce}" rel="stylesheet" href="${href}" data-n-g=""/>`)
      .join("");
    const body = renderToString(createElement(InteractionPage, { ...props, nonce }));
    return `${htmlOpen(props.locale)}<head><meta charSet="utf-8" data-next-head=""/>${head}${links}<noscript data-n-css="${nonce}"></noscript></head>${BODY_OPEN}${body}</div></body></html>`;
  }

  return {
    isInteractionPage(segment) {
      return !siblings.has(segment);
    },
    async serve(req, res, uid, search) {
      if (req.method !== "GET") return false;
      const query: Record<string, string> = {};
      if (search) {
        for (const [name, value] of new URLSearchParams(search)) {
          if (!PAGE_QUERY.has(name) || name in query) return false;
          query[name] = value;
        }
      }
      const cookies = getCookieParser(req.headers)();
      if (cookies[INTERACTION_COOKIE] !== uid) return false;
      const props = await findInteractionPageProps({
        uid,
        interactionCookie: cookies[INTERACTION_COOKIE],
        usernameCookie: cookies[LOGIN_USERNAME_COOKIE],
        query,
        localeCookie: cookies[LOCALE_COOKIE],
        acceptLanguage: req.headers["accept-language"],
      });
      if (props.kind === "expired") return false;
      // proxy.ts's CSP, with a nonce of this request's as Next's pages have (the passkey script's).
      const nonce = Buffer.from(randomUUID()).toString("base64");
      const html = render(props, nonce);
      res.writeHead(200, {
        ...securityHeaders({ https, csp: pageContentSecurityPolicy(nonce, https, false) }),
        ...PAGE_HEADERS,
        "content-length": Buffer.byteLength(html),
      });
      res.end(html);
      return true;
    },
  };
}
