import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliJson } from "../helpers/cli";
import { query } from "../helpers/db";
import { authorizationEndpoint, authorize, CookieJar, createTestApp, createTestUser, jarFetch } from "../helpers/oidc";
import { startLoadBalancer, type LoadBalancer } from "../helpers/load-balancer";
import { newDatabase, pointAppAt, startServer, type TestServer } from "../helpers/server";
import { callServerAction, portalSignIn, serverActions, type PortalSession, type ServerAction } from "../security/portal-client";

/**
 * Part 4: "Where you're signed in" on Account security, through real HTTP against two
 * server processes on one database behind a load balancer (tests/helpers/load-balancer.ts; each
 * request pinned to process 0 or 1 where it matters). The person's sign-in sessions
 * are listed with browser, OS and only the address's network; "Sign out" and "Sign out everywhere
 * else" end sessions at the sign-in service and in the portal, in both processes at once (the other
 * process had just cached the session as live: only the change channel can tell it); a new device
 * is notified once; `users mfa reset` ends the portal too.
 */
let lb: LoadBalancer;
let servers: TestServer[] = [];
/** The platform as browsers see it: the balancer's URL (APP_URL of both processes). */
let site: { url: string; issuer: string; databaseUrl: string };
let closeDb: () => Promise<void>;
let actions: Record<string, ServerAction>;
let clientId: string;
const PASSWORD = "a long enough passphrase";
const REDIRECT = "http://localhost:9/callback";
const HANDLE = "traveller";
/** Long, real-world user agents (the list must wrap them, never overflow). */
const MAC_CHROME =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 CorpAgentTelemetry/4.18.2-build.20261127 (managed; device=MBP-1234567890-ABCDEFGHIJ; policy=strict-enterprise-rollout)";
const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1";
const FIREFOX = "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";
const MAC_ADDRESS = "203.0.113.77";
const PHONE_ADDRESS = "2001:db8:4242:7:1:2:3:4";

beforeAll(async () => {
  const databaseUrl = await newDatabase({ seed: false });
  const backends: { port: number }[] = [];
  lb = await startLoadBalancer(backends);
  // TRUST_PROXY=1: the client's address is the X-Forwarded-For the test sends (the balancer passes it on).
  const env = { APP_URL: lb.url, ISSUER: `${lb.url}/realms/platform`, TRUST_PROXY: "1" };
  servers = await Promise.all([startServer({ next: true, databaseUrl, env }), startServer({ next: true, databaseUrl, env })]);
  backends.push(...servers.map((s) => ({ port: s.port })));
  site = { url: lb.url, issuer: env.ISSUER, databaseUrl };
  closeDb = await pointAppAt(databaseUrl);
  actions = serverActions();
  await createTestUser(databaseUrl, { handle: HANDLE, password: PASSWORD });
  ({ clientId } = await createTestApp(databaseUrl, { type: "login", redirectUris: [REDIRECT], firstParty: true }));
}, 600_000);

afterAll(async () => {
  await closeDb?.();
  await Promise.all(servers.map((s) => s.stop()));
  await lb?.close();
});

function signIn(userAgent: string, address: string): Promise<PortalSession> {
  return portalSignIn(site, HANDLE, PASSWORD, { headers: { "user-agent": userAgent, "x-forwarded-for": address } });
}

/** Pins a request to process 0 or 1 behind the balancer. */
const on = (process: 0 | 1) => ({ "x-backend": String(process) });

/** Whether process `process`'s portal lets this browser in: the Account security page, or a redirect to sign in. */
async function portalState(process: 0 | 1, jar: CookieJar): Promise<"in" | "out"> {
  const res = await jarFetch(jar, `${site.url}/account/security`, { headers: on(process) });
  if (res.status === 200) return "in";
  const location = res.headers.get("location") ?? "";
  expect([302, 303, 307], `status ${res.status}`).toContain(res.status);
  expect(location).toContain("/signin");
  return "out";
}

/** Process `process`'s portal refuses the browser within `ms` (the change channel's delivery), or the last state. */
async function refusedWithin(process: 0 | 1, jar: CookieJar, ms: number): Promise<"in" | "out"> {
  const deadline = Date.now() + ms;
  let state = await portalState(process, jar);
  while (state === "in" && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    state = await portalState(process, jar);
  }
  return state;
}

