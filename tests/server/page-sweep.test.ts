import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCALES } from "../../lib/i18n";
import { DEMO_ACCOUNTS } from "../../lib/seed/demo-accounts";
import { authorizationEndpoint, CookieJar, createTestApp, jarFetch, pkcePair, postInteraction, signInAndGetTokens, startDeviceSignIn } from "../helpers/oidc";
import { startServer, type TestServer } from "../helpers/server";
import { portalSignIn } from "../security/portal-client";

/**
 * Every page the product serves, requested from a server started by `npm start` itself (package.json's
 * script, its pinned runtime, no NODE_ENV from the test run) on the production build, the hosted pages
 * in each language: no page may answer 5xx and the server may log no error meanwhile. A page that works
 * only under some NODE_ENV, or only in a test server, fails here (README: Test it).
 *
 * The list of pages comes from the build's own manifests, so a page added to `app/` or `pages/` without
 * a URL here fails the coverage check rather than going unswept.
 */
const ROOT = path.resolve(import.meta.dirname, "..", "..");
const REDIRECT = "http://localhost:9/callback";
const AFTER_LOGOUT = "http://localhost:9/signed-out";
const password = (handle: string) => DEMO_ACCOUNTS.find((a) => a.handle === handle)!.password;

let server: TestServer;
let loginClient: string;
let deviceClient: string;
let aliceApp: string;

interface Visit {
  /** The route pattern of the build's manifest this URL stands for. */
  route: string;
  url: string;
  jar?: CookieJar;
}

/** Page routes of the production build: the App Router's and the Pages Router's (Next's own `_*` left out). */
function builtPageRoutes(): string[] {
  const app = JSON.parse(readFileSync(path.join(ROOT, ".next", "app-path-routes-manifest.json"), "utf8")) as Record<string, string>;
  const pages = JSON.parse(readFileSync(path.join(ROOT, ".next", "server", "pages-manifest.json"), "utf8")) as Record<string, string>;
  const appPages = Object.entries(app)
    .filter(([entry]) => entry.endsWith("/page"))
    .map(([, route]) => route);
  const pagesRouter = Object.keys(pages).filter((route) => !/^\/_(app|document|error)$/.test(route) && route !== "/404" && route !== "/500");
  // Next's own fallbacks (`/_not-found`, `/_global-error`) are reached through the pages that render them.
  return [...new Set([...appPages, ...pagesRouter])].filter((route) => !route.startsWith("/_")).sort();
}

beforeAll(async () => {
  server = await startServer({ next: true, seed: true, npmStart: true, env: { LOG_LEVEL: "info" } });
  ({ clientId: loginClient } = await createTestApp(server.databaseUrl, {
    type: "login",
    scopes: ["svc:chat.read"],
    redirectUris: [REDIRECT],
    postLogoutRedirectUris: [AFTER_LOGOUT],
    ownerHandle: "alice",
    name: "Sweep login app",
  }));
  ({ clientId: deviceClient } = await createTestApp(server.databaseUrl, { type: "login", deviceFlow: true, ownerHandle: "alice" }));
  ({ clientId: aliceApp } = await createTestApp(server.databaseUrl, { type: "api", ownerHandle: "alice", scopes: ["svc:chat.read"], name: "Sweep API app" }));
}, 600_000);

afterAll(async () => {
  await server?.stop();
});

/** A fresh hosted sign-in of the login client, stopped on its login page: that page's URL. */
async function loginPage(jar: CookieJar): Promise<string> {
  const { challenge } = pkcePair();
  const auth = new URL(authorizationEndpoint(server));
  const params = { client_id: loginClient, response_type: "code", redirect_uri: REDIRECT, scope: "openid svc:chat.read", state: "sweep", code_challenge: challenge, code_challenge_method: "S256" };
  for (const [k, v] of Object.entries(params)) auth.searchParams.set(k, v);
  const res = await jarFetch(jar, auth.href);
  expect(res.status).toBe(303);
  return new URL(res.headers.get("location")!, server.url).href;
}

