import AxeBuilder from "@axe-core/playwright";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server";
import { createTestApp, createTestUser, pkcePair } from "../helpers/oidc";

/**
 * The hosted sign-in pages in real Chromium through Next (PRODUCT "Sign-in service": the platform's
 * own look, labels "Username" and "Password", a "Sign in" button, consent "Allow" / "Deny" with each
 * scope in plain words, a logout confirmation, a readable error page), axe-checked, with screenshots
 * under test-results/screenshots/oidc-*.png.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const SHOTS = path.resolve(import.meta.dirname, "..", "..", "test-results", "screenshots");
const CALLBACK = "http://127.0.0.1:9/callback";
const AFTER_LOGOUT = "http://127.0.0.1:9/bye";
const PASSWORD = "hosted-pages-password";

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let clientId: string;

beforeAll(async () => {
  server = await startServer({ seed: false, next: true });
  await createTestUser(server.databaseUrl, { handle: "nora", password: PASSWORD, displayName: "Nora Lindqvist" });
  ({ clientId } = await createTestApp(server.databaseUrl, {
    type: "login",
    name: "Beetle Tracker",
    ownerHandle: "beetledev",
    scopes: ["svc:beetle.read", "svc:stats.read", "svc:chat.read"],
    redirectUris: [CALLBACK],
    postLogoutRedirectUris: [AFTER_LOGOUT],
  }));
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  // The login client's callback is fake: answer it here so the browser lands somewhere.
  await context.route(`${CALLBACK}**`, (route) => route.fulfill({ status: 200, contentType: "text/plain", body: "callback" }));
  await context.route(`${AFTER_LOGOUT}**`, (route) => route.fulfill({ status: 200, contentType: "text/plain", body: "signed out" }));
  page = await context.newPage();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function screenshot(name: string): Promise<void> {
  await mkdir(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `oidc-${name}-desktop.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(SHOTS, `oidc-${name}-phone.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
}

async function expectAccessible(label: string): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const bad = results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${label}: ${v.id} ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`);
  expect(bad).toEqual([]);
}

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

describe("hosted pages in Chromium", () => {
  it("login page: labels, a generic error for a wrong password, then sign-in", async () => {
    await page.goto(authUrl());
    await page.waitForURL(/\/interaction\/[A-Za-z0-9_-]+$/);
    await expect(page.getByRole("heading", { name: "Sign in" }).isVisible()).resolves.toBe(true);
    expect(await page.getByText("Beetle Tracker").first().isVisible()).toBe(true);
    await screenshot("login");
    await expectAccessible("login");

    await page.getByLabel("Username").fill("nora");
    await page.getByLabel("Password").fill("not-the-password");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(/error=invalid_credentials/);
    expect(await page.locator("#login-error").getByRole("alert").textContent()).toContain("Incorrect username or password.");
    await screenshot("login-error");
    await expectAccessible("login-error");

    await page.getByLabel("Username").fill("nora");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(/\/interaction\/[A-Za-z0-9_-]+$/);
  });

  it("consent page: app name, owner, each scope in plain words, Allow returns a code", async () => {
    await expect(page.getByRole("heading", { name: /Allow Beetle Tracker/ }).isVisible()).resolves.toBe(true);
    const text = (await page.locator("main").textContent()) ?? "";
    expect(text).toContain("@beetledev");
    expect(text).toContain("Nora Lindqvist");
    for (const words of [
      "Read your Beetle game progress and discovered cards",
      "Read your account statistics and scores",
      "Read the global chat",
      "See your display name and profile picture",
    ]) {
      expect(text).toContain(words);
    }
    expect(await page.getByRole("button", { name: "Allow" }).isVisible()).toBe(true);
    expect(await page.getByRole("button", { name: "Deny" }).isVisible()).toBe(true);
    await screenshot("consent");
    await expectAccessible("consent");
    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:9\/callback\?/);
    const callback = new URL(page.url());
    expect(callback.searchParams.get("code")).toBeTruthy();
    expect(callback.searchParams.get("state")).toBe("page-test");
  });

  it("logout confirmation: Sign out ends the session and lands on the registered URI", async () => {
    const end = new URL(`${server.issuer}/protocol/openid-connect/logout`);
    end.search = new URLSearchParams({ client_id: clientId, post_logout_redirect_uri: AFTER_LOGOUT, state: "bye" }).toString();
    await page.goto(end.href);
    await page.waitForURL(/\/interaction\/logout/);
    await expect(page.getByRole("heading", { name: "Sign out of the platform?" }).isVisible()).resolves.toBe(true);
    await screenshot("logout");
    await expectAccessible("logout");
    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:9\/bye\?state=bye$/);
    // Signed out: the next authorization shows the login page again.
    await page.goto(authUrl());
    await page.waitForURL(/\/interaction\//);
    expect(await page.getByLabel("Password").isVisible()).toBe(true);
  });

  it("error page for an unregistered redirect_uri: readable, not redirected", async () => {
    const response = await page.goto(authUrl({ redirect_uri: "https://evil.example/cb" }));
    expect(response?.status()).toBe(400);
    expect(page.url().startsWith(server.issuer)).toBe(true);
    await expect(page.getByRole("heading", { name: "This sign-in link isn't valid" }).isVisible()).resolves.toBe(true);
    await screenshot("error");
    await expectAccessible("error");
  });

  it("an expired or foreign interaction page says so", async () => {
    await page.goto(`${server.url}/interaction/not-a-real-interaction`);
    await expect(page.getByRole("heading", { name: "This sign-in request has expired" }).isVisible()).resolves.toBe(true);
    await screenshot("expired");
    await expectAccessible("expired");
  });

  it("signed-out page when the app gave no post_logout_redirect_uri", async () => {
    // Sign in again (the login page is showing from the logout test's last step), then log out.
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
    await expect(page.getByRole("heading", { name: "You are signed out" }).isVisible()).resolves.toBe(true);
    await screenshot("signed-out");
    await expectAccessible("signed-out");
  });
});