/** prompt=none in this browser: "code" while its sign-in session lives, else the error (login_required). */
async function silentSignIn(jar: CookieJar): Promise<string> {
  const url = new URL(authorizationEndpoint(site));
  const params = { client_id: clientId, response_type: "code", redirect_uri: REDIRECT, scope: "openid", prompt: "none", state: "s", code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGF3jgU9qQ", code_challenge_method: "S256" };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const res = await jarFetch(jar, url.href);
  const back = new URL(res.headers.get("location") ?? "", url);
  return back.searchParams.get("code") ? "code" : (back.searchParams.get("error") ?? `status ${res.status}`);
}

async function securityNotices(): Promise<string[]> {
  const rows = await query<{ message: string }>(
    site.databaseUrl,
    `SELECT n.message FROM "Notification" n JOIN "User" u ON u.id = n."userId" WHERE u.handle = $1 AND n.type = 'security' ORDER BY n.id`,
    [HANDLE],
  );
  return rows.map((r) => r.message);
}

function action(name: string): ServerAction {
  const found = actions[name];
  if (!found) throw new Error(`no server action named ${name}`);
  return found;
}

interface SessionJson {
  id: string;
  user_agent: string;
}

describe("Where you're signed in", () => {
  let mac: PortalSession;
  let phone: PortalSession;

  it("lists each sign-in session with browser, OS and the network only, this device marked", async () => {
    mac = await signIn(MAC_CHROME, MAC_ADDRESS);
    phone = await signIn(IPHONE, PHONE_ADDRESS);
    expect(mac.landing.pathname, mac.trail.join("\n")).toBe("/apps");
    const res = await jarFetch(mac.jar, `${site.url}/account/security`, { headers: on(0) });
    expect(res.status).toBe(200);
    // React separates adjacent text parts with <!-- -->: the text as a reader sees it.
    const html = (await res.text()).replaceAll("<!-- -->", "");
    expect(html).toContain("Where you&#x27;re signed in");
    expect(html).toContain("Chrome 131 on macOS");
    expect(html).toContain("Safari 17 on iOS 17.2");
    expect(html).toContain("This device");
    expect(html).toContain("Network 203.0.113.x");
    expect(html).toContain("Network 2001:db8:4242::/48");
    expect(html).toContain("Sign out everywhere else");
    expect(html).toContain('href="/account/apps"');
    // The full addresses are never rendered, nor stored with the session.
    expect(html).not.toContain(MAC_ADDRESS);
    expect(html).not.toContain("2001:db8:4242:7");
    const stored = await query<{ addressPrefix: string }>(site.databaseUrl, `SELECT "addressPrefix" FROM "SignInSession" ORDER BY "createdAt"`);
    expect(stored.map((r) => r.addressPrefix)).toEqual(["203.0.113.x", "2001:db8:4242::/48"]);
    // "This device" is the asking browser's: the phone sees it on its own row.
    const fromPhone = await (await jarFetch(phone.jar, `${site.url}/account/security`, { headers: on(1) })).text();
    expect(fromPhone.indexOf("This device")).toBeGreaterThan(fromPhone.indexOf("Safari 17 on iOS 17.2"));
    expect(fromPhone.indexOf("This device")).toBeLessThan(fromPhone.indexOf("Chrome 131 on macOS"));
  });

  it("tells the person of each new device once, with the network only, and audits it", async () => {
    // The account's first browser (the Mac) is audited but not announced: it is new to no one.
    const notices = await securityNotices();
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain("A new device signed in to your account: Safari 17 on iOS 17.2 (network 2001:db8:4242::/48)");
    for (const notice of notices) expect(notice).not.toMatch(/203\.0\.113\.77|2001:db8:4242:7/);
    // The same browser signs in again (prompt=login asks for the password): its device cookie says it is known.
    const again = await authorize(site, { handle: HANDLE, password: PASSWORD, clientId, redirectUri: REDIRECT, jar: mac.jar, extraParams: { prompt: "login" } });
    expect(again.loginShown).toBe(true);
    expect(await securityNotices()).toHaveLength(1);
    const audit = await query<{ detail: { device: string; network: string } }>(
      site.databaseUrl,
      `SELECT detail FROM "AuditLog" WHERE action = 'user.session.new_device' AND "targetId" = $1 ORDER BY id`,
      [HANDLE],
    );
    expect(audit.map((r) => r.detail)).toEqual([
      { device: "Chrome 131 on macOS", network: "203.0.113.x", notified: false },
      { device: "Safari 17 on iOS 17.2", network: "2001:db8:4242::/48", notified: true },
    ]);
  });

  it("Sign out everywhere else ends the other sessions in both processes at once, this one stays", async () => {
    const tab = await signIn(FIREFOX, "198.51.100.10");
    // Process B has just seen the phone's and the tab's sessions live (and cached that).
    expect(await portalState(1, phone.jar)).toBe("in");
    expect(await portalState(1, tab.jar)).toBe("in");
    const call = await callServerAction(site, mac.jar, action("signOutOtherSessionsAction"), [], { headers: on(0) });
    expect(call.result, call.text.slice(0, 300)).toEqual({ ok: true, data: { ended: 2 } });
    // B learns it through the change channel, not from its cache's lifetime (30 s).
    expect(await refusedWithin(1, phone.jar, 1_000)).toBe("out");
    expect(await refusedWithin(1, tab.jar, 1_000)).toBe("out");
    expect(await portalState(0, phone.jar)).toBe("out");
    // At the sign-in service too: the phone's browser is asked to sign in again.
    expect(await silentSignIn(phone.jar)).toBe("login_required");
    expect(await silentSignIn(tab.jar)).toBe("login_required");
    // This browser is still signed in, in both processes and at the sign-in service.
    expect(await portalState(0, mac.jar)).toBe("in");
    expect(await portalState(1, mac.jar)).toBe("in");
    expect(await silentSignIn(mac.jar)).toBe("code");
    // Grants are not touched: that is Connected apps.
    const grants = await query<{ n: string }>(site.databaseUrl, `SELECT count(*)::text AS n FROM "OidcModel" WHERE kind = 'Grant'`);
    expect(Number(grants[0]!.n)).toBeGreaterThan(0);
    const audit = await query<{ actorHandle: string; detail: { scope: string; sessions_ended: number } }>(
      site.databaseUrl,
      `SELECT "actorHandle", detail FROM "AuditLog" WHERE action = 'user.session.sign_out' AND "targetId" = $1 ORDER BY id`,
      [HANDLE],
    );
    expect(audit.map((r) => [r.actorHandle, r.detail.scope, r.detail.sessions_ended])).toEqual([[HANDLE, "everywhere_else", 2]]);
  });

  it("Sign out ends one session; ids that are not the person's are refused", async () => {
    const other = await signIn(FIREFOX, "198.51.100.11");
    expect(await portalState(1, other.jar)).toBe("in");
    const sessions = await cliJson<SessionJson[]>(site.databaseUrl, ["users", "sessions", HANDLE]);
    const target = sessions.find((s) => s.user_agent === FIREFOX)!;
    const call = await callServerAction(site, mac.jar, action("signOutSessionAction"), [target.id], { headers: on(0) });
    expect(call.result, call.text.slice(0, 300)).toEqual({ ok: true, data: { ended: 1 } });
    expect(await refusedWithin(1, other.jar, 1_000)).toBe("out");
    expect(await portalState(0, mac.jar)).toBe("in");
    const gone = await callServerAction(site, mac.jar, action("signOutSessionAction"), [target.id], { headers: on(0) });
    expect(gone.result?.error?.code).toBe("not_found");
    const malformed = await callServerAction(site, mac.jar, action("signOutSessionAction"), ["../../etc"], { headers: on(0) });
    expect(malformed.result?.error?.code).toBe("invalid_request");
    // Without a portal session: refused, nothing ended.
    const anonymous = await callServerAction(site, new CookieJar(), action("signOutOtherSessionsAction"), [], { headers: on(0) });
    expect(anonymous.result?.ok).not.toBe(true);
    expect(await portalState(0, mac.jar)).toBe("in");
  });

  it("users mfa reset signs the person out of the portal too, in every process", async () => {
    expect(await portalState(1, mac.jar)).toBe("in");
    const reset = await cliJson<{ sessions_ended: number }>(site.databaseUrl, ["users", "mfa", "reset", HANDLE, "--reason", "lost phone"]);
    expect(reset.sessions_ended).toBe(1);
    expect(await refusedWithin(1, mac.jar, 1_000)).toBe("out");
    expect(await portalState(0, mac.jar)).toBe("out");
    expect(await silentSignIn(mac.jar)).toBe("login_required");
  });
});