function withQuery(url: string, params: Record<string, string>): string {
  const u = new URL(url, server.url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.href;
}

async function hostedVisits(): Promise<Visit[]> {
  const visits: Visit[] = [];
  for (const lang of LOCALES) {
    // Login, then the consent page of the same interaction, each reached through the language link.
    const jar = new CookieJar();
    const login = await loginPage(jar);
    visits.push({ route: "/interaction/[uid]", url: withQuery(login, { lang }), jar });
    await postInteraction(server, jar, login, "login", { username: "carol", password: password("carol") });
    visits.push({ route: "/interaction/[uid]", url: withQuery(login, { lang }), jar });
    // A stale interaction (the Back button after signing in) and one that never existed.
    visits.push({ route: "/interaction/[uid]", url: withQuery("/interaction/AAAAAAAAAAAAAAAAAAAAA", { lang }) });

    // RP-initiated logout's confirmation page, reached by end_session with id_token_hint.
    const signedIn = await signInAndGetTokens(server, { handle: "bob", password: password("bob"), clientId: loginClient, redirectUri: REDIRECT, scope: "openid svc:chat.read" });
    const end = new URL(`${server.issuer}/protocol/openid-connect/logout`);
    end.search = new URLSearchParams({ client_id: loginClient, post_logout_redirect_uri: AFTER_LOGOUT, id_token_hint: signedIn.id_token }).toString();
    const started = await jarFetch(signedIn.jar, end.href);
    expect(started.status).toBe(303);
    visits.push({ route: "/interaction/logout", url: withQuery(started.headers.get("location")!, { lang }), jar: signedIn.jar });

    visits.push({ route: "/interaction/signed-out", url: withQuery("/interaction/signed-out", { lang }) });
    // The device pages: code entry, a code given in the link, and a wrong code.
    const device = await startDeviceSignIn(server, deviceClient);
    visits.push({ route: "/interaction/device", url: withQuery("/interaction/device", { step: "input", lang }) });
    visits.push({ route: "/interaction/device", url: withQuery(device.verification_uri_complete, { lang }) });
    visits.push({ route: "/interaction/device", url: withQuery("/interaction/device", { user_code: "WRONG-CODE", lang }) });
  }
  return visits;
}

async function portalVisits(): Promise<Visit[]> {
  const anonymous: Visit[] = [
    { route: "/", url: "/" },
    { route: "/signin", url: "/signin" },
    { route: "/docs", url: "/docs" },
    ...["authentication", "scopes", "sdk", "sandbox", "events", "agents", "mcp", "errors", "api-reference", "changes", "changelog"].map((page) => ({
      route: `/docs/${page}`,
      url: `/docs/${page}`,
    })),
    { route: "/docs/[...slug]", url: "/docs/no-such-page" },
    { route: "not found", url: "/no-such-page" },
    // Signed out, the portal's pages send the person to sign in (never a 5xx).
    { route: "/apps", url: "/apps" },
    { route: "/account/security", url: "/account/security" },
  ];
  const alice = (await portalSignIn(server, "alice", password("alice"))).jar;
  const admin = (await portalSignIn(server, "admin", password("admin"))).jar;
  const requestId = "req_sweepmissing000000";
  const signedIn: Visit[] = [
    ...["/apps", "/apps/new", "/account/apps", "/account/notifications", "/account/security", "/docs"].map((url) => ({ route: url, url, jar: alice })),
    ...["", "/edit", "/sandbox", "/usage", "/webhooks", `/usage/requests/${requestId}`].map((tail) => ({
      route: `/apps/[clientId]${tail.replace(requestId, "[requestId]")}`,
      url: `/apps/${aliceApp}${tail}`,
      jar: alice,
    })),
    { route: "/apps/[clientId]", url: "/apps/app_nosuchapp0000000000", jar: alice },
    { route: "/admin", url: "/admin", jar: alice },
    ...["/admin", "/admin/apps", "/admin/agents", "/admin/agents?q=example", "/admin/audit", "/admin/usage", "/admin/users", "/admin/users/alice", "/admin/users/nobody-here"].map((url) => ({
      route: url === "/admin/users/alice" || url === "/admin/users/nobody-here" ? "/admin/users/[handle]" : url.split("?")[0]!,
      url,
      jar: admin,
    })),
  ];
  return [...anonymous, ...signedIn];
}

function serverErrors(lines: string[]): string[] {
  return lines.filter((line) => {
    if (/"level":"error"/.test(line)) return true;
    // Next's and Node's own reports are not JSON lines.
    return !line.startsWith("{") && /(Error:|⨯|Internal Server Error|Unhandled|uncaught)/i.test(line);
  });
}

describe("the page sweep, on the server `npm start` runs", () => {
  it("serves every page without a 5xx and logs no error", async () => {
    const visits = [...(await portalVisits()), ...(await hostedVisits())];
    const logsBefore = server.logs.length;
    const failures: string[] = [];
    for (const visit of visits) {
      const url = new URL(visit.url, server.url).href;
      const res = visit.jar ? await jarFetch(visit.jar, url) : await fetch(url, { redirect: "manual" });
      const body = await res.text();
      if (res.status >= 500) failures.push(`${res.status} ${url}`);
      else if (/Internal Server Error|Application error/i.test(body)) failures.push(`${res.status} with an error page: ${url}`);
    }
    const errors = serverErrors(server.logs.slice(logsBefore));
    expect({ failures, errors }).toEqual({ failures: [], errors: [] });

    // Every page of the build was requested.
    const swept = new Set(visits.map((v) => v.route));
    expect(builtPageRoutes().filter((route) => !swept.has(route))).toEqual([]);
  });

  it("a stale interaction gets the friendly 'start again' page", async () => {
    for (const lang of LOCALES) {
      const res = await fetch(`${server.url}/interaction/AAAAAAAAAAAAAAAAAAAAA?lang=${lang}`, { redirect: "manual" });
      expect(res.status).toBeLessThan(500);
      expect(res.status).not.toBe(200);
      const html = await res.text();
      expect(html).toMatch(/<a [^>]*href=/);
    }
  });

  it("runs on a supported Node.js LTS, the one `npm start` pins", () => {
    const banner = server.logs.find((line) => line.includes("Runtime:"));
    expect(banner).toBeDefined();
    const major = Number(/Node\.js v(\d+)/.exec(banner!)?.[1]);
    expect(major).toBeGreaterThanOrEqual(22);
    expect(major % 2).toBe(0);
    expect(Number(process.versions.node.split(".")[0])).toBeGreaterThanOrEqual(22);
  });
});
