/**
 * The sign-in service's own error page, written by oidc-provider's `renderError` and by the
 * interaction handler (never oidc-provider's default HTML). It is plain HTML so it keeps the real
 * HTTP status (400) and needs no redirect; the inline stylesheet reproduces the hosted pages' look
 * (Tailwind's slate palette, a centered card) without loading anything from elsewhere.
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
body{margin:0;min-height:100vh;background:#f8fafc;color:#0f172a;font-family:ui-sans-serif,system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;-webkit-font-smoothing:antialiased;display:flex;flex-direction:column;align-items:center;justify-content:center;padding:3rem 1rem}
.brand{margin-bottom:1.5rem;font-size:.875rem;font-weight:600;letter-spacing:.025em;color:#475569}
main{width:100%;max-width:28rem;background:#fff;border:1px solid #e2e8f0;border-radius:.75rem;box-shadow:0 1px 3px 0 rgb(0 0 0/.1),0 1px 2px -1px rgb(0 0 0/.1);padding:2rem}
h1{margin:0;font-size:1.25rem;line-height:1.75rem;font-weight:600;letter-spacing:-.025em}
p{margin:.75rem 0 0;font-size:.875rem;line-height:1.5rem;color:#475569}
dl{margin:1.25rem 0 0;padding:.75rem 1rem;background:#f8fafc;border:1px solid #e2e8f0;border-radius:.5rem;font-size:.75rem;line-height:1.25rem;color:#334155}
dt{font-weight:600}dd{margin:0 0 .5rem;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;word-break:break-word}dd:last-child{margin-bottom:0}
a.button{display:inline-block;margin-top:1.5rem;border-radius:.375rem;background:#0f172a;color:#fff;padding:.5rem 1rem;font-size:.875rem;font-weight:500;text-decoration:none}
a.button:hover{background:#1e293b}a.button:focus-visible{outline:2px solid #0f172a;outline-offset:2px}
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
<title>${escapeHtml(friendly.title)} · Platform</title>
<style>${STYLE}</style>
</head>
<body>
<div class="brand">Platform</div>
<main aria-labelledby="title">
<h1 id="title">${escapeHtml(friendly.title)}</h1>
<p>${escapeHtml(friendly.text)}</p>
<dl aria-label="Technical details">${details}</dl>
<a class="button" href="${escapeHtml(homeUrl)}">Go to the platform</a>
</main>
</body>
</html>`;
}
