import { NextResponse, type NextRequest } from "next/server";
import { env } from "./lib/env";
import { pageContentSecurityPolicy, securityHeaders } from "./lib/http/security-headers";

/**
 * Security headers on every page, and a cheap redirect to sign-in for portal pages without a session
 * cookie (STYLE: proxy.ts is never the only auth check; lib/portal/session.ts checks for real).
 *
 * CSP: lib/http/security-headers.ts pageContentSecurityPolicy, with a nonce per request.
 */
const PROTECTED = /^\/(apps|admin|account)(\/|$)/;
const ADMIN = /^\/admin(\/|$)/;
const SESSION_COOKIES = ["__Secure-next-auth.session-token", "next-auth.session-token"];
/**
 * Routes that answer with a CSP of their own (images: `default-src 'none'`, an SVG's inline
 * styles, a logo's sandbox). Headers set here replace the route's, so the page CSP is left off
 * their answers and each keeps its own; the other security headers still apply.
 */
const OWN_CSP = /^\/(media|avatars)\//;

export function proxy(request: NextRequest): NextResponse {
  const { pathname, search } = request.nextUrl;
  const nonce = Buffer.from(crypto.randomUUID()).toString("base64");
  // APP_URL decides https (the public URL); behind a TLS proxy the request itself is plain http.
  const config = env();
  const https = config.APP_URL.startsWith("https:");
  const csp = pageContentSecurityPolicy(nonce, https, config.NODE_ENV === "development");

  const hasSession = SESSION_COOKIES.some((name) => request.cookies.has(name));
  if (PROTECTED.test(pathname) && !hasSession) {
    const target = new URL("/signin", request.url);
    target.searchParams.set("callbackUrl", `${pathname}${search}`);
    return withSecurityHeaders(NextResponse.redirect(target, 303), csp, https);
  }

  // The admin area's filter forms are plain GETs (they work without JavaScript), so an unset filter
  // ("All types") arrives as an empty `type=`: answer with the clean URL, the one a reload or a
  // shared link should carry.
  if (request.method === "GET" && ADMIN.test(pathname) && [...request.nextUrl.searchParams.values()].includes("")) {
    const clean = request.nextUrl.clone();
    for (const [name, value] of [...clean.searchParams.entries()]) if (value === "") clean.searchParams.delete(name, "");
    return withSecurityHeaders(NextResponse.redirect(clean, 303), csp, https);
  }

  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("x-nonce", nonce);
  // The 403 page names its reason from the path (lib/portal/forbidden.ts); never the client's own value.
  requestHeaders.set("x-pathname", pathname);
  requestHeaders.set("content-security-policy", csp);
  return withSecurityHeaders(NextResponse.next({ request: { headers: requestHeaders } }), OWN_CSP.test(pathname) ? null : csp, https);
}

/**
 * The same headers on pages and on the redirects this proxy answers itself (lib/http/security-headers.ts);
 * `csp: null` for a route that sets its own.
 */
function withSecurityHeaders(response: NextResponse, csp: string | null, https: boolean): NextResponse {
  for (const [name, value] of Object.entries(securityHeaders({ https, csp: csp ?? "" }))) {
    if (csp === null && name === "content-security-policy") continue;
    response.headers.set(name, value);
  }
  return response;
}

export const config = {
  // Static build assets carry no HTML; everything else (pages, actions, next-auth) gets the headers.
  matcher: [{ source: "/((?!_next/static|_next/image|favicon.ico).*)" }],
};
