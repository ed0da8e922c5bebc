import { expect, test } from "@playwright/test";
import { createTestApp } from "../tests/helpers/oidc";
import {
  clientCredentials,
  expectAccessible,
  expectNoHorizontalOverflow,
  newContext,
  query,
  screenshot,
  server,
  signIn,
} from "./support";

/**
 * Issue 16: a developer's app makes API calls, one of them failing; the developer opens the app's
 * Usage tab, sees the requests chart and the failing request with its error code, and finds a
 * request by the X-Request-Id from a support ticket. An app without traffic shows how to make a
 * first call; admins see the app in the usage overview. Screenshots at 1280 and 390 px, axe, no
 * sideways scrolling.
 */

async function call(path: string, token: string): Promise<{ status: number; requestId: string }> {
  const res = await fetch(`${server.apiUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  await res.text();
  return { status: res.status, requestId: res.headers.get("x-request-id")! };
}

test("a developer reads their app's usage and finds a failing request by its id", async ({ browser }) => {
  const foreign: string[] = [];
  const app = await createTestApp(server.databaseUrl, { type: "api", ownerHandle: "carol", scopes: ["svc:directory.read"], name: "Usage journey bot" });
  const idle = await createTestApp(server.databaseUrl, { type: "api", ownerHandle: "carol", scopes: ["svc:directory.read"], name: "Quiet bot" });
  const token = (await (await clientCredentials(app.clientId, app.clientSecret!)).json()) as { access_token: string };

  for (let i = 0; i < 4; i++) expect((await call("/users/alice", token.access_token)).status).toBe(200);
  expect((await call("/users?limit=3", token.access_token)).status).toBe(200);
  const failed = await call("/users/no-such-person-e2e", token.access_token);
  expect(failed.status).toBe(404);
  expect((await call("/global-chat/messages", token.access_token)).status).toBe(403);
  // Wait for the server's flush (every 500 ms here).
  await expect
    .poll(async () => (await query<{ n: number }>(server.databaseUrl, `SELECT coalesce(sum(count), 0)::int AS n FROM "UsageCount" WHERE "clientId" = $1`, [app.clientId]))[0]!.n, { timeout: 15_000 })
    .toBe(8);

  const page = await (await newContext(browser, foreign)).newPage();
  await signIn(page, "carol", `/apps/${app.clientId}/usage`);
  await expect(page.getByRole("heading", { name: "Usage journey bot" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Usage" })).toHaveAttribute("aria-current", "page");
  // The counts equal the calls made: 7 API requests (the token request is shown with the routes).
  await expect(page.getByTestId("usage-totals").locator("dd").first()).toHaveText("7");
  await expect(page.getByRole("region", { name: "Top routes" }).getByRole("row", { name: /GET \/users\/\{username\}/ })).toContainText("5");
  await expect(page.getByTestId("requests-chart")).toBeVisible();
  await expect(page.getByRole("img", { name: /Requests over time by status class/ })).toBeVisible();
  await expect(page.getByTestId("errors-chart")).toHaveAttribute("aria-label", /404 not_found/);

  const failingRow = page.getByTestId("request-log-row").filter({ hasText: failed.requestId });
  await expect(failingRow).toContainText("404");
  await expect(failingRow).toContainText("not_found");
  await expect(failingRow).toContainText("GET /users/{username}");
  await expectAccessible(page, "usage tab");
  await expectNoHorizontalOverflow(page);
  await screenshot(page, "usage-tab");

  // A support ticket quotes the request id: searching finds exactly that request.
  await page.getByLabel("Request id").fill(failed.requestId);
  await page.getByRole("button", { name: "Search" }).click();
  await page.waitForURL(/request_id=/);
  await expect(page.getByTestId("request-log-row")).toHaveCount(1);
  await expect(page.getByTestId("request-log-row")).toContainText("not_found");
  // Only the errors: status filter.
  await page.goto(`${server.url}/apps/${app.clientId}/usage?status=4xx`);
  await expect(page.getByTestId("request-log-row")).toHaveCount(2);
  // Junk in the URL is explained, not a 500.
  await page.goto(`${server.url}/apps/${app.clientId}/usage?range=1y&request_id=${encodeURIComponent("<script>")}`);
  await expect(page.locator("#log-filter-error")).toContainText("not a request id");
  await page.goto(`${server.url}/apps/${app.clientId}/usage?range=7d`);
  await expect(page.getByRole("link", { name: "7d" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByTestId("latency-chart")).toBeVisible();

  // No traffic yet: the page says how to make a first call.
  await page.goto(`${server.url}/apps/${idle.clientId}/usage`);
  await expect(page.getByRole("heading", { name: "No API calls in the last 24 hours" })).toBeVisible();
  await expect(page.getByText("Client credentials with curl")).toBeVisible();
  await expectAccessible(page, "empty usage tab");
  await expectNoHorizontalOverflow(page);
  await screenshot(page, "usage-empty");

  // Someone outside the team does not learn that the app exists.
  const stranger = await (await newContext(browser, foreign)).newPage();
  await signIn(stranger, "bob", "/apps");
  const res = await stranger.goto(`${server.url}/apps/${app.clientId}/usage`);
  expect(res?.status()).toBe(404);

  // Admins: the overview ranks the app and links to its Usage tab.
  const admin = await (await newContext(browser, foreign)).newPage();
  await signIn(admin, "admin", "/admin/usage");
  const link = admin.getByRole("link", { name: new RegExp(app.clientId) }).first();
  await expect(link).toBeVisible();
  await expectAccessible(admin, "admin usage");
  await expectNoHorizontalOverflow(admin);
  await screenshot(admin, "admin-usage");
  await link.click();
  await admin.waitForURL(new RegExp(`/apps/${app.clientId}/usage$`));
  await expect(admin.getByTestId("requests-chart")).toBeVisible();

  expect(foreign).toEqual([]);
});
