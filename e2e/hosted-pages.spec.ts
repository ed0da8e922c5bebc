import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { createTestApp, createTestUser, exchangeCode, pkcePair } from "../tests/helpers/oidc";
import { CALLBACK, expectAccessible, expectNoHorizontalOverflow, newContext, screenshot, server } from "./support";

/**
 * The hosted sign-in pages in Chromium through Next (PRODUCT "Sign-in service": the platform's own
 * look, labels "Username" and "Password", a "Sign in" button, consent "Allow" / "Deny" with each
 * scope in plain words, a logout confirmation, a readable error page), axe-checked, with screenshots
 * under test-results/screenshots/oidc-*.jpg. Their own user and login client live in the shared
 * server's database (the demo world has neither). Each test is one step of one browser session (the
 * consent follows the login, the logout ends that session), so they run in order, in one context.
 */

const AFTER_LOGOUT = "http://127.0.0.1:9/bye";
const PASSWORD = "hosted-pages-password";

test.describe("hosted pages in Chromium", () => {
  test.describe.configure({ mode: "serial" });

  let page: Page;
  let clientId: string;
  /** Requests the browser tried to make to anything but our server (and the login client's fake URIs). */
  const foreignRequests: string[] = [];
  /** Everything our server answered 404 (a missing /favicon.ico would land here). */
  const notFound: string[] = [];
  /** Scripts any hosted page loaded (only the login page's passkey script may be among them). */
  const scripts: string[] = [];

  function authUrl(overrides: Record<string, string> = {}): string {
    const url = new URL(`${server.issuer}/protocol/openid-connect/auth`);
    url.search = new URLSearchParams({
      client_id: clientId,
      response_type: "code",
      redirect_uri: CALLBACK,
      scope: "openid profile",
      state: "page-test",
      code_challenge: pkcePair().challenge,
      code_challenge_method: "S256",
      ...overrides,
    }).toString();
    return url.href;
  }

  test.beforeAll(async ({ browser }) => {
    await createTestUser(server.databaseUrl, { handle: "nora", password: PASSWORD, displayName: "Nora Lindqvist" });
    ({ clientId } = await createTestApp(server.databaseUrl, {
      type: "login",
      name: "Beetle Tracker",
      ownerHandle: "beetledev",
      scopes: ["svc:beetle.read", "svc:stats.read", "svc:chat.read"],
      redirectUris: [CALLBACK],
      postLogoutRedirectUris: [AFTER_LOGOUT],
    }));
    const context = await newContext(browser, foreignRequests);
    // The login client's post-logout URI is fake too: answer it here so the browser lands somewhere
    // (registered after newContext's catch-all, so it is tried first).
    await context.route(`${AFTER_LOGOUT}**`, (route) => route.fulfill({ status: 200, contentType: "text/plain", body: "signed out" }));
    context.on("response", (response) => {
      if (response.status() === 404) notFound.push(response.url());
      if (response.request().resourceType() === "script") scripts.push(response.url());
    });
    page = await context.newPage();
  });

  test.afterAll(async () => {
    await page?.context().close();
  });

  test("login page: labels, a generic error for a wrong password, then sign-in", async () => {
    await page.goto(authUrl());
    await page.waitForURL(/\/interaction\/[A-Za-z0-9_-]+$/);
    await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
    await expect(page.getByText("Beetle Tracker").first()).toBeVisible();
    await screenshot(page, "oidc-login");
    await expectAccessible(page, "login");

    await page.getByLabel("Username").fill("nora");
    await page.getByLabel("Password").fill("not-the-password");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(/error=invalid_credentials/);
    await expect(page.locator("#login-error").getByRole("alert")).toContainText("Incorrect username or password.");
    // The username is kept (never in the URL); the password field takes the focus.
    expect(page.url()).not.toContain("nora");
    await expect(page.getByLabel("Username")).toHaveValue("nora");
    await expect(page.getByLabel("Password")).toBeFocused();
    await expect(page.getByLabel("Password")).toHaveValue("");
    await screenshot(page, "oidc-login-error");
    await expectAccessible(page, "login-error");

    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(/\/interaction\/[A-Za-z0-9_-]+$/);
  });

  test("consent page: app name, owner, each scope in plain words, Allow returns a code", async () => {
    await expect(page.getByRole("heading", { name: /Allow Beetle Tracker/ })).toBeVisible();
    const main = page.locator("main");
    await expect(main).toContainText("@beetledev");
    await expect(main).toContainText("Nora Lindqvist");
    for (const words of [
      "Read your Beetle game progress and discovered cards",
      "Read your account statistics and scores",
      "Read the global chat",
      "See your display name and profile picture",
    ]) {
      await expect(main).toContainText(words);
    }
    await expect(page.getByRole("button", { name: "Allow" })).toBeVisible();
    await expect(page.getByRole("button", { name: "Deny" })).toBeVisible();
    await expect(page.getByRole("button", { name: "Not you? Use another account" })).toBeVisible();
    // Where access can be taken back: the person's Connected apps page, which exists.
    const revoke = page.getByRole("link", { name: /Connected apps/ });
    await expect(revoke).toHaveAttribute("href", "/account/apps");
    const connected = await page.request.get(`${server.url}/account/apps`, { maxRedirects: 0 });
    expect(connected.status()).toBeLessThan(400); // the page, or the way to sign in to it
    await screenshot(page, "oidc-consent");
    await expectAccessible(page, "consent");
    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:9\/callback\?/);
    const callback = new URL(page.url());
    expect(callback.searchParams.get("code")).toBeTruthy();
    expect(callback.searchParams.get("state")).toBe("page-test");
  });

  test("logout confirmation: Sign out ends the session and lands on the registered URI", async () => {
    const end = new URL(`${server.issuer}/protocol/openid-connect/logout`);
    end.search = new URLSearchParams({ client_id: clientId, post_logout_redirect_uri: AFTER_LOGOUT, state: "bye" }).toString();
    await page.goto(end.href);
    await page.waitForURL(/\/interaction\/logout/);
    await expect(page.getByRole("heading", { name: "Sign out of the platform?" })).toBeVisible();
    await screenshot(page, "oidc-logout");
    await expectAccessible(page, "logout");
    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:9\/bye\?state=bye$/);
    // Signed out: the next authorization shows the login page again.
    await page.goto(authUrl());
    await page.waitForURL(/\/interaction\//);
    await expect(page.getByLabel("Password")).toBeVisible();
  });

  test("error page for an unregistered redirect_uri: readable, not redirected", async () => {
    const response = await page.goto(authUrl({ redirect_uri: "https://evil.example/cb" }));
    expect(response?.status()).toBe(400);
    expect(page.url().startsWith(server.issuer)).toBe(true);
    await expect(page.getByRole("heading", { name: "This sign-in link isn't valid" })).toBeVisible();
    await screenshot(page, "oidc-error");
    await expectAccessible(page, "error");
  });

  test("an expired or foreign interaction page says so, with a 400", async () => {
    const response = await page.goto(`${server.url}/interaction/not-a-real-interaction`);
    expect(response?.status()).toBe(400);
    await expect(page.getByRole("heading", { name: "This sign-in request has expired" })).toBeVisible();
    await screenshot(page, "oidc-expired");
    await expectAccessible(page, "expired");
  });

  test("signed-out page when the app gave no post_logout_redirect_uri", async () => {
    // Sign in again, then log out without a post_logout_redirect_uri.
    await page.goto(authUrl());
    await page.waitForURL(/\/interaction\//);
    await page.getByLabel("Username").fill("nora");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:9\/callback\?/); // consent was remembered
    await page.goto(`${server.issuer}/protocol/openid-connect/logout?client_id=${clientId}`);
    await page.waitForURL(/\/interaction\/logout/);
    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await page.waitForURL(/\/interaction\/signed-out$/);
    await expect(page.getByRole("heading", { name: "You are signed out" })).toBeVisible();
    await screenshot(page, "oidc-signed-out");
    await expectAccessible(page, "signed-out");
  });

  test("the browser never reached for a remote host (fonts, scripts, telemetry)", () => {
    expect(foreignRequests).toEqual([]);
  });

  test("no page requested anything missing (a favicon included), and none loaded a script but the login page's passkey script", async () => {
    expect(notFound).toEqual([]);
    // The login page's one script (passkeys; e2e/js-budget measures it); nothing else, anywhere.
    expect(scripts.map((url) => new URL(url).pathname).filter((path) => path !== "/hosted/passkey.js")).toEqual([]);
    for (const path of ["/favicon.ico", "/favicon.svg"]) {
      const response = await page.request.get(`${server.url}${path}`);
      expect(response.status(), path).toBe(200);
      expect(response.headers()["content-type"], path).toMatch(/^image\//);
    }
  });
});

