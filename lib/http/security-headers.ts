import type { ServerResponse } from "node:http";

/**
 * The security headers of every answer: Next's pages (proxy.ts, with a per-request nonce CSP) and
 * everything server.ts answers itself (the sign-in service's pages, the form posts' answers, the
 * API, /healthz), from this one table.
 *
 * The server's own CSP: none of those pages loads a script of ours; oidc-provider adds its
 * form_post script's hash to script-src itself (lib/helpers/script_src_sha.js), and there is no
 * form-action, so that a hosted form may still lead to a client's registered redirect URI.
 */
export const SERVER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'unsafe-inline'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * The CSP of Next's pages (proxy.ts) and of the hosted login page's fast path
 * (lib/server/hosted-page.ts). Scripts need this request's nonce (Next adds it to its own scripts,
 * 'strict-dynamic' lets them load their chunks); styles need 'unsafe-inline' (React style
 * attributes, sonner, the API reference renderer). No form-action: the hosted login form
 * legitimately redirects to a client's registered redirect URI on another origin, which
 * form-action would block in Chromium.
 */
export function pageContentSecurityPolicy(nonce: string, https: boolean, dev: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "frame-ancestors 'none'",
    ...(https ? ["upgrade-insecure-requests"] : []),
  ].join("; ");
}

export function securityHeaders(options: { https: boolean; csp: string }): Record<string, string> {
  return {
    "content-security-policy": options.csp,
    "x-content-type-options": "nosniff",
    "referrer-policy": "strict-origin-when-cross-origin",
    "x-frame-options": "DENY",
    "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=()",
    "cross-origin-opener-policy": "same-origin",
    ...(options.https ? { "strict-transport-security": "max-age=63072000; includeSubDomains" } : {}),
  };
}

const serverHeaders = {
  http: Object.freeze(securityHeaders({ https: false, csp: SERVER_CSP })),
  https: Object.freeze(securityHeaders({ https: true, csp: SERVER_CSP })),
};

/** Set once at start-up from APP_URL (lib/server/platform.ts): whether answers carry HSTS. */
let current = serverHeaders.http;

export function setSecurityHeadersHttps(https: boolean): void {
  current = https ? serverHeaders.https : serverHeaders.http;
}

/**
 * The headers of everything server.ts answers itself. lib/http/reply.ts writes them in its one
 * writeHead call: headers set beforehand with setHeader would send Node down writeHead's slow
 * path (every header validated and stored twice), a measurable share of a token grant's CPU.
 */
export function serverSecurityHeaders(): Readonly<Record<string, string>> {
  return current;
}

/** On Node's response, before anything is written: for answers written by others (oidc-provider's Koa app). */
export function applySecurityHeaders(res: ServerResponse): void {
  for (const [name, value] of Object.entries(current)) res.setHeader(name, value);
}
