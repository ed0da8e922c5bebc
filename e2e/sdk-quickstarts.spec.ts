import { expect, test, type Locator, type Page } from "@playwright/test";
import path from "node:path";
import { createTestApp } from "../tests/helpers/oidc";
import { expectAccessible, expectNoHorizontalOverflow, newPersonPage, registerApp, screenshot, server, signIn } from "./support";

/**
 * The SDK docs page and the quickstart tabs (curl, TypeScript, Python) on the docs and on an app's
 * page: the language switch is a native radio group, so it works by mouse, by keyboard and with
 * JavaScript off; axe-clean and screenshotted at 1280 and 390 px.
 */
const SHOTS = path.resolve(import.meta.dirname, "..", "test-results", "screenshots");

/** A close-up of one part of the page at 1280 and 390 px (the full-page shots shrink too much to read code). */
async function closeUp(page: Page, target: Locator, name: string): Promise<void> {
  for (const [width, label] of [[1280, "desktop"], [390, "phone"]] as const) {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(150);
    await target.screenshot({ path: path.join(SHOTS, `${name}-${label}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

test.describe.serial("SDK docs and quickstarts", () => {
  const foreignRequests: string[] = [];
  let alice: Page;

  test.beforeAll(async ({ browser }) => {
    alice = await newPersonPage(browser, foreignRequests);
    await signIn(alice, "alice");
  });

  test.afterAll(async () => {
    await alice?.context().close();
  });

  const panel = (page: Page, language: string, nth = 0) => page.locator(`[data-language=${language}]`).nth(nth);

  test("the SDK page is in the docs nav, shows the quickstarts, and passes axe", async () => {
    await alice.goto(`${server.url}/docs`);
    await alice.getByRole("navigation", { name: "Documentation" }).getByRole("link", { name: "SDK and quickstarts" }).click();
    await alice.waitForURL(`${server.url}/docs/sdk`);
    await expect(alice.getByRole("heading", { name: "SDK and quickstarts", level: 1 })).toBeVisible();
    await expect(alice.getByText(`npm install ${server.url}/sdk/latest.tgz`).first()).toBeVisible();
    // Two quickstarts (API and login client), each on curl first.
    await expect(panel(alice, "curl", 0)).toBeVisible();
    await expect(panel(alice, "python", 0)).toBeHidden();
    await expect(panel(alice, "typescript", 1)).toBeHidden();
    await expectAccessible(alice, "docs/sdk");
    await expectNoHorizontalOverflow(alice);
    await screenshot(alice, "docs-sdk");
    await closeUp(alice, alice.locator("article"), "docs-sdk-article");
  });

  test("tabs switch by mouse and by keyboard", async () => {
    const api = alice.getByRole("group", { name: "Language" }).first();
    await api.getByText("Python", { exact: true }).click();
    await expect(panel(alice, "python", 0)).toBeVisible();
    await expect(panel(alice, "python", 0)).toContainText("import requests");
    await expect(panel(alice, "curl", 0)).toBeHidden();
    // The other quickstart on the page keeps its own choice.
    await expect(panel(alice, "curl", 1)).toBeVisible();

    await api.getByRole("radio", { name: "Python" }).focus();
    await alice.keyboard.press("ArrowLeft");
    await expect(api.getByRole("radio", { name: "TypeScript" })).toBeChecked();
    await expect(panel(alice, "typescript", 0)).toBeVisible();
    await expect(panel(alice, "typescript", 0)).toContainText("clientCredentials");
  });

  test("tabs work with JavaScript off", async ({ browser }) => {
    const context = await browser.newContext({ javaScriptEnabled: false, storageState: await alice.context().storageState() });
    const page = await context.newPage();
    await page.goto(`${server.url}/docs/sdk`);
    await page.getByRole("group", { name: "Language" }).nth(1).getByText("Python", { exact: true }).click();
    await expect(panel(page, "python", 1)).toBeVisible();
    await expect(panel(page, "python", 1)).toContainText("OAuth2Session");
    await expect(panel(page, "curl", 1)).toBeHidden();
    await context.close();
  });

  test("an app page's quickstart is filled with its client ID and redirect URI, in three languages", async () => {
    const clientId = await registerApp(alice, {
      name: "Quickstart tabs app",
      type: "login",
      scopes: ["svc:stats.read"],
      redirectUri: "https://tabs.example.com/callback",
    });
    await alice.goto(`${server.url}/apps/${clientId}`);
    // Before approval only the sandbox works, so the quickstart uses its client ID and says so.
    const sandboxClientId = `sbx_${clientId}`;
    await expect(alice.getByTestId("quickstart-sandbox-note")).toContainText("Sandbox credentials — this app is awaiting review");
    await expect(alice.getByRole("group", { name: "Credentials" })).toHaveCount(0);
    const tabs = alice.getByRole("group", { name: "Language" });
    await expect(tabs.getByRole("radio")).toHaveCount(3);
    await expect(panel(alice, "curl")).toContainText(`client_id=${sandboxClientId}`);
    await tabs.getByText("TypeScript", { exact: true }).click();
    await expect(panel(alice, "typescript")).toContainText(`clientId: "${sandboxClientId}"`);
    await expect(panel(alice, "typescript")).toContainText(`redirectUri: "https://tabs.example.com/callback"`);
    await tabs.getByText("Python", { exact: true }).click();
    await expect(panel(alice, "python")).toContainText(`CLIENT_ID = "${sandboxClientId}"`);
    await expect(panel(alice, "python")).toContainText("authlib");
    await tabs.getByText("TypeScript", { exact: true }).click();
    await expectAccessible(alice, "app quickstart");
    await expectNoHorizontalOverflow(alice);
    await screenshot(alice, "app-quickstart-tabs");
    await closeUp(alice, alice.locator("section").filter({ has: alice.getByRole("heading", { name: "Quickstart", exact: true }) }), "app-quickstart-card");
  });

  test("once approved, a Live / Sandbox switch offers both credentials", async () => {
    const { clientId } = await createTestApp(server.databaseUrl, {
      type: "api",
      ownerHandle: "alice",
      scopes: ["svc:chat.read"],
      name: "Quickstart switch app",
      status: "approved",
    });
    await alice.goto(`${server.url}/apps/${clientId}`);
    const card = alice.locator("section").filter({ has: alice.getByRole("heading", { name: "Quickstart", exact: true }) });
    const worlds = card.getByRole("group", { name: "Credentials" });
    await expect(worlds.getByRole("radio")).toHaveCount(2);
    // Live first: the app's own client ID; the sandbox's panel is hidden.
    await expect(worlds.getByRole("radio", { name: "Live" })).toBeChecked();
    await expect(card.locator("[data-world=live] [data-language=curl]")).toContainText(`client_id=${clientId}`);
    await expect(card.locator("[data-world=sandbox]")).toBeHidden();
    await worlds.getByText("Sandbox", { exact: true }).click();
    await expect(card.locator("[data-world=live]")).toBeHidden();
    await expect(card.getByTestId("quickstart-sandbox-note")).toHaveText(/^Sandbox credentials/);
    await expect(card.locator("[data-world=sandbox] [data-language=curl]")).toContainText(`client_id=sbx_${clientId}`);
    await expectAccessible(alice, "app quickstart, approved");
    await closeUp(alice, card, "app-quickstart-switch");
  });

  test("the browser never reached for a remote host", () => {
    expect(foreignRequests).toEqual([]);
  });
});
