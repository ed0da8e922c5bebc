import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { generate } from "otplib";
import { startServer, type TestServer } from "../tests/helpers/server";
import { createTestDatabase } from "../tests/helpers/templates";
import { DEMO_ACCOUNTS } from "../lib/seed/demo-accounts";
import { CALLBACK, screenshot, server } from "./support";

/**
 * Issue 29: with REQUIRE_MFA=admins (the default wherever DATABASE_URL is set), an admin without a
 * second factor is sent to Account security to enrol (QR code, key, confirmed with a code from
 * otplib here, ten recovery codes) before any admin page, and reaches the review queue once enrolled.
 * The hosted sign-in's second step itself is tested over HTTP in tests/oidc/second-factor.test.ts.
 */

/** A context that may reach only `origin` (and the login client's fake callback). */
async function contextFor(browser: Browser, origin: string, javaScriptEnabled = true): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled });
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith("data:")) return route.continue();
    if (url.startsWith(CALLBACK)) return route.fulfill({ status: 200, contentType: "text/plain", body: "callback" });
    return route.abort();
  });
  return context;
}

async function portalSignIn(page: Page, base: string, handle: string, password: string, target: string): Promise<void> {
  await page.goto(`${base}${target}`);
  await page.waitForURL(/\/signin\?/);
  await page.getByRole("button", { name: "Continue with your platform account" }).click();
  await page.waitForURL(/\/interaction\//);
  await page.getByLabel("Username").fill(handle);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}

/** Sets up the authenticator app on the open Account security page; returns the key and the recovery codes. */
async function enrolOnPage(page: Page): Promise<{ secret: string; recoveryCodes: string[] }> {
  await page.getByRole("button", { name: "Set up authenticator app" }).click();
  await expect(page.getByRole("img", { name: "QR code for your authenticator app" }).locator("svg")).toBeVisible();
  const secret = (await page.getByTestId("totp-secret").textContent())!.trim();
  expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
  await page.getByLabel("Code from the app").fill(await generate({ secret }));
  await page.getByRole("button", { name: "Turn on" }).click();
  const list = page.getByRole("list", { name: "Recovery codes" });
  await expect(list.getByRole("listitem")).toHaveCount(10);
  const recoveryCodes = (await list.getByRole("listitem").allTextContents()).map((c) => c.trim());
  return { secret, recoveryCodes };
}

test.describe("second factor", () => {
  test.describe("REQUIRE_MFA=admins", () => {
    let strict: TestServer;
    test.beforeAll(async () => {
      test.setTimeout(180_000);
      const serverUrl = new URL(server.databaseUrl);
      serverUrl.pathname = "/postgres";
      strict = await startServer({
        next: true,
        databaseUrl: await createTestDatabase(serverUrl.href, { seed: true }),
        env: { REQUIRE_MFA: "admins" },
      });
    });
    test.afterAll(async () => {
      await strict?.stop();
    });

    test("an admin without a second factor is sent to Account security before the review queue, and reaches it once enrolled", async ({ browser }) => {
      const context = await contextFor(browser, strict.url);
      const page = await context.newPage();
      const admin = DEMO_ACCOUNTS.find((a) => a.handle === "admin")!;
      await portalSignIn(page, strict.url, admin.handle, admin.password, "/admin/apps");
      await page.waitForURL(`${strict.url}/account/security?required=1`);
      await expect(page.getByText("Your account needs a second factor before you can continue")).toBeVisible();
      await expect(page.getByRole("heading", { name: "Review queue" })).toHaveCount(0);
      // Every admin page, not only the queue.
      await page.goto(`${strict.url}/admin/users`);
      await page.waitForURL(`${strict.url}/account/security?required=1`);
      await screenshot(page, "account-security-required");
      await enrolOnPage(page);
      await page.getByRole("button", { name: "I have saved them" }).click();
      await page.goto(`${strict.url}/admin/apps`);
      await expect(page).toHaveURL(`${strict.url}/admin/apps`);
      await expect(page.getByRole("link", { name: "Review queue" })).toBeVisible();
      await context.close();
    });
  });
});
