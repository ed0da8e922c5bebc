import AxeBuilder from "@axe-core/playwright";
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_ACCOUNTS } from "../../lib/seed/demo-accounts";
import { query } from "../helpers/db";
import { startServer, type TestServer } from "../helpers/server";

/**
 * The developer portal in real Chromium against the real server (Next, sign-in service, API) on a
 * seeded database: the journeys of issue 5, an axe check of the main pages, and screenshots of each
 * main page at desktop and phone widths under test-results/screenshots/.
 *
 * The steps share one server and build on each other (alice's app is approved by the admin, then
 * used), so they run in order; each `it` is one journey step.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const SHOTS = path.resolve(import.meta.dirname, "..", "..", "test-results", "screenshots");
const STEP = 120_000;
const password = (handle: string) => DEMO_ACCOUNTS.find((a) => a.handle === handle)!.password;

let server: TestServer;
let browser: Browser;
/** Requests the browser tried to make to anything but our server (and the login client's fake callback). */
const foreignRequests: string[] = [];
/** The fake login client's redirect URI: nothing listens there; the browser's request is intercepted. */
const CALLBACK = "http://127.0.0.1:9/callback";

async function newContext(): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(server.url) || url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
    if (url.startsWith(CALLBACK)) return route.fulfill({ status: 200, contentType: "text/plain", body: "callback" });
    foreignRequests.push(url);
    return route.abort();
  });
  return context;
}

