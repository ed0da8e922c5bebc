import { expect, test, type Page } from "@playwright/test";
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
 * A developer's app makes API calls, one of them failing; the developer opens the app's
 * Usage tab, sees the requests chart and the failing request with its error code, and finds a
 * request by the X-Request-Id from a support ticket. An app without traffic shows how to make a
 * first call; admins see the app in the usage overview. Screenshots at 1280 and 390 px, axe, no
 * sideways scrolling. The tab's Live / Sandbox switch and the reviewer's sandbox panel.
 */

async function call(path: string, token: string, method = "GET"): Promise<{ status: number; requestId: string }> {
  const res = await fetch(`${server.apiUrl}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
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
  await page.getByRole("textbox", { name: "Request id" }).fill(failed.requestId);
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
  await expect(page.getByRole("link", { name: "7d", exact: true })).toHaveAttribute("aria-current", "page");
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
  // The platform's figures are the sums of Most traffic's rows (its "other apps" row included).
  const figure = async (id: string) => Number(((await admin.getByTestId(`platform-figure-${id}-value`).textContent()) ?? "").replace(/[^0-9]/g, ""));
  const column = async (id: string) =>
    (await admin.getByTestId("most-traffic").getByTestId(id).evaluateAll((cells) => cells.map((c) => Number(c.getAttribute("data-count"))))).reduce((n, c) => n + c, 0);
  expect(await figure("requests")).toBeGreaterThanOrEqual(8);
  expect(await column("traffic-requests"), "Requests = the sum of the Most traffic rows").toBe(await figure("requests"));
  expect(await column("traffic-errors"), "Errors = the sum of the Most traffic rows").toBe(await figure("errors"));
  expect(await column("traffic-limited"), "Rate limited = the sum of the Most traffic rows").toBe(await figure("limited"));
  await expect(admin.getByTestId("requests-chart")).toBeVisible();
  await expectAccessible(admin, "admin usage");
  await expectNoHorizontalOverflow(admin);
  await screenshot(admin, "admin-usage");
  await link.click();
  await admin.waitForURL(new RegExp(`/apps/${app.clientId}/usage$`));
  await expect(admin.getByTestId("requests-chart")).toBeVisible();

  expect(foreign).toEqual([]);
});

/** The number a figure or cell shows ("1,234" → 1234). */
const count = (text: string | null) => Number((text ?? "").replace(/[^0-9]/g, ""));

/**
 * The Usage tab's figures are the sums of its tables' rows — Requests and its error count
 * of the Top routes rows (an "other routes" row included), the token requests of the token rows,
 * Rate limited of the 429s in Errors by code.
 */
async function expectFiguresAddUp(page: Page): Promise<{ requests: number; tokens: number }> {
  const requests = count(await page.getByTestId("usage-figure-requests").locator("dd").first().textContent());
  const table = page.getByTestId("top-routes");
  const calls = (await table.getByTestId("top-routes-api").getByTestId("route-calls").allTextContents()).map(count);
  expect(calls.reduce((n, c) => n + c, 0), "Requests = the sum of the Top routes rows").toBe(requests);
  expect(count(await table.getByTestId("top-routes-total").locator("td").first().textContent())).toBe(requests);
  const errors = (await table.getByTestId("top-routes-api").getByTestId("route-errors").evaluateAll((cells) => cells.map((c) => c.getAttribute("data-count")))).map(count);
  const errorSum = errors.reduce((n, c) => n + c, 0);
  const errorNote = page.getByTestId("usage-figure-error-rate-note");
  if (requests > 0) await expect(errorNote).toHaveText(`${errorSum.toLocaleString("en")} of ${requests.toLocaleString("en")}`);
  const chart = page.getByTestId("errors-chart");
  const byCode = (await chart.count()) ? ((await chart.getAttribute("aria-label")) ?? "") : "";
  const codeCounts = [...byCode.matchAll(/([0-9]+) × ([0-9]{3}) /g)];
  expect(codeCounts.reduce((n, m) => n + Number(m[1]), 0), "Errors by code add up to the errors of the rows").toBe(errorSum);
  const limited = codeCounts.filter((m) => m[2] === "429").reduce((n, m) => n + Number(m[1]), 0);
  await expect(page.getByTestId("usage-figure-limited").locator("dd").first()).toHaveText(limited.toLocaleString("en"));
  const tokenRows = (await table.getByTestId("top-routes-token").getByTestId("route-calls").allTextContents()).map(count);
  const tokens = tokenRows.reduce((n, c) => n + c, 0);
  if (tokens > 0) {
    expect(count(await table.getByTestId("token-routes-total").locator("td").first().textContent())).toBe(tokens);
    await expect(page.getByTestId("usage-figure-requests-note")).toHaveText(`and ${tokens.toLocaleString("en")} token requests`);
  } else {
    await expect(page.getByTestId("usage-figure-requests-note")).toHaveCount(0);
  }
  return { requests, tokens };
}

/** Waits until the server's flush put these request ids in the log. */
async function untilLogged(requestIds: string[]): Promise<void> {
  await expect
    .poll(async () => (await query<{ n: number }>(server.databaseUrl, `SELECT count(DISTINCT "requestId")::int AS n FROM "RequestLog" WHERE "requestId" = ANY($1)`, [requestIds]))[0]!.n, {
      timeout: 15_000,
    })
    .toBe(requestIds.length);
}

test("a wrong secret and an unknown path are in the log, each opening its detail view; the figures add up", async ({ browser }) => {
  const foreign: string[] = [];
  const app = await createTestApp(server.databaseUrl, { type: "api", ownerHandle: "carol", scopes: ["svc:directory.read"], name: "Request detail bot" });
  const wrong = await clientCredentials(app.clientId, "definitely-not-the-secret");
  expect(wrong.status).toBe(401);
  const wrongBody = (await wrong.json()) as { error: string; error_description: string };
  expect(wrongBody.error).toBe("invalid_client");
  const wrongId = wrong.headers.get("x-request-id")!;
  const token = ((await (await clientCredentials(app.clientId, app.clientSecret!)).json()) as { access_token: string }).access_token;
  // A valid token to a path no route has (long, with a query that must not be kept), from a client choosing a long request id.
  const longSegment = `a-very-long-path-segment-${"x".repeat(140)}`;
  const longId = `support-${"7".repeat(56)}`;
  const missing = await fetch(`${server.apiUrl}/no-such-endpoint/${longSegment}?secret_hint=do-not-keep`, {
    headers: { authorization: `Bearer ${token}`, "x-request-id": longId },
  });
  expect(missing.status).toBe(404);
  const missingBody = (await missing.json()) as { error: { code: string; message: string } };
  expect(missing.headers.get("x-request-id")).toBe(longId);
  const ok = await fetch(`${server.apiUrl}/users/alice`, { headers: { authorization: `Bearer ${token}` } });
  expect(ok.status).toBe(200);
  const okId = ok.headers.get("x-request-id")!;
  await ok.text();
  for (const path of ["/users/no-such-person-e2e", "/me", "/users?limit=2"]) await call(path, token);
  await untilLogged([wrongId, longId, okId]);

  const page = await (await newContext(browser, foreign)).newPage();
  await signIn(page, "carol", `/apps/${app.clientId}/usage`);
  // 5 API requests (the unknown path among them), 1 token request, 1 unauthenticated caller.
  await expect(page.getByTestId("usage-figure-requests").locator("dd").first()).toHaveText("5");
  expect(await expectFiguresAddUp(page)).toEqual({ requests: 5, tokens: 1 });
  await expect(page.getByTestId("unauthenticated-callers")).toContainText("invalid_client");
  await expectAccessible(page, "usage tab, long data");
  await expectNoHorizontalOverflow(page);
  await screenshot(page, "usage-request-log-long");

  // The wrong secret: its row opens the detail view.
  const wrongRow = page.locator(`[data-testid="request-log-row"][data-request-id="${wrongId}"]`);
  await expect(wrongRow).toContainText("401");
  await expect(wrongRow).toContainText("invalid_client");
  await expect(wrongRow).toContainText("Unauthenticated");
  await expect(wrongRow.getByRole("button", { name: `Copy request id ${wrongId}` })).toBeVisible();
  await wrongRow.getByRole("link", { name: `Details of request ${wrongId}` }).click();
  await page.waitForURL(new RegExp(`/apps/${app.clientId}/usage/requests/${wrongId}$`));
  const detail = page.getByTestId("request-detail");
  await expect(detail.getByTestId("detail-request-id")).toContainText(wrongId);
  await expect(detail.getByRole("button", { name: "Copy request id" })).toBeVisible();
  await expect(detail.getByTestId("detail-status")).toHaveText("401");
  await expect(detail.getByTestId("detail-error-code")).toHaveText("invalid_client");
  await expect(detail.getByTestId("detail-error-message")).toHaveText(wrongBody.error_description);
  await expect(detail.getByTestId("detail-grant-type")).toContainText("client_credentials");
  await expect(detail.getByTestId("detail-grant-type")).toContainText("did not prove to be this app");
  await expect(detail.getByTestId("detail-user")).toContainText("None");
  await expectAccessible(page, "request detail, token request");
  await expectNoHorizontalOverflow(page);

  // The 404 with a valid token: the path without its query, the message as returned.
  await page.goto(`${server.url}/apps/${app.clientId}/usage`);
  const missingRow = page.locator(`[data-testid="request-log-row"][data-request-id="${longId}"]`);
  await expect(missingRow).toContainText("404");
  await expect(missingRow).toContainText(`/api/v1/no-such-endpoint/${longSegment}`);
  await missingRow.getByRole("link", { name: `Details of request ${longId}` }).click();
  await page.waitForURL(new RegExp(`/usage/requests/${longId}$`));
  await expect(detail.getByTestId("detail-route")).toContainText(`GET /api/v1/no-such-endpoint/${longSegment}`);
  await expect(detail.getByTestId("detail-route")).not.toContainText("do-not-keep");
  await expect(detail.getByTestId("detail-status")).toHaveText("404");
  await expect(detail.getByTestId("detail-error-code")).toHaveText("not_found");
  await expect(detail.getByTestId("detail-error-message")).toHaveText(missingBody.error.message);
  await expect(detail.getByTestId("detail-grant-type")).toHaveCount(0);
  await expectAccessible(page, "request detail, unknown path");
  await expectNoHorizontalOverflow(page);
  await screenshot(page, "usage-request-detail");

  // A call that passed: the rate-limit state its answer announced.
  await page.goto(`${server.url}/apps/${app.clientId}/usage/requests/${okId}`);
  await expect(detail.getByTestId("detail-route")).toContainText("GET /users/{username}");
  await expect(detail.getByTestId("detail-rate-limit")).toContainText(
    `${Number(ok.headers.get("x-ratelimit-remaining")).toLocaleString("en")} of ${Number(ok.headers.get("x-ratelimit-limit")).toLocaleString("en")} left`,
  );
  await page.getByRole("link", { name: "Request log" }).click();
  await page.waitForURL(new RegExp(`/apps/${app.clientId}/usage(#request-log)?$`));

  // Only the app's team and admins: someone else does not learn that the request (or the app) exists.
  const stranger = await (await newContext(browser, foreign)).newPage();
  await signIn(stranger, "bob", "/apps");
  expect((await stranger.goto(`${server.url}/apps/${app.clientId}/usage/requests/${wrongId}`))?.status()).toBe(404);
  const admin = await (await newContext(browser, foreign)).newPage();
  await signIn(admin, "admin", `/apps/${app.clientId}/usage/requests/${wrongId}`);
  await expect(admin.getByTestId("detail-error-code")).toHaveText("invalid_client");
  // An id the log does not hold, or junk, is the 404 page.
  expect((await page.goto(`${server.url}/apps/${app.clientId}/usage/requests/not-a-logged-id`))?.status()).toBe(404);
  expect((await page.goto(`${server.url}/apps/${app.clientId}/usage/requests/${encodeURIComponent("<bad>")}`))?.status()).toBe(404);
  expect(foreign).toEqual([]);
});

test("the figures add up with more routes than Top routes names, with rate-limited calls, and page by page", async ({ browser }) => {
  const foreign: string[] = [];
  const app = await createTestApp(server.databaseUrl, { type: "api", ownerHandle: "carol", scopes: ["svc:directory.read"], name: "Many routes bot" });
  const token = ((await (await clientCredentials(app.clientId, app.clientSecret!)).json()) as { access_token: string }).access_token;
  // Every GET route of the API (most answer 403 for this app's scope), round after round: more than ten routes, more than a page of rows.
  const doc = (await (await fetch(`${server.apiUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  const routes = Object.entries(doc.paths)
    .filter(([path]) => path !== "/events")
    .flatMap(([path, ops]) => Object.keys(ops).filter((m) => m === "get" || m === "post").map((m) => ({ method: m.toUpperCase(), path: path.replace(/\{[^}]+\}/g, "alice") })));
  // And one path no route has: eleven routes and "(no route)".
  routes.push({ method: "GET", path: "/no-such-route-e2e" });
  expect(routes.length).toBeGreaterThan(11);
  const made: string[] = [];
  const rounds = Math.ceil(51 / routes.length);
  for (let round = 0; round < rounds; round++) {
    for (const { method, path } of routes.slice(0, round === rounds - 1 ? 3 : routes.length)) made.push((await call(path, token, method)).requestId);
  }
  expect(made.length + 1).toBeGreaterThan(50);
  await untilLogged(made);

  const page = await (await newContext(browser, foreign)).newPage();
  await signIn(page, "carol", `/apps/${app.clientId}/usage`);
  const { requests } = await expectFiguresAddUp(page);
  expect(requests).toBe(made.length);
  await expect(page.getByTestId("top-routes-api")).toContainText("other routes");

  // Keyset pages: 50 rows, then the rest, each request once.
  const ids = async () => page.getByTestId("request-log-row").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-request-id")!));
  const first = await ids();
  expect(first).toHaveLength(50);
  await page.getByRole("link", { name: "Older requests" }).click();
  await page.waitForURL(/before=/);
  const second = await ids();
  expect(new Set([...first, ...second]).size).toBe(made.length + 1);
  await page.getByRole("link", { name: "Newest requests" }).click();
  await page.waitForURL((url) => !url.search.includes("before="));

  // Rate limited: an app at 2 requests a minute.
  const limited = await createTestApp(server.databaseUrl, { type: "api", ownerHandle: "carol", scopes: ["svc:directory.read"], name: "Limited bot" });
  await cliJson(server.databaseUrl, ["apps", "limit", limited.clientId, "--per-minute", "2"]);
  const limitedToken = ((await (await clientCredentials(limited.clientId, limited.clientSecret!)).json()) as { access_token: string }).access_token;
  const statuses: number[] = [];
  const limitedIds: string[] = [];
  for (let i = 0; i < 4; i++) {
    const r = await call("/users/alice", limitedToken);
    statuses.push(r.status);
    limitedIds.push(r.requestId);
  }
  expect(statuses).toEqual([200, 200, 429, 429]);
  await untilLogged(limitedIds);
  await page.goto(`${server.url}/apps/${limited.clientId}/usage`);
  expect(await expectFiguresAddUp(page)).toEqual({ requests: 4, tokens: 1 });
  await expect(page.getByTestId("usage-figure-limited").locator("dd").first()).toHaveText("2");
  // The time window: a window that ended before the calls holds none of them.
  await page.getByLabel("Until (UTC)").fill("2020-01-01T00:00");
  await page.getByRole("button", { name: "Search" }).click();
  await page.waitForURL(/until=2020-01-01T00%3A00/);
  await expect(page.getByTestId("request-log-empty")).toBeVisible();
  expect(foreign).toEqual([]);
});

/** An approved app with live and sandbox calls; the sandbox's secret from the CLI. */
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
  expect(await expectFiguresAddUp(page)).toEqual({ requests: 2, tokens: 1 });
  // The log also lists each token request (`token:client_credentials`), one per mode here.
  const apiRows = (selector = '[data-testid="request-log-row"]') => page.locator(selector).filter({ hasNotText: "token:" });
  await expect(apiRows()).toHaveCount(2);
  await expect(page.getByTestId("request-log-row")).toHaveCount(3);

  await modes.getByRole("link", { name: "Sandbox" }).click();
  await page.waitForURL(/mode=sandbox/);
  await expect(modes.getByRole("link", { name: "Sandbox" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByTestId("usage-totals").locator("dd").first()).toHaveText("4");
  expect(await expectFiguresAddUp(page)).toEqual({ requests: 4, tokens: 1 });
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
