import { expect, test, type Page } from "@playwright/test";
import path from "node:path";
import { listOperations } from "../components/docs/openapi-operations";
import { bodyIsDark, EVERY_SCREENSHOT, newContext, runAxe, server, SHOT, THEME_AXE_RULES, WCAG_TAGS, type AxeViolation } from "./support";

const SHOTS = path.resolve(import.meta.dirname, "..", "test-results", "screenshots");

/**
 * axe with every WCAG 2.2 A/AA rule (target size included) and its best practices (landmarks); in
 * the dark theme only the rules a change of colours can break (THEME_AXE_RULES): the markup is the
 * light theme's, which ran every rule at the same width.
 */
async function expectAxeClean(page: Page, theme: "light" | "dark"): Promise<void> {
  const violations = await runAxe(page, theme === "dark" ? { rules: THEME_AXE_RULES } : { tags: [...WCAG_TAGS, "best-practice"] });
  const describe = (v: AxeViolation) =>
    `${v.id} (${v.impact}, ${v.nodes.length}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).slice(0, 5).join(", ")}`;
  expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map(describe)).toEqual([]);
  // One main landmark, at the top level, and landmarks that can be told apart (any impact).
  expect(violations.filter((v) => v.id.startsWith("landmark-")).map(describe)).toEqual([]);
}

/**
 * The API reference: rendered on the server from the OpenAPI document, inside the docs
 * layout, so every operation is there with JavaScript off; Scalar's interactive client, rendered
 * from /api/v1/openapi.json, only when asked for. axe finds no serious or critical violation in
 * either, at desktop and phone widths.
 */
test.describe("API reference", () => {
  const foreignRequests: string[] = [];

  test("with JavaScript disabled, every operation shows its method, path, summary, parameters and responses", async ({ browser }) => {
    const doc = (await (await fetch(`${server.apiUrl}/openapi.json`)).json()) as Parameters<typeof listOperations>[0];
    const operations = listOperations(doc);
    expect(operations.length).toBeGreaterThanOrEqual(12);
    const context = await newContext(browser, foreignRequests, { javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${server.url}/docs/api-reference`);
    await expect(page.getByRole("heading", { name: "API reference", level: 1 })).toBeVisible();
    // Inside the docs layout: the docs navigation and the contents are there.
    await expect(page.getByRole("navigation", { name: "Documentation" })).toBeVisible();
    await expect(page.getByRole("navigation", { name: "On this page" })).toBeVisible();
    const sections = page.getByTestId("api-operation");
    await expect(sections).toHaveCount(operations.length);
    for (const op of operations) {
      const section = page.locator(`section[aria-labelledby="${op.anchor}"]`);
      const heading = section.getByRole("heading", { level: 3 });
      await expect(heading).toContainText(op.method);
      await expect(heading).toContainText(op.path);
      await expect(heading).toContainText(op.summary);
      for (const p of op.parameters) {
        await expect(section.getByRole("region", { name: `Parameters of ${op.method} ${op.path}` })).toContainText(p.name);
      }
      for (const r of op.responses) await expect(section.getByRole("listitem").filter({ hasText: r.status }).first()).toBeVisible();
    }
    // The interactive client needs JavaScript: no dead button without it.
    await expect(page.getByRole("button", { name: "Open the interactive client" })).toHaveCount(0);
    await context.close();
  });

  for (const viewport of [
    { name: "desktop", width: 1280, height: 900 },
    { name: "phone", width: 390, height: 844 },
  ]) {
    for (const theme of ["light", "dark"] as const) {
      // In a browser that prefers dark, the page and Scalar's client (which follows the page) are dark.
      const shot = `${theme === "dark" ? "dark-" : ""}${viewport.name}`;
      test(`the server-rendered reference, then Scalar's interactive client, pass axe (${viewport.name}, ${theme})`, async ({ browser }) => {
        const context = await newContext(browser, foreignRequests, { colorScheme: theme });
        const page = await context.newPage();
        const consoleErrors: string[] = [];
        page.on("console", (message) => {
          if (message.type() === "error") consoleErrors.push(message.text());
        });
        await page.setViewportSize({ width: viewport.width, height: viewport.height });
        await page.goto(`${server.url}/docs/api-reference`);
        await expect(page.getByRole("heading", { name: /POST\s*\/users\/\{handle\}\/poke/, level: 3 })).toBeVisible();
        await page.waitForLoadState("networkidle");
        await expectAxeClean(page, theme);
        expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), "horizontal overflow").toBeLessThanOrEqual(0);
        if (EVERY_SCREENSHOT) await page.screenshot({ ...SHOT, path: path.join(SHOTS, `api-reference-static-${shot}.jpg`) });

        await page.getByRole("button", { name: "Open the interactive client" }).click();
        await expect(page.getByRole("heading", { name: "Social Platform Developer API", level: 1 })).toBeVisible({ timeout: 30_000 });
        await expect(page.getByText("/users/{username}").first()).toBeAttached();
        await page.waitForLoadState("networkidle");
        await expectAxeClean(page, theme);
        expect(consoleErrors).toEqual([]);
        expect((await bodyIsDark(page)).dark, "the page's body is dark exactly when preferred").toBe(theme === "dark");
        const scalarDark = await page.evaluate(() => document.body.classList.contains("dark-mode"));
        expect(scalarDark, "Scalar's colour mode follows the page").toBe(theme === "dark");
        if (EVERY_SCREENSHOT) await page.screenshot({ ...SHOT, path: path.join(SHOTS, `api-reference-client-${shot}.jpg`) });
        // One menu button, the portal's (Scalar's phone header added a second under it), and
        // Ctrl+K answered by one search only, the docs search (which finds every operation).
        await expect(page.locator(".scalar-app").getByRole("button", { name: /menu/i })).toHaveCount(0);
        await page.keyboard.press("Control+k");
        await expect(page.getByRole("dialog", { name: "Search the docs" })).toBeVisible();
        await expect(page.getByRole("combobox", { name: "Search the docs and the API reference" })).toBeFocused();
        await expect(page.getByRole("dialog")).toHaveCount(1);
        await context.close();
      });
    }
  }

  test("the browser never reached for a remote host", () => {
    expect(foreignRequests).toEqual([]);
  });
});
