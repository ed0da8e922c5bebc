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
`;

/** Plain-words explanations of the errors a person can meet at the authorization endpoint. */
const FRIENDLY: Record<string, { title: string; text: string }> = {
  invalid_client: {
    title: "This app can't sign you in",
    text: "The app that sent you here is unknown to the platform, not approved yet, or suspended. Nothing was shared with it.",
  },
  invalid_redirect_uri: {
    title: "This sign-in link isn't valid",
    text: "The app asked to send you back to an address it has not registered (redirect_uri). For your safety we stopped here and did not send you anywhere.",
  },
  invalid_request: {
    title: "This sign-in request isn't valid",
    text: "The app that sent you here made a request the platform cannot accept. Go back to the app and try again; if it keeps happening, contact the app's developer.",
  },
  session_not_found: {
    title: "This sign-in request has expired",
    text: "Sign-in requests are only valid for a limited time, and each can be used once. Go back to the app and start signing in again.",
  },
  forbidden: {
    title: "Request refused",
    text: "This form was submitted from somewhere other than the platform's own page. Go back to the app and start signing in again.",
  },
  temporarily_unavailable: {
    title: "Too many sign-ins right now",
    text: "The platform is checking many passwords at this moment and could not check yours in time. Nothing was changed. Go back and sign in again in a few seconds.",
  },
  server_error: {
    title: "Something went wrong on our side",
    text: "The sign-in service could not complete your request. Please try again in a moment.",
  },
};

export interface ErrorPageInput {
  error: string;
  errorDescription?: string;
  homeUrl: string;
}

export function renderErrorPage({ error, errorDescription, homeUrl }: ErrorPageInput): string {
  const friendly = FRIENDLY[error] ?? {
    title: "Sign-in failed",
    text: "The platform could not complete this sign-in request. Go back to the app and try again.",
  };
  const details = [
    `<dt>Error</dt><dd>${escapeHtml(error)}</dd>`,
    errorDescription ? `<dt>Details</dt><dd>${escapeHtml(errorDescription)}</dd>` : "",
  ].join("");
  return `<!DOCTYPE html>
<html lang="en">
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
<dl aria-label="Technical details">${details}</dl>
<a class="button" href="${escapeHtml(homeUrl)}">Go to the platform</a>
</main>
</body>
</html>`;
}