/**
 * The hosted pages are plain HTML forms: with JavaScript disabled in the browser, a whole sign-in
 * with consent works, and "Not you? Use another account" really switches the account the app gets.
 */
test.describe("hosted pages without JavaScript", () => {
  const PASSWORD_B = "hosted-pages-second-password";
  let clientId: string;
  let first: { id: number };
  let second: { id: number };
  const foreignRequests: string[] = [];

  async function noScriptContext(browser: Browser): Promise<BrowserContext> {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(server.url)) return route.continue();
      if (url.startsWith(CALLBACK)) return route.fulfill({ status: 200, contentType: "text/plain", body: "callback" });
      foreignRequests.push(url);
      return route.abort();
    });
    return context;
  }

  function authUrl(challenge: string, client = clientId): string {
    const url = new URL(`${server.issuer}/protocol/openid-connect/auth`);
    url.search = new URLSearchParams({
      client_id: client,
      response_type: "code",
      redirect_uri: CALLBACK,
      scope: "openid profile",
      state: "no-js",
      code_challenge: challenge,
      code_challenge_method: "S256",
    }).toString();
    return url.href;
  }

  async function signInWith(page: Page, handle: string, password: string): Promise<void> {
    await page.getByLabel("Username").fill(handle);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
  }

  /** The code's user, from the ID token it is exchanged for. */
  async function subjectOf(code: string, verifier: string, client = clientId): Promise<string> {
    const res = await exchangeCode(server, { clientId: client, code, redirectUri: CALLBACK, verifier });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const id_token = String(res.body.id_token);
    return (JSON.parse(Buffer.from(id_token.split(".")[1]!, "base64url").toString("utf8")) as { sub: string }).sub;
  }

  test.beforeAll(async () => {
    first = await createTestUser(server.databaseUrl, { handle: "nojs_first", password: PASSWORD, displayName: "First Person" });
    second = await createTestUser(server.databaseUrl, { handle: "nojs_second", password: PASSWORD_B, displayName: "Second Person" });
    ({ clientId } = await createTestApp(server.databaseUrl, {
      type: "login",
      name: "No Script Notes",
      ownerHandle: "nojsdev",
      scopes: ["svc:chat.read"],
      redirectUris: [CALLBACK],
    }));
  });

  test("sign-in and consent work with JavaScript disabled", async ({ browser }) => {
    const context = await noScriptContext(browser);
    const page = await context.newPage();
    const { verifier, challenge } = pkcePair();
    await page.goto(authUrl(challenge));
    await page.waitForURL(/\/interaction\/[A-Za-z0-9_-]+$/);
    // The login page's only script is the passkey one, which this browser does not run:
    // its button stays hidden and the password form is the page.
    await expect(page.locator('script:not([src="/hosted/passkey.js"])')).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Sign in with a passkey" })).toBeHidden();
    await signInWith(page, "nojs_first", PASSWORD);
    await expect(page.getByRole("heading", { name: /Allow No Script Notes/ })).toBeVisible();
    await expect(page.locator("main")).toContainText("First Person");
    await expect(page.locator("script")).toHaveCount(0);
    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:9\/callback\?/);
    const callback = new URL(page.url());
    expect(callback.searchParams.get("state")).toBe("no-js");
    expect(await subjectOf(callback.searchParams.get("code")!, verifier)).toBe(String(first.id));
    await context.close();
  });

  test("\"Not you? Use another account\" signs the shown account out and signs another one in", async ({ browser }) => {
    // An app neither person has allowed yet, so that each is asked for consent.
    const { clientId: switchClient } = await createTestApp(server.databaseUrl, {
      type: "login",
      name: "No Script Notes",
      ownerHandle: "nojsdev",
      scopes: ["svc:chat.read"],
      redirectUris: [CALLBACK],
    });
    const context = await noScriptContext(browser);
    const page = await context.newPage();
    let pkce = pkcePair();
    await page.goto(authUrl(pkce.challenge, switchClient));
    await signInWith(page, "nojs_first", PASSWORD);
    await expect(page.locator("main")).toContainText("First Person");
    await page.getByRole("button", { name: "Not you? Use another account" }).click();

    // The same sign-in starts again, at the login page, with nobody signed in.
    await page.waitForURL(/\/interaction\/[A-Za-z0-9_-]+$/);
    await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
    await expect(page.getByText("No Script Notes").first()).toBeVisible();
    await expect(page.getByLabel("Username")).toHaveValue("");
    await signInWith(page, "nojs_second", PASSWORD_B);
    await expect(page.getByRole("heading", { name: /Allow No Script Notes/ })).toBeVisible();
    await expect(page.locator("main")).toContainText("Second Person");
    await expect(page.locator("main")).not.toContainText("First Person");
    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:9\/callback\?/);
    const callback = new URL(page.url());
    expect(callback.searchParams.get("state")).toBe("no-js");
    // The code the app gets is the second person's.
    expect(await subjectOf(callback.searchParams.get("code")!, pkce.verifier, switchClient)).toBe(String(second.id));

    // The platform session is now the second person's: the next sign-in goes straight back to the app
    // (their consent is remembered) without asking for a password.
    // (Asked with the context's cookies, not navigated: Chromium refuses to navigate to port 9 itself.)
    pkce = pkcePair();
    const again = await context.request.get(authUrl(pkce.challenge, switchClient), { maxRedirects: 0 });
    expect(again.status()).toBe(303);
    const back = new URL(again.headers().location!, server.url);
    expect(back.href.startsWith(CALLBACK)).toBe(true);
    expect(await subjectOf(back.searchParams.get("code")!, pkce.verifier, switchClient)).toBe(String(second.id));
    await context.close();
  });

  test("a 120-character app name wraps inside the card at 390 px (login and consent)", async ({ browser }) => {
    const longName = "BeetleTrackerProfessionalEditionForCompetitiveCollectorsAndTournamentOrganizersWithAutomaticCardScanningAndCloudSync".padEnd(120, "X");
    expect(longName).toHaveLength(120);
    const { clientId: longClient } = await createTestApp(server.databaseUrl, {
      type: "login",
      name: longName,
      ownerHandle: "nojsdev",
      scopes: ["svc:chat.read"],
      redirectUris: [CALLBACK],
    });
    // JavaScript on here, for axe (the pages render the same: they ship none).
    const context = await newContext(browser, foreignRequests);
    const page = await context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(authUrl(pkcePair().challenge, longClient));
    await page.waitForURL(/\/interaction\/[A-Za-z0-9_-]+$/);
    const expectInsideCard = async (label: string) => {
      const card = await page.locator("main section").boundingBox();
      for (const element of await page.locator("main section").getByText(longName.slice(0, 40)).all()) {
        const box = await element.boundingBox();
        expect(box!.x + box!.width, `${label}: the name ends inside the card`).toBeLessThanOrEqual(card!.x + card!.width + 0.5);
      }
      const clipped = await page
        .locator("main section *")
        .evaluateAll((nodes) => nodes.filter((n) => n.clientWidth > 1 && n.scrollWidth > n.clientWidth + 1 && getComputedStyle(n).overflowX !== "visible").length);
      expect(clipped, `${label}: nothing clipped`).toBe(0);
      await expectNoHorizontalOverflow(page);
    };
    await expectInsideCard("login");
    await screenshot(page, "oidc-login-long-name");
    await signInWith(page, "nojs_second", PASSWORD_B);
    await expect(page.getByRole("heading", { name: /Allow BeetleTracker/ })).toBeVisible();
    await page.setViewportSize({ width: 390, height: 844 });
    await expectInsideCard("consent");
    await screenshot(page, "oidc-consent-long-name");
    await expectAccessible(page, "consent-long-name");
    await context.close();
  });

  test("the browser never reached for a remote host", () => {
    expect(foreignRequests).toEqual([]);
  });
});
