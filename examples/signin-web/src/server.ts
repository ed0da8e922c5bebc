import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createClient, createLoginClient, PlatformError, type PendingSignIn, type Tokens } from "@social-dev-platform/sdk";

/**
 * "Sign in with the platform" in one file of plain Node: the SDK's login-client helpers do the
 * authorization code flow with PKCE, the typed API client reads the profile and stats, and logout
 * goes through the platform's end_session_endpoint. Sessions live in memory (a real app would use
 * its session store); the cookie only holds a random session id.
 *
 * Environment: PLATFORM_URL (default http://localhost:3000) and CLIENT_ID (a login client with the
 * redirect URI {APP_URL}/callback and the post-logout redirect URI {APP_URL}/ registered);
 * optional PORT (default 4000) and APP_URL (default http://localhost:$PORT).
 */
const PLATFORM_URL = (process.env.PLATFORM_URL ?? "http://localhost:3000").replace(/\/$/, "");
const CLIENT_ID = process.env.CLIENT_ID;
const PORT = Number(process.env.PORT ?? 4000);
const APP_URL = (process.env.APP_URL ?? `http://localhost:${PORT}`).replace(/\/$/, "");
if (!CLIENT_ID) {
  console.error("CLIENT_ID is required: the client ID of a login client registered on the platform");
  process.exit(1);
}

const login = await createLoginClient({
  issuer: `${PLATFORM_URL}/realms/platform`,
  clientId: CLIENT_ID,
  redirectUri: `${APP_URL}/callback`,
  postLogoutRedirectUri: `${APP_URL}/`,
  scope: "openid",
});

interface Session {
  pending?: PendingSignIn;
  tokens?: Tokens;
  notice?: string;
}
const sessions = new Map<string, Session>();
const COOKIE = "signin_web_sid";

function sessionOf(req: IncomingMessage, res: ServerResponse): Session {
  const sid = /(?:^|;\s*)signin_web_sid=([A-Za-z0-9_-]+)/.exec(req.headers.cookie ?? "")?.[1];
  const existing = sid ? sessions.get(sid) : undefined;
  if (existing) return existing;
  const id = randomBytes(24).toString("base64url");
  const session: Session = {};
  sessions.set(id, session);
  res.setHeader("set-cookie", `${COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax`);
  return session;
}

const escape = (s: unknown) =>
  String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

function page(res: ServerResponse, body: string, status = 200) {
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
  res.end(`<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Sign in with the platform — example</title>
<body style="font-family:system-ui;max-width:40rem;margin:2rem auto;padding:0 1rem">${body}</body></html>`);
}

function redirect(res: ServerResponse, location: string, status = 303) {
  res.writeHead(status, { location, "cache-control": "no-store" });
  res.end();
}

async function home(session: Session, res: ServerResponse) {
  const notice = session.notice ? `<p role="status">${escape(session.notice)}</p>` : "";
  delete session.notice;
  if (!session.tokens) {
    return page(res, `<h1>Example app</h1>${notice}<p><a href="/login">Sign in with the platform</a></p>`);
  }
  const api = createClient({ baseUrl: `${PLATFORM_URL}/api/v1`, token: session.tokens.accessToken });
  try {
    const me = await api.me.get();
    const stats = await api.me.stats().catch((error: unknown) => {
      if (error instanceof PlatformError && error.code === "insufficient_scope") return undefined; // svc:stats.read not granted
      throw error;
    });
    const scores = stats ? Object.entries(stats.aggregate_scores).map(([k, v]) => `<li>${escape(k)}: ${escape(v)}</li>`).join("") : "";
    return page(
      res,
      `<h1>Hello, ${escape(me.user.displayName)}</h1>${notice}
<p>Signed in as <strong>@${escape(me.user.username)}</strong> · ${escape(me.user.friendCount)} friends</p>
${me.user.bio ? `<p>${escape(me.user.bio)}</p>` : ""}
<h2>Your stats</h2>${stats ? `<p>Handle: ${escape(stats.handle)}</p><ul>${scores}</ul>` : "<p>Not shared with this app.</p>"}
<p>Access token expires at ${new Date(session.tokens.expiresAt).toISOString()}</p>
<form method="post" action="/refresh"><button>Refresh tokens</button></form>
<form method="post" action="/logout"><button>Sign out</button></form>`,
    );
  } catch (error) {
    if (error instanceof PlatformError && error.code === "invalid_token") {
      delete session.tokens; // revoked or expired: sign in again
      return page(res, `<h1>Signed out</h1><p>Your session ended.</p><p><a href="/login">Sign in again</a></p>`);
    }
    throw error;
  }
}

async function handle(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? "/", APP_URL);
  const session = sessionOf(req, res);
  if (req.method === "GET" && url.pathname === "/") return home(session, res);
  if (req.method === "GET" && url.pathname === "/login") {
    const { url: authorize, pending } = await login.startSignIn();
    session.pending = pending;
    return redirect(res, authorize.href, 302);
  }
  if (req.method === "GET" && url.pathname === "/callback") {
    const pending = session.pending;
    delete session.pending;
    if (!pending) return page(res, `<h1>Sign-in expired</h1><p><a href="/login">Start again</a></p>`, 400);
    try {
      session.tokens = await login.finishSignIn(url, pending); // checks state, exchanges the code
    } catch (error) {
      const code = error instanceof PlatformError ? error.code : "error";
      return page(res, `<h1>Sign-in failed</h1><p>${escape(code)}</p><p><a href="/login">Try again</a></p>`, 400);
    }
    return redirect(res, "/");
  }
  if (req.method === "POST" && url.pathname === "/refresh" && session.tokens?.refreshToken) {
    try {
      const next = await login.refresh(session.tokens.refreshToken); // rotation: keep the new refresh token
      session.tokens = { ...next, idToken: next.idToken ?? session.tokens.idToken } as Tokens;
      session.notice = "Tokens refreshed.";
    } catch (error) {
      if (!(error instanceof PlatformError && error.code === "invalid_grant")) throw error;
      delete session.tokens; // expired or revoked: the full sign-in again
      session.notice = "Your session ended; sign in again.";
    }
    return redirect(res, "/");
  }
  if (req.method === "POST" && url.pathname === "/logout") {
    const idToken = session.tokens?.idToken;
    delete session.tokens;
    // Ends the platform session too; the platform sends the browser back to APP_URL/.
    return redirect(res, login.logoutUrl(idToken ? { idTokenHint: idToken } : {}).href);
  }
  page(res, "<h1>Not found</h1>", 404);
}

createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    // Never log tokens: only the error's code and request id.
    console.error("request failed:", error instanceof PlatformError ? `${error.code} (${error.requestId ?? "no request id"})` : error);
    if (!res.headersSent) page(res, "<h1>Something went wrong</h1>", 500);
    else res.end();
  });
}).listen(PORT, () => console.log(`signin-web listening on ${APP_URL}`));
