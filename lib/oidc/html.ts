import { translator, type Locale } from "../i18n";

/**
 * The sign-in service's own error page, written by oidc-provider's `renderError` and by the
 * interaction handler (never oidc-provider's default HTML). It is plain HTML so it keeps the real
 * HTTP status (400) and needs no redirect; the inline stylesheet reproduces the hosted pages' look
 * (slate background, brand indigo, a centered card, as app/interaction) without loading anything.
 */
export function escapeHtml(value: unknown): string {
  return String(value ?? "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

const STYLE = `
*,::before,::after{box-sizing:border-box}
body{margin:0;min-height:100vh;background:#f8fafc;color:#0f172a;font-family:ui-sans-serif,system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue","Noto Sans","Liberation Sans",Arial,sans-serif;-webkit-font-smoothing:antialiased;display:flex;flex-direction:column;align-items:center;padding:5rem 1rem 3rem;background-image:linear-gradient(to bottom,rgb(224 231 255/.7),rgb(238 242 255/.4) 9rem,transparent 18rem);background-repeat:no-repeat}
.brand{display:flex;align-items:center;gap:.625rem;margin-bottom:2rem;font-size:1.125rem;font-weight:600;letter-spacing:-.025em}
.brand svg{width:2rem;height:2rem}
main{width:100%;max-width:28rem;background:#fff;border:1px solid #e2e8f0;border-radius:1rem;box-shadow:0 20px 25px -5px rgb(15 23 42/.05),0 8px 10px -6px rgb(15 23 42/.05);padding:2rem}
.icon{display:flex;align-items:center;justify-content:center;width:3rem;height:3rem;border-radius:.75rem;background:#fee2e2;color:#b91c1c}
.icon svg{width:1.5rem;height:1.5rem}
h1{margin:1.5rem 0 0;font-size:1.5rem;line-height:2rem;font-weight:600;letter-spacing:-.025em}
p{margin:.5rem 0 0;font-size:.875rem;line-height:1.25rem;color:#475569}
dl{margin:1.5rem 0 0;padding:.75rem 1rem;background:#f8fafc;border:1px solid #e2e8f0;border-radius:.75rem;font-size:.75rem;line-height:1.25rem;color:#334155}
dt{font-weight:600}dd{margin:0 0 .5rem;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;word-break:break-word}dd:last-child{margin-bottom:0}
a.button{display:inline-flex;align-items:center;height:2.5rem;margin-top:1.5rem;border-radius:.5rem;background:#4f46e5;color:#fff;padding:0 1rem;font-size:.875rem;font-weight:500;text-decoration:none;box-shadow:0 1px 2px rgb(0 0 0/.05)}
a.button:hover{background:#4338ca}a.button:focus-visible{outline:2px solid #4f46e5;outline-offset:2px}
@media (prefers-color-scheme:dark){
:root{color-scheme:dark}
body{background-color:#020617;color:#f8fafc;background-image:linear-gradient(to bottom,rgb(30 27 75/.7),rgb(30 27 75/.3) 9rem,transparent 18rem)}
main{background:#0f172a;border-color:#334155}
.icon{background:#450a0a;color:#fca5a5}
p{color:#cbd5e1}
dl{background:#020617;border-color:#334155;color:#cbd5e1}
a.button{background:#818cf8;color:#0f172a}a.button:hover{background:#a5b4fc}a.button:focus-visible{outline-color:#818cf8}
}
`;

/** The errors a person can meet at the authorization endpoint that have their own plain words (lib/i18n `error.<code>.*`). */
const FRIENDLY = [
  "invalid_client",
  "invalid_redirect_uri",
  "invalid_request",
  "session_not_found",
  "forbidden",
  "temporarily_unavailable",
  "server_error",
] as const;

function friendlyKey(error: string): (typeof FRIENDLY)[number] | "default" {
  return (FRIENDLY as readonly string[]).includes(error) ? (error as (typeof FRIENDLY)[number]) : "default";
}

export interface ErrorPageInput {
  error: string;
  errorDescription?: string;
  homeUrl: string;
  /** The page's language (lib/i18n); the technical details stay as oidc-provider wrote them. */
  locale?: Locale;
}

export function renderErrorPage({ error, errorDescription, homeUrl, locale = "en" }: ErrorPageInput): string {
  const t = translator(locale);
  const key = friendlyKey(error);
  const friendly = { title: t(`error.${key}.title`), text: t(`error.${key}.text`) };
  const details = [
    `<dt>${escapeHtml(t("error.error"))}</dt><dd>${escapeHtml(error)}</dd>`,
    errorDescription ? `<dt>${escapeHtml(t("error.description"))}</dt><dd>${escapeHtml(errorDescription)}</dd>` : "",
  ].join("");
  return `<!DOCTYPE html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<title>${escapeHtml(friendly.title)} · Platform</title>
<style>${STYLE}</style>
</head>
<body>
<div class="brand"><svg viewBox="0 0 32 32" aria-hidden="true"><rect width="32" height="32" rx="8" fill="#4f46e5"/><path d="M9 11.5 16 7l7 4.5v9L16 25l-7-4.5z" fill="none" stroke="#fff" stroke-width="2.4" stroke-linejoin="round"/><circle cx="16" cy="16" r="2.6" fill="#fff"/></svg><span>Platform</span></div>
<main aria-labelledby="title">
<div class="icon"><svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true"><path d="M12 9v4m0 3.5h.01M10.3 4.2 2.8 17.3A2 2 0 0 0 4.5 20.3h15a2 2 0 0 0 1.7-3L13.7 4.2a2 2 0 0 0-3.4 0Z"/></svg></div>
<h1 id="title">${escapeHtml(friendly.title)}</h1>
<p>${escapeHtml(friendly.text)}</p>
<dl aria-label="${escapeHtml(t("error.details"))}">${details}</dl>
<a class="button" href="${escapeHtml(homeUrl)}">${escapeHtml(t("error.home"))}</a>
</main>
</body>
</html>`;
}
