import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import path from "node:path";
import { newContext, server } from "./support";

const SHOTS = path.resolve(import.meta.dirname, "..", "test-results", "screenshots");

/**
 * The API reference (Scalar, rendered from /api/v1/openapi.json) in Chromium: it renders the
 * project's own document, and axe finds no serious or critical violation with every rule on
 * (WCAG 2.2 AA, target size and the landmark best practices included), at desktop and phone widths.
 */
test.describe("API reference", () => {
  const foreignRequests: string[] = [];

  for (const viewport of [
    { name: "desktop", width: 1280, height: 900 },
    { name: "phone", width: 390, height: 844 },
  ]) {
    test(`renders the OpenAPI document and passes axe (${viewport.name})`, async ({ browser }) => {
      const context = await newContext(browser, foreignRequests);
      const page = await context.newPage();
      const consoleErrors: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error") consoleErrors.push(message.text());
      });
      await page.setViewportSize({ width: viewport.width, height: viewport.height });
      await page.goto(`${server.url}/docs/api-reference`);
      await expect(page.getByRole("heading", { name: "Social Platform Developer API", level: 1 })).toBeVisible({ timeout: 30_000 });
      await expect(page.getByText("/users/{username}").first()).toBeAttached();
      await page.waitForLoadState("networkidle");

      // Every WCAG 2.2 A/AA rule (target size included) and axe's best practices (landmarks).
      const results = await new AxeBuilder({ page })
        .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"])
        .analyze();
      const describe = (v: (typeof results.violations)[number]) =>
        `${v.id} (${v.impact}, ${v.nodes.length}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).slice(0, 5).join(", ")}`;
      expect(results.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map(describe)).toEqual([]);
      // One main landmark, at the top level, and landmarks that can be told apart (any impact).
      expect(results.violations.filter((v) => v.id.startsWith("landmark-")).map(describe)).toEqual([]);
      expect(consoleErrors).toEqual([]);

      await page.screenshot({ path: path.join(SHOTS, `api-reference-top-${viewport.name}.png`) });
      // Further down: the first endpoints, with their method labels.
      await page.evaluate(() => window.scrollTo(0, 1500));
      await page.waitForTimeout(500);
      await page.screenshot({ path: path.join(SHOTS, `api-reference-endpoint-${viewport.name}.png`) });
      await context.close();
    });
  }

  test("the browser never reached for a remote host", () => {
    expect(foreignRequests).toEqual([]);
  });
});
