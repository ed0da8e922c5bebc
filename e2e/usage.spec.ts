import { expect, test } from "@playwright/test";
import { cliJson } from "../tests/helpers/cli";
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
 * sideways scrolling. Issue 26: the tab's Live / Sandbox switch and the reviewer's sandbox panel.
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

/** Issue 26: an approved app with live and sandbox calls; the sandbox's secret from the CLI. */
async function appWithSandboxCalls(name: string): Promise<{ clientId: string; sandboxClientId: string; sandboxFailed: string }> {
  const app = await createTestApp(server.databaseUrl, { type: "api", ownerHandle: "carol", scopes: ["svc:directory.read", "svc:chat.read"], name });
  const rolled = await cliJson<{ client_id: string; client_secret: string }>(server.databaseUrl, ["apps", "sandbox", "secret", "roll", app.clientId]);
  const live = (await (await clientCredentials(app.clientId, app.clientSecret!)).json()) as { access_token: string };
  const sandbox = (await (await clientCredentials(rolled.client_id, rolled.client_secret)).json()) as { access_token: string };
  for (let i = 0; i < 2; i++) expect((await call("/users/alice", live.access_token)).status).toBe(200);
  for (let i = 0; i < 3; i++) expect((await call("/global-chat/messages?limit=1", sandbox.access_token)).status).toBe(200);
  const failed = await call("/users/alice", sandbox.access_token);
  expect(failed.status).toBe(404);
  const flushed = (clientId: string) =>
    expect
      .poll(async () => (await query<{ n: number }>(server.databaseUrl, `SELECT coalesce(sum(count), 0)::int AS n FROM "UsageCount" WHERE "clientId" = $1`, [clientId]))[0]!.n, { timeout: 15_000 });
  await flushed(app.clientId).toBe(3);
  await flushed(rolled.client_id).toBe(5);
  return { clientId: app.clientId, sandboxClientId: rolled.client_id, sandboxFailed: failed.requestId };
}

test("the Usage tab switches between live and sandbox, with its own quota, and the log marks sandbox rows", async ({ browser }) => {
  const foreign: string[] = [];
  const app = await appWithSandboxCalls("Sandbox usage bot");
  const page = await (await newContext(browser, foreign)).newPage();
  await signIn(page, "carol", `/apps/${app.clientId}/usage`);
  const modes = page.getByRole("navigation", { name: "Live or sandbox" });
  await expect(modes.getByRole("link", { name: "Live" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByTestId("usage-totals").locator("dd").first()).toHaveText("2");
  // The log also lists each token request (issue 27: `token:client_credentials`), one per mode here.
  const apiRows = (selector = '[data-testid="request-log-row"]') => page.locator(selector).filter({ hasNotText: "token:" });
  await expect(apiRows()).toHaveCount(2);
  await expect(page.getByTestId("request-log-row")).toHaveCount(3);

  await modes.getByRole("link", { name: "Sandbox" }).click();
  await page.waitForURL(/mode=sandbox/);
  await expect(modes.getByRole("link", { name: "Sandbox" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByTestId("usage-totals").locator("dd").first()).toHaveText("4");
  await expect(page.getByTestId("usage-quota")).toHaveText("600 requests per minute");
  await expect(page.getByTestId("usage-mode-description")).toContainText(app.sandboxClientId);
  await expect(page.getByTestId("errors-chart")).toHaveAttribute("aria-label", /404 not_found/);
  const rows = page.getByTestId("request-log-row");
  await expect(apiRows()).toHaveCount(4);
  await expect(rows).toHaveCount(5);
  await expect(rows.filter({ hasText: app.sandboxFailed })).toContainText("Sandbox");
  await expectAccessible(page, "usage tab, sandbox");
  await expectNoHorizontalOverflow(page);
  await screenshot(page, "usage-sandbox");

  // Both in the log, the sandbox's rows marked; the link is shareable.
  await page.getByLabel("Requests of").selectOption("all");
  await page.getByRole("button", { name: "Search" }).click();
  await page.waitForURL(/log=all/);
  await expect(rows).toHaveCount(8);
  await expect(apiRows('[data-testid="request-log-row"][data-mode="sandbox"]')).toHaveCount(4);
  await expect(apiRows('[data-testid="request-log-row"][data-mode="live"]')).toHaveCount(2);
  expect(foreign).toEqual([]);
});

test("an admin reviewing an app sees how much its sandbox was exercised", async ({ browser }) => {
  const foreign: string[] = [];
  const app = await appWithSandboxCalls("Sandbox review bot");
  const admin = await (await newContext(browser, foreign)).newPage();
  await signIn(admin, "admin", `/apps/${app.clientId}`);
  const panel = admin.getByRole("region", { name: "Sandbox use" });
  await expect(panel).toBeVisible();
  await expect(panel.getByTestId("sandbox-calls")).toHaveText("4");
  await expect(panel.getByTestId("sandbox-endpoint-count")).toHaveText("2");
  await expect(panel.getByTestId("sandbox-errors")).toHaveText("1");
  await expect(panel.getByTestId("sandbox-last-activity")).toContainText(/ago|now/);
  await expect(panel.getByTestId("sandbox-endpoints").getByRole("row", { name: /GET \/global-chat\/messages/ })).toContainText("3");
  await expectAccessible(admin, "app review, sandbox use");
  await expectNoHorizontalOverflow(admin);
  await screenshot(admin, "admin-review-sandbox");
  await panel.getByRole("link", { name: "The sandbox's usage and request log" }).click();
  await admin.waitForURL(/mode=sandbox/);
  await expect(admin.getByTestId("usage-totals").locator("dd").first()).toHaveText("4");
  // The owner's page has no such panel.
  const owner = await (await newContext(browser, foreign)).newPage();
  await signIn(owner, "carol", `/apps/${app.clientId}`);
  await expect(owner.getByRole("heading", { name: "Sandbox review bot" })).toBeVisible();
  await expect(owner.getByTestId("sandbox-exercise")).toHaveCount(0);
  expect(foreign).toEqual([]);
});