async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(150);
  await page.screenshot({ path: path.join(SHOTS, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** axe on the current page: no serious or critical violations (WCAG 2 A/AA rules). */
async function expectAccessible(page: Page, label: string): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const bad = results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${label}: ${v.id} (${v.impact}) ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`);
  expect(bad).toEqual([]);
}

/** Signs in through the portal's sign-in page and the platform's hosted login page. */
async function signIn(page: Page, handle: string, target = "/apps"): Promise<void> {
  await page.goto(`${server.url}${target}`);
  await page.waitForURL(/\/signin\?/);
  await page.getByRole("button", { name: "Continue with your platform account" }).click();
  await page.waitForURL(/\/interaction\//);
  await page.getByLabel("Username").fill(handle);
  await page.getByLabel("Password").fill(password(handle));
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL(`${server.url}${target}`);
}

async function registerApp(
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

async function clientCredentials(clientId: string, clientSecret: string): Promise<Response> {
  return fetch(`${server.issuer}/protocol/openid-connect/token`, {
    method: "POST",
    body: new URLSearchParams({ grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret }),
  });
}

function readChat(accessToken: string): Promise<Response> {
  return fetch(`${server.apiUrl}/global-chat/messages?limit=2`, { headers: { authorization: `Bearer ${accessToken}` } });
}

async function expectOAuthError(response: Promise<Response>, error: string): Promise<void> {
  const res = await response;
  expect(res.status).toBe(401);
  expect(((await res.json()) as { error: string }).error).toBe(error);
}

/** A voided (or expired) access token: 401 invalid_token at the API. */
async function expectInvalidToken(accessToken: string): Promise<void> {
  const res = await readChat(accessToken);
  expect(res.status).toBe(401);
  expect(((await res.json()) as { error: { code: string } }).error.code).toBe("invalid_token");
}

/** The id of the stored secret with this value (the database holds only its hash). */
async function secretId(secret: string): Promise<string> {
  const hash = createHash("sha256").update(secret).digest("hex");
  const rows = await query<{ id: string }>(server.databaseUrl, `SELECT id FROM "ClientSecret" WHERE hash = $1`, [hash]);
  return rows[0]!.id;
}

/** Nothing wider than the viewport (a long name, a secret id or a URL pushing the page sideways). */
async function expectNoHorizontalOverflow(page: Page): Promise<void> {
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(100);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, `horizontal overflow at ${width} px`).toBeLessThanOrEqual(0);
  }
}

async function appStatus(clientId: string): Promise<string> {
  const rows = await query<{ status: string }>(server.databaseUrl, `SELECT status FROM "Application" WHERE "clientId" = $1`, [clientId]);
  return rows[0]!.status;
}

interface CapturedAction {
  url: string;
  headers: Record<string, string>;
  body: string;
}

describe("developer portal in Chromium", () => {
  let alice: Page;
  let admin: Page;
  let apiClientId: string;
  /** The API client's current secret (after rolling). */
  let currentSecret: string;
  // Long on purpose: the app page must not overflow at phone width.
  const apiName = `Chat Reader ${randomBytes(2).toString("hex")} for the Global Chat Moderation Team Digest`;
  const capturedActions: CapturedAction[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`No Chromium at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
    }
    server = await startServer({ seed: true, next: true });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    alice = await (await newContext()).newPage();
    admin = await (await newContext()).newPage();
    admin.on("request", (request) => {
      const headers = request.headers();
      if (request.method() === "POST" && headers["next-action"]) {
        capturedActions.push({ url: request.url(), headers, body: request.postData() ?? "" });
      }
    });
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("serves the public pages with security headers, offline-only assets and no serious a11y issues", { timeout: STEP }, async () => {
    const res = await fetch(`${server.url}/`);
    expect(res.status).toBe(200);
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toMatch(/script-src 'self' 'nonce-[^']+' 'strict-dynamic'/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");

    const page = await (await newContext()).newPage();
    const errors: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    await page.goto(`${server.url}/`);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Build on the platform");
    await expectAccessible(page, "landing");
    await screenshot(page, "landing");

    await page.goto(`${server.url}/docs`);
    await page.getByRole("heading", { name: "Getting started", level: 1 }).waitFor();
    await expectAccessible(page, "docs");
    await screenshot(page, "docs");

    // The authentication page lists every endpoint the discovery document does, at the same URL.
    const discovery = (await (await fetch(`${server.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    const advertised = Object.entries(discovery).filter(([key, value]) => typeof value === "string" && (key.endsWith("_endpoint") || key === "jwks_uri"));
    expect(advertised.map(([key]) => key)).toEqual(
      expect.arrayContaining(["authorization_endpoint", "token_endpoint", "end_session_endpoint", "jwks_uri", "userinfo_endpoint", "introspection_endpoint", "revocation_endpoint"]),
    );
    await page.goto(`${server.url}/docs/authentication`);
    const listed = await page.getByTestId("endpoint-url").allTextContents();
    for (const [key, url] of advertised) expect(listed, key).toContain(url);
    await page.getByRole("heading", { name: "Revocation and rotation" }).waitFor();
    await expectAccessible(page, "docs authentication");
    await screenshot(page, "docs-authentication");

    // The reference is rendered in the browser (Scalar) from the project's own OpenAPI document.
    const openapi = (await (await fetch(`${server.apiUrl}/openapi.json`)).json()) as { info: { title: string } };
    await page.goto(`${server.url}/docs/api-reference`);
    await page.getByRole("heading", { name: openapi.info.title }).first().waitFor({ timeout: 30_000 });
    await screenshot(page, "api-reference");

    await page.goto(`${server.url}/signin`);
    await page.getByRole("heading", { name: "Sign in to the developer portal" }).waitFor();
    await expectAccessible(page, "signin");
    await screenshot(page, "signin");

    expect(errors.filter((e) => !/favicon/.test(e))).toEqual([]);
    await page.context().close();
  });

  it("a developer signs in through the hosted login page and registers an API key client, which is pending", { timeout: STEP }, async () => {
    await signIn(alice, "alice");
    await alice.getByRole("heading", { name: "My apps", level: 1 }).waitFor();

    await alice.goto(`${server.url}/apps/new`);
    await expectAccessible(alice, "new app");
    await screenshot(alice, "app-new");

    apiClientId = await registerApp(alice, { name: apiName, type: "api", scopes: ["svc:chat.read"] });
    expect(apiClientId).toMatch(/^api_/);
    await alice.getByText("Waiting for review", { exact: true }).waitFor();
    expect(await alice.getByText("Pending review").count()).toBeGreaterThan(0);
    // Not approved yet: no secret panel, and no way to get a token.
    expect(await alice.getByTestId("secret-reveal").count()).toBe(0);
    expect(await appStatus(apiClientId)).toBe("pending");

    await alice.goto(`${server.url}/apps`);
    await alice.getByRole("link", { name: new RegExp(apiName) }).waitFor();
    await expectAccessible(alice, "apps list");
    await screenshot(alice, "apps-list");
  });

  it("an admin approves it from the review queue", { timeout: STEP }, async () => {
    await signIn(admin, "admin", "/admin");
    const row = admin.locator(`tr[data-client-id="${apiClientId}"]`);
    await row.waitFor();
    await expectAccessible(admin, "admin queue");
    await screenshot(admin, "admin-queue");
    await row.getByRole("button", { name: `Approve ${apiName}` }).click();
    await admin.getByText(`Approved ${apiName}`).waitFor();
    expect(await appStatus(apiClientId)).toBe("approved");
  });

  it("the developer sees the secret exactly once, uses it, and rotates it: add, retire, roll", { timeout: STEP }, async () => {
    await alice.goto(`${server.url}/apps/${apiClientId}`);
    const panel = alice.getByTestId("secret-reveal");
    const revealed = alice.getByTestId("client-secret");
    const rows = alice.getByTestId("secret-row");
    await panel.waitFor();
    expect(await panel.textContent()).toContain("copy it now, it will not be shown again");
    const first = await revealed.inputValue();
    expect(first.length).toBeGreaterThanOrEqual(32);
    await expectAccessible(alice, "app page (secret)");
    await screenshot(alice, "app-approved-secret");

    const tokenRes = await clientCredentials(apiClientId, first);
    expect(tokenRes.status).toBe(200);
    const { access_token: firstToken } = (await tokenRes.json()) as { access_token: string };
    const messages = await readChat(firstToken);
    expect(messages.status).toBe(200);
    expect(((await messages.json()) as { data: { messages: unknown[] } }).data.messages.length).toBeGreaterThan(0);

    // After a reload the secret is gone for good: only its last characters remain, and the only
    // secret cannot be retired.
    await alice.reload();
    await alice.getByRole("button", { name: "Add a second secret" }).waitFor();
    expect(await panel.count()).toBe(0);
    expect(await alice.content()).not.toContain(first);
    expect(await rows.count()).toBe(1);
    expect(await alice.getByTestId("secret-hint").textContent()).toContain(first.slice(-4));
    expect(await alice.getByRole("button", { name: /^Retire/ }).count()).toBe(0);

    // Add a second secret: revealed once, and both secrets get tokens.
    await alice.getByRole("button", { name: "Add a second secret" }).click();
    await panel.waitFor();
    await expect.poll(() => revealed.inputValue()).not.toBe("");
    const second = await revealed.inputValue();
    expect(second).not.toBe(first);
    await expect.poll(() => rows.count()).toBe(2);
    expect(await alice.getByRole("button", { name: "Add a second secret" }).isDisabled()).toBe(true);
    await alice.getByText("Retire one to add another.", { exact: false }).waitFor();
    const withFirst = await clientCredentials(apiClientId, first);
    expect(withFirst.status).toBe(200);
    const { access_token: issuedWithFirst } = (await withFirst.json()) as { access_token: string };
    const withSecond = await clientCredentials(apiClientId, second);
    expect(withSecond.status).toBe(200);
    const { access_token: issuedWithSecond } = (await withSecond.json()) as { access_token: string };
    await screenshot(alice, "app-two-secrets-revealed");
    // Reloaded (no toast on screen): the list of two, as the owner sees it from now on.
    await alice.reload();
    await expect.poll(() => rows.count()).toBe(2);
    expect(await panel.count()).toBe(0);
    await expectAccessible(alice, "app page (two secrets)");
    await screenshot(alice, "app-two-secrets");
    await expectNoHorizontalOverflow(alice);

    // Retire the first: it fails at once; the token issued with it keeps working.
    const firstId = await secretId(first);
    await alice.locator(`[data-secret-id="${firstId}"]`).getByRole("button", { name: `Retire the secret ending in ${first.slice(-4)}` }).click();
    const retire = alice.getByRole("dialog", { name: `Retire the secret ending in ${first.slice(-4)}?` });
    await retire.waitFor();
    const retireText = await retire.textContent();
    expect(retireText).toContain("Token requests with this secret fail with invalid_client at once.");
    expect(retireText).toContain("Access tokens already issued with it keep working until they expire.");
    await screenshot(alice, "app-retire-dialog");
    await retire.getByRole("button", { name: "Retire secret" }).click();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await alice.locator(`[data-secret-id="${firstId}"]`).count()).toBe(0);
    await expectOAuthError(clientCredentials(apiClientId, first), "invalid_client");
    expect((await readChat(issuedWithFirst)).status).toBe(200);
    expect((await clientCredentials(apiClientId, second)).status).toBe(200);

    // Roll: one new secret; the old one fails, and every token issued before the roll is void.
    await alice.getByRole("button", { name: "Roll secret" }).click();
    const roll = alice.getByRole("dialog", { name: "Roll the client secret?" });
    await roll.waitFor();
    expect(await roll.textContent()).toContain("every access token of the app is revoked at once");
    await screenshot(alice, "app-roll-dialog");
    await roll.getByRole("button", { name: "Roll secret" }).click();
    await expect.poll(() => revealed.inputValue()).not.toBe(second);
    const rolled = await revealed.inputValue();
    expect([first, second]).not.toContain(rolled);
    await expect.poll(() => rows.count()).toBe(1);
    await expectOAuthError(clientCredentials(apiClientId, second), "invalid_client");
    for (const token of [firstToken, issuedWithFirst, issuedWithSecond]) await expectInvalidToken(token);
    const fresh = await clientCredentials(apiClientId, rolled);
    expect(fresh.status).toBe(200);
    expect((await readChat(((await fresh.json()) as { access_token: string }).access_token)).status).toBe(200);
    currentSecret = rolled;

    await alice.reload();
    await alice.getByRole("button", { name: "Roll secret" }).waitFor();
    expect(await panel.count()).toBe(0);
    expect(await rows.count()).toBe(1);
  });

  it("a rejected app shows the admin's reason to its owner", { timeout: STEP }, async () => {
    const name = `Vague App ${randomBytes(2).toString("hex")}`;
    const clientId = await registerApp(alice, { name, type: "api", scopes: [] });
    const reason = "Say what the app does with the chat before we can approve it.";

    await admin.goto(`${server.url}/admin`);
    const row = admin.locator(`tr[data-client-id="${clientId}"]`);
    await row.getByRole("button", { name: `Reject ${name}` }).click();
    const dialog = admin.getByRole("dialog", { name: `Reject ${name}?` });
    await dialog.getByLabel("Reason").fill(reason);
    await dialog.getByRole("button", { name: "Reject application" }).click();
    await admin.getByText(`Rejected ${name}`).waitFor();

    await alice.goto(`${server.url}/apps/${clientId}`);
    expect(await alice.getByTestId("status-reason").textContent()).toBe(reason);
    expect(await alice.getByTestId("secret-reveal").count()).toBe(0);
    await screenshot(alice, "app-rejected");

    // The owner edits it, then deletes it.
    await alice.goto(`${server.url}/apps/${clientId}/edit`);
    await alice.getByLabel("Description").fill("Builds a daily digest of the global chat.");
    await alice.getByRole("button", { name: "Save changes" }).click();
    await alice.waitForURL(`${server.url}/apps/${clientId}`);
    await alice.getByText("Builds a daily digest of the global chat.").waitFor();
    await alice.getByRole("button", { name: "Delete application" }).click();
    const confirm = alice.getByRole("dialog", { name: `Delete ${name}?` });
    await confirm.getByRole("textbox").fill(name);
    await confirm.getByRole("button", { name: "Delete application" }).click();
    await alice.waitForURL(`${server.url}/apps`);
    const left = await query(server.databaseUrl, `SELECT 1 FROM "Application" WHERE "clientId" = $1`, [clientId]);
    expect(left).toHaveLength(0);
  });

  it("an admin suspends an approved app (the owner sees why, tokens stop) and reinstates it", { timeout: STEP }, async () => {
    const reason = "Polling the chat far too often; back off and we will reinstate it.";
    const before = await clientCredentials(apiClientId, currentSecret);
    expect(before.status).toBe(200);
    const { access_token: beforeSuspension } = (await before.json()) as { access_token: string };
    expect((await readChat(beforeSuspension)).status).toBe(200);
    await admin.goto(`${server.url}/apps/${apiClientId}`);
    // An admin sees the secrets' hints, never a value and no way to change them.
    await admin.getByText("Only the owner can see or manage secrets.").waitFor();
    expect(await admin.getByTestId("secret-row").count()).toBe(1);
    for (const name of ["Add a second secret", "Roll secret", /^Retire/]) {
      expect(await admin.getByRole("button", { name }).count()).toBe(0);
    }
    await admin.getByRole("button", { name: `Suspend ${apiName}` }).click();
    const suspend = admin.getByRole("dialog", { name: `Suspend ${apiName}?` });
    await suspend.waitFor();
    expect(await suspend.textContent()).toContain("Reinstating does not revive them");
    await suspend.getByRole("button", { name: "Cancel" }).click();
    await admin.getByRole("button", { name: `Suspend ${apiName}` }).click();
    const dialog = admin.getByRole("dialog", { name: `Suspend ${apiName}?` });
    await dialog.getByLabel("Reason").fill(reason);
    await dialog.getByRole("button", { name: "Suspend application" }).click();
    await admin.getByText(`Suspended ${apiName}`, { exact: true }).waitFor();
    expect(await appStatus(apiClientId)).toBe("suspended");
    // An admin never sees (or consumes) the owner's secret.
    expect(await admin.getByTestId("secret-reveal").count()).toBe(0);

    await alice.goto(`${server.url}/apps/${apiClientId}`);
    expect(await alice.getByTestId("status-reason").textContent()).toBe(reason);
    await expectOAuthError(clientCredentials(apiClientId, currentSecret), "invalid_client");
    await expectInvalidToken(beforeSuspension);
    // The owner still sees the secrets' hints, but cannot change them while the app is suspended.
    expect(await alice.getByTestId("secret-row").count()).toBe(1);
    expect(await alice.getByRole("button", { name: "Roll secret" }).count()).toBe(0);

    await admin.getByRole("button", { name: `Reinstate ${apiName}` }).click();
    await admin.getByText(`Reinstated ${apiName}`, { exact: true }).waitFor();
    // Reinstating does not revive the tokens the suspension voided; new ones work.
    await expectInvalidToken(beforeSuspension);
    const fresh = await clientCredentials(apiClientId, currentSecret);
    expect(fresh.status).toBe(200);
    expect((await readChat(((await fresh.json()) as { access_token: string }).access_token)).status).toBe(200);
  });

  it("a developer registers a login client, signs in through it with PKCE and calls GET /me", { timeout: STEP }, async () => {
    const name = `Sign-in Demo ${randomBytes(2).toString("hex")}`;
    const clientId = await registerApp(alice, { name, type: "login", scopes: ["svc:chat.read"], redirectUri: CALLBACK });
    expect(clientId).toMatch(/^app_/);
    await admin.goto(`${server.url}/admin`);
    await admin.locator(`tr[data-client-id="${clientId}"]`).getByRole("button", { name: `Approve ${name}` }).click();
    await admin.getByText(`Approved ${name}`).waitFor();

    await alice.goto(`${server.url}/apps/${clientId}`);
    await alice.getByText("Approved", { exact: true }).first().waitFor();
    // A login client never shows a secret, and its quickstart is the PKCE flow.
    expect(await alice.getByTestId("secret-reveal").count()).toBe(0);
    expect(await alice.getByRole("button", { name: "Roll secret" }).count()).toBe(0);
    await alice.getByText("code_challenge_method").first().waitFor();
    await screenshot(alice, "app-login-client");

    const verifier = randomBytes(32).toString("base64url");
    const state = randomBytes(16).toString("base64url");
    const authorize = new URL(`${server.issuer}/protocol/openid-connect/auth`);
    authorize.search = new URLSearchParams({
      client_id: clientId,
      response_type: "code",
      redirect_uri: CALLBACK,
      scope: "openid",
      state,
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
    }).toString();
    // alice already has a platform session (from signing in to the portal): only consent is asked.
    await alice.goto(authorize.href);
    await alice.getByRole("button", { name: "Allow" }).click();
    await alice.waitForURL((url) => url.href.startsWith(CALLBACK));
    const callback = new URL(alice.url());
    expect(callback.searchParams.get("state")).toBe(state);
    const code = callback.searchParams.get("code");
    expect(code).toBeTruthy();

    const tokenRes = await fetch(`${server.issuer}/protocol/openid-connect/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "authorization_code", client_id: clientId, code: code!, redirect_uri: CALLBACK, code_verifier: verifier }),
    });
    expect(tokenRes.status).toBe(200);
    const tokens = (await tokenRes.json()) as { access_token: string; id_token: string };
    expect(tokens.id_token).toBeTruthy();
    const me = await fetch(`${server.apiUrl}/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(me.status).toBe(200);
    const profile = (await me.json()) as { user: { username: string }; isOwnProfile: boolean };
    expect(profile.user.username).toBe("alice");
    expect(profile.isOwnProfile).toBe(true);
  });

  it("admin pages render for an admin (users, audit log) and record who did what", { timeout: STEP }, async () => {
    await admin.goto(`${server.url}/admin/users?q=mallory`);
    const row = admin.locator('tr[data-handle="mallory"]');
    await row.waitFor();
    // Unmute then mute again (mallory is muted in the demo data), capturing the action for the next step.
    await row.getByRole("button", { name: "Unmute @mallory" }).click();
    await admin.getByText("Unmuted @mallory", { exact: true }).waitFor();
    await row.getByRole("button", { name: "Mute @mallory" }).click();
    await admin.getByText("Muted @mallory", { exact: true }).waitFor();

    await admin.goto(`${server.url}/admin/users`);
    await expectAccessible(admin, "admin users");
    await screenshot(admin, "admin-users");

    await admin.goto(`${server.url}/admin/audit`);
    await admin.getByRole("heading", { name: "Audit log" }).waitFor();
    const audit = await admin.getByRole("table", { name: "Audit log entries" }).textContent();
    expect(audit).toContain("app.approve");
    expect(audit).toContain("app.reject");
    for (const action of ["app.secret.reveal", "app.secret.add", "app.secret.retire", "app.secret.roll"]) expect(audit).toContain(action);
    expect(audit).toContain("user.mute");
    await expectAccessible(admin, "admin audit");
    await screenshot(admin, "admin-audit");

    await admin.goto(`${server.url}/admin/apps`);
    await admin.locator(`tr[data-client-id="${apiClientId}"]`).waitFor();
    await screenshot(admin, "admin-apps");
  });

  it("a non-admin gets no admin page and no admin action, even when calling them directly", { timeout: STEP }, async () => {
    for (const pathname of ["/admin", "/admin/apps", "/admin/users", "/admin/audit"]) {
      const response = await alice.goto(`${server.url}${pathname}`);
      expect(response?.status(), pathname).toBe(403);
      await alice.getByRole("heading", { name: "You don't have access to this page" }).waitFor();
      expect(await alice.getByRole("table").count()).toBe(0);
    }
    await screenshot(alice, "forbidden");
    expect(await alice.getByRole("link", { name: "Admin" }).count()).toBe(0);

    // Replay the admin's own server-action requests from alice's session, against other targets.
    const victimName = `Pending ${randomBytes(2).toString("hex")}`;
    const victim = await registerApp(alice, { name: victimName, type: "api", scopes: [] });
    const approve = capturedActions.find((a) => a.body.includes(apiClientId));
    const mute = capturedActions.find((a) => a.body.includes('"mallory"') && a.body.includes("true"));
    expect(approve, "captured the approve action").toBeTruthy();
    expect(mute, "captured the mute action").toBeTruthy();
    const replays = [
      { action: approve!, body: approve!.body.replace(apiClientId, victim) },
      { action: mute!, body: mute!.body.replace('"mallory"', '"bob"') },
    ];
    for (const { action, body } of replays) {
      const { cookie: _admins, ...headers } = action.headers;
      const res = await alice.request.post(action.url, { headers, data: body });
      const text = await res.text();
      expect(text).toContain('"ok":false');
      expect(text).toContain('"code":"forbidden"');
    }
    expect(await appStatus(victim)).toBe("pending");
    const bob = await query<{ muted: boolean }>(server.databaseUrl, `SELECT muted FROM "User" WHERE handle = 'bob'`);
    expect(bob[0]!.muted).toBe(false);
    const denied = await query<{ n: string }>(
      server.databaseUrl,
      `SELECT count(*) AS n FROM "AuditLog" WHERE "actorHandle" = 'alice' AND outcome = 'denied'`,
    );
    expect(Number(denied[0]!.n)).toBeGreaterThanOrEqual(2);
  });

  it("an unknown app, or someone else's, is a 404 page with status 404 (not a streamed 200)", { timeout: STEP }, async () => {
    const [others] = await query<{ clientId: string }>(
      server.databaseUrl,
      `SELECT a."clientId" FROM "Application" a JOIN "User" u ON u.id = a."ownerId" WHERE u.handle <> 'alice' LIMIT 1`,
    );
    expect(others, "the demo data has an app alice does not own").toBeTruthy();
    for (const pathname of ["/apps/api_unknown0000000000", "/apps/not%20an%20id", `/apps/${others!.clientId}`, `/apps/${others!.clientId}/edit`]) {
      const response = await alice.goto(`${server.url}${pathname}`);
      expect(response?.status(), pathname).toBe(404);
      await alice.getByRole("heading", { name: "Page not found" }).waitFor();
    }
    await screenshot(alice, "app-not-found");
  });

  it("sign-out ends the platform session too", { timeout: STEP }, async () => {
    await alice.goto(`${server.url}/apps`);
    await alice.locator("summary[aria-label^='Account menu']").click();
    await alice.getByRole("button", { name: "Sign out" }).click();
    // The sign-in service asks to confirm ending the platform session.
    await alice.waitForURL(/\/interaction\/logout/);
    await alice.getByRole("button", { name: "Sign out", exact: true }).click();
    await alice.waitForURL(`${server.url}/`);

    // The portal session is gone, and so is the platform one: signing in asks for the password again.
    await alice.goto(`${server.url}/apps`);
    await alice.waitForURL(/\/signin\?/);
    await alice.getByRole("button", { name: "Continue with your platform account" }).click();
    await alice.waitForURL(/\/interaction\//);
    await alice.getByLabel("Password").waitFor();
  });

  it("the browser never reached for a remote host (fonts, scripts, telemetry)", () => {
    expect(foreignRequests).toEqual([]);
  });
});
