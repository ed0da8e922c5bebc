import { readFileSync } from "node:fs";
import path from "node:path";
import { CookieJar, jarFetch, postInteraction } from "../helpers/oidc";
import type { TestServer } from "../helpers/server";

/**
 * The developer portal driven over plain HTTP, as an attacker's script would (no browser): sign in
 * through next-auth and the hosted login form, and call server actions directly with the
 * `Next-Action` header (the ids come from the build's server-reference manifest).
 */
const ROOT = path.resolve(import.meta.dirname, "..", "..");

type Server = Pick<TestServer, "url" | "issuer">;

export interface PortalSession {
  jar: CookieJar;
  /** Where next-auth sent the browser after the callback. */
  landing: URL;
  /** Every URL the sign-in went through, in order. */
  trail: string[];
  /** The Set-Cookie lines of next-auth's callback response (the session cookie's attributes). */
  callbackCookies: string[];
}

/**
 * Signs in to the portal: next-auth's CSRF token, POST /api/auth/signin/platform, the hosted login
 * form, the callback. `callbackUrl` is what the sign-in page would pass (an attacker may pass anything).
 */
export async function portalSignIn(
  server: Server,
  handle: string,
  password: string,
  /** `headers`: sent with the sign-in's browser requests (a user agent, X-Forwarded-For behind TRUST_PROXY). */
  options: { callbackUrl?: string; jar?: CookieJar; headers?: Record<string, string> } = {},
): Promise<PortalSession> {
  const jar = options.jar ?? new CookieJar();
  const trail: string[] = [];
  const csrf = await jarFetch(jar, `${server.url}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  let res = await jarFetch(jar, `${server.url}/api/auth/signin/platform`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: server.url },
    body: new URLSearchParams({ csrfToken, callbackUrl: options.callbackUrl ?? `${server.url}/apps`, json: "true" }),
  });
  let next: string;
  if (res.headers.get("content-type")?.includes("json")) {
    next = ((await res.json()) as { url: string }).url;
  } else {
    next = res.headers.get("location") ?? "";
  }
  for (let step = 0; step < 12; step++) {
    const url = new URL(next, server.url);
    trail.push(url.href);
    if (url.origin !== new URL(server.url).origin) {
      // Left the platform: only acceptable as the very end of the journey (the test checks where).
      return { jar, landing: url, trail, callbackCookies: [] };
    }
    if (/^\/interaction\/[A-Za-z0-9_-]+$/.test(url.pathname)) {
      res = options.headers
        ? await jarFetch(jar, `${url.origin}${url.pathname}/login`, {
            method: "POST",
            headers: { ...options.headers, "content-type": "application/x-www-form-urlencoded", origin: url.origin },
            body: new URLSearchParams({ username: handle, password }),
          })
        : await postInteraction(server, jar, url.href, "login", { username: handle, password });
      const back = res.headers.get("location") ?? "";
      if (back.includes(url.pathname)) throw new Error(`login refused: ${new URL(back, server.url).searchParams.get("error")}`);
    } else {
      res = await jarFetch(jar, url.href, { headers: options.headers });
    }
    const location = res.headers.get("location");
    if (!location || res.status < 300 || res.status >= 400) return { jar, landing: url, trail, callbackCookies: [] };
    if (url.pathname.startsWith("/api/auth/callback/")) {
      const landing = new URL(location, server.url);
      trail.push(landing.href);
      return { jar, landing, trail, callbackCookies: res.headers.getSetCookie() };
    }
    next = location;
  }
  throw new Error(`portal sign-in did not finish: ${trail.join(" → ")}`);
}

export interface ServerAction {
  id: string;
  /** Route patterns of the pages whose bundle holds the action (e.g. `/apps/[clientId]`). */
  pages: string[];
}

/** Server actions by exported name, from the current build's server-reference manifest. */
export function serverActions(): Record<string, ServerAction> {
  const manifest = JSON.parse(readFileSync(path.join(ROOT, ".next", "server", "server-reference-manifest.json"), "utf8")) as {
    node: Record<string, { exportedName?: string; workers?: Record<string, unknown> }>;
  };
  const actions: Record<string, ServerAction> = {};
  for (const [id, entry] of Object.entries(manifest.node)) {
    if (!entry.exportedName) continue;
    const pages = Object.keys(entry.workers ?? {}).map(
      (worker) => worker.replace(/^app/, "").replace(/\/\([^)]+\)/g, "").replace(/\/page$/, "") || "/",
    );
    actions[entry.exportedName] = { id, pages };
  }
  return actions;
}

export interface ActionCall {
  status: number;
  text: string;
  /** The action's return value (`{ ok, data | error }`), when the response carried one. */
  result: { ok: boolean; data?: unknown; error?: { code: string; message: string } } | null;
}

/**
 * Calls a server action the way React does: POST with `Next-Action` to a page whose bundle holds
 * the action (Next only finds it there), the arguments as a JSON array. The reply is React's
 * flight format; the action's result is the row holding `"ok"`. `[clientId]` in the page is
 * filled from `options.clientId`, else from the first argument.
 */
export async function callServerAction(
  server: Server,
  jar: CookieJar,
  action: ServerAction,
  args: unknown[],
  options: { clientId?: string; origin?: string | null; headers?: Record<string, string> } = {},
): Promise<ActionCall> {
  const headers: Record<string, string> = {
    "next-action": action.id,
    "content-type": "text/plain;charset=UTF-8",
    accept: "text/x-component",
    ...options.headers,
  };
  const origin = options.origin === undefined ? new URL(server.url).origin : options.origin;
  if (origin !== null) headers.origin = origin;
  const clientId = options.clientId ?? (typeof args[0] === "string" ? args[0] : "app_unknown");
  const pattern = action.pages.find((p) => !p.includes("[")) ?? action.pages[0]!;
  const page = pattern.replace("[clientId]", encodeURIComponent(clientId));
  const res = await jarFetch(jar, `${server.url}${page}`, { method: "POST", headers, body: JSON.stringify(args) });
  const text = await res.text();
  let result: ActionCall["result"] = null;
  for (const line of text.split("\n")) {
    const json = line.replace(/^[0-9a-f]+:/, "");
    if (!json.includes('"ok":')) continue;
    try {
      const parsed = JSON.parse(json) as ActionCall["result"];
      if (parsed && typeof parsed.ok === "boolean") result = parsed;
    } catch {
      // not the row we want
    }
  }
  return { status: res.status, text, result };
}
