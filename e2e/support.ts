import AxeBuilder from "@axe-core/playwright";
import { expect, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { createHash } from "node:crypto";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { DEMO_ACCOUNTS } from "../lib/seed/demo-accounts";
import { query } from "../tests/helpers/db";
import { server } from "./server";

export { server };

/** Screenshots of each main page at desktop and phone widths, kept whether the journeys pass or not. */
const SHOTS = path.resolve(import.meta.dirname, "..", "test-results", "screenshots");

/** The fake login client's redirect URI: nothing listens there; the browser's request is intercepted. */
export const CALLBACK = "http://127.0.0.1:9/callback";

export const password = (handle: string) => DEMO_ACCOUNTS.find((a) => a.handle === handle)!.password;

/**
 * A desktop-sized context that may reach only our server (and the login client's fake callback).
 * Anything else is aborted and its URL pushed onto `foreignRequests`, which each spec checks is
 * empty: the pages load no remote fonts, scripts or telemetry.
 */
export async function newContext(browser: Browser, foreignRequests: string[]): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const origin = server.url;
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
    if (url.startsWith(CALLBACK)) return route.fulfill({ status: 200, contentType: "text/plain", body: "callback" });
    foreignRequests.push(url);
    return route.abort();
  });
  return context;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(150);
  await page.screenshot({ path: path.join(SHOTS, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** axe on the current page: no serious or critical violations (WCAG 2 A/AA rules). */
export async function expectAccessible(page: Page, label: string): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const bad = results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${label}: ${v.id} (${v.impact}) ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`);
  expect(bad).toEqual([]);
}

/** Nothing wider than the viewport (a long name, a secret id or a URL pushing the page sideways). */
export async function expectNoHorizontalOverflow(page: Page): Promise<void> {
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(100);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, `horizontal overflow at ${width} px`).toBeLessThanOrEqual(0);
  }
}

/** Signs in through the portal's sign-in page and the platform's hosted login page. */
export async function signIn(page: Page, handle: string, target = "/apps"): Promise<void> {
  await page.goto(`${server.url}${target}`);
  await page.waitForURL(/\/signin\?/);
  await page.getByRole("button", { name: "Continue with your platform account" }).click();
  await page.waitForURL(/\/interaction\//);
  await page.getByLabel("Username").fill(handle);
  await page.getByLabel("Password").fill(password(handle));
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL(`${server.url}${target}`);
}

export async function registerApp(
  page: Page,
  app: { name: string; type: "api" | "login"; scopes: string[]; redirectUri?: string },
): Promise<string> {
  await page.goto(`${server.url}/apps/new`);
  await page.getByLabel("Application name").fill(app.name);
  await page.getByLabel("Description").fill(`${app.name}: an end-to-end test application.`);
  if (app.type === "login") await page.getByText("Login client", { exact: true }).click();
  for (const scope of app.scopes) await page.getByRole("checkbox", { name: new RegExp(`^${scope.replace(".", "\\.")}`) }).check();
  if (app.redirectUri) await page.getByLabel("Redirect URIs 1", { exact: true }).fill(app.redirectUri);
  await page.getByRole("button", { name: "Register application" }).click();
  await page.waitForURL(/\/apps\/(api|app)_[A-Za-z0-9]+$/);
  return page.url().split("/").pop()!;
}

export function clientCredentials(clientId: string, clientSecret: string): Promise<Response> {
  return fetch(`${server.issuer}/protocol/openid-connect/token`, {
    method: "POST",
    body: new URLSearchParams({ grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret }),
  });
}

export function readChat(accessToken: string): Promise<Response> {
  return fetch(`${server.apiUrl}/global-chat/messages?limit=2`, { headers: { authorization: `Bearer ${accessToken}` } });
}

export async function expectOAuthError(response: Promise<Response>, error: string): Promise<void> {
  const res = await response;
  expect(res.status).toBe(401);
  expect(((await res.json()) as { error: string }).error).toBe(error);
}

/** A voided (or expired) access token: 401 invalid_token at the API. */
export async function expectInvalidToken(accessToken: string): Promise<void> {
  const res = await readChat(accessToken);
  expect(res.status).toBe(401);
  expect(((await res.json()) as { error: { code: string } }).error.code).toBe("invalid_token");
}

/** The id of the stored secret with this value (the database holds only its hash). */
export async function secretId(secret: string): Promise<string> {
  const hash = createHash("sha256").update(secret).digest("hex");
  const rows = await query<{ id: string }>(server.databaseUrl, `SELECT id FROM "ClientSecret" WHERE hash = $1`, [hash]);
  return rows[0]!.id;
}

export async function appStatus(clientId: string): Promise<string> {
  const rows = await query<{ status: string }>(server.databaseUrl, `SELECT status FROM "Application" WHERE "clientId" = $1`, [clientId]);
  return rows[0]!.status;
}

export { query };
