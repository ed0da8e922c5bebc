import { expect, test, type Page } from "@playwright/test";
import { createTestApp, createTestUser, pkcePair } from "../tests/helpers/oidc";
import { CALLBACK, expectAccessible, newContext, screenshot, server } from "./support";

/**
 * The hosted sign-in pages in Chromium through Next (PRODUCT "Sign-in service": the platform's own
 * look, labels "Username" and "Password", a "Sign in" button, consent "Allow" / "Deny" with each
 * scope in plain words, a logout confirmation, a readable error page), axe-checked, with screenshots
 * under test-results/screenshots/oidc-*.png. Their own user and login client live in the shared
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
    await screenshot(page, "oidc-login-error");
    await expectAccessible(page, "login-error");

    await page.getByLabel("Username").fill("nora");
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

  test("an expired or foreign interaction page says so", async () => {
    await page.goto(`${server.url}/interaction/not-a-real-interaction`);
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
});
