import { expect, test, type Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { createTestUser, pkcePair } from "../tests/helpers/oidc";
import {
  appStatus,
  CALLBACK,
  clientCredentials,
  expectAccessible,
  expectNoHorizontalOverflow,
  newContext,
  readChat,
  registerApp,
  screenshot,
  server,
  signIn,
} from "./support";

/**
 * Issue 26 in the browser: a developer who joined today registers an API key client and, while it
 * waits for review, gets a sandbox token with the credentials the portal showed (the sandbox secret
 * once, at registration; the sandbox client ID in the quickstart, which says it is the sandbox's)
 * and reads the sandbox's synthetic chat, while the live credentials still get invalid_client. The
 * Sandbox tab shows the world built by that first call, and "Reset sandbox" rebuilds it. Screenshots
 * at 1280 and 390 px with long, realistic names; axe; no sideways scrolling; no console errors.
 * Then the same developer's login client: a test user added on the Sandbox tab (password shown
 * once) signs in on the hosted login page through the sandbox client ID from the quickstart, under
 * the Sandbox banner, and the token's GET /me is that test user; an event is triggered.
 */

const NEW_DEVELOPER = {
  handle: `mfernandez${randomBytes(2).toString("hex")}`,
  displayName: "María-José Fernández-Castellanos de la Vega",
  password: `sandbox-journey-${randomBytes(6).toString("hex")}`,
};

function watchConsole(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(e.message));
  return errors;
}

test("a new developer builds against the sandbox before review: the quickstart's credentials, the Sandbox tab, reset", async ({ browser }) => {
  const foreign: string[] = [];
  await createTestUser(server.databaseUrl, NEW_DEVELOPER);
  const page = await (await newContext(browser, foreign)).newPage();
  const consoleErrors = watchConsole(page);
  await signIn(page, NEW_DEVELOPER.handle, "/apps", { password: NEW_DEVELOPER.password });

  const name = `Fernández-Castellanos Logistics Chat Digest for Regional Warehouses ${randomBytes(2).toString("hex")}`;
  const clientId = await registerApp(page, { name, type: "api", scopes: ["svc:chat.read", "svc:directory.read"] });
  expect(await appStatus(clientId)).toBe("pending");
  const sandboxClientId = `sbx_${clientId}`;

  // Registration shows the sandbox secret once, with the app's credentials.
  const banner = page.getByTestId("sandbox-secret-reveal");
  await expect(banner).toBeVisible();
  await expect(banner).toContainText("it will not be shown again");
  await expect(banner).toContainText(sandboxClientId);
  const sandboxSecret = await page.getByTestId("sandbox-client-secret").inputValue();
  expect(sandboxSecret.length).toBeGreaterThan(30);
  // The live secret does not exist before approval.
  await expect(page.getByTestId("secret-reveal")).toHaveCount(0);

  // The quickstart uses the sandbox credentials and says why.
  await expect(page.getByTestId("quickstart-sandbox-note")).toContainText("Sandbox credentials — this app is awaiting review");
  const curl = page.locator("[data-language=curl]");
  await expect(curl).toContainText(`client_id=${sandboxClientId}`);
  const quickstartClientId = /client_id=(\S+)/.exec((await curl.textContent()) ?? "")![1]!;
  await expectAccessible(page, "app page after registration");
  await expectNoHorizontalOverflow(page);
  await screenshot(page, "sandbox-registered");

  // The quickstart's request with those credentials: a sandbox token that reads the synthetic chat.
  const token = await clientCredentials(quickstartClientId, sandboxSecret);
  expect(token.status).toBe(200);
  const { access_token: accessToken } = (await token.json()) as { access_token: string };
  const claims = JSON.parse(Buffer.from(accessToken.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;
  expect(claims.sandbox).toBe(true);
  const chat = await readChat(accessToken);
  expect(chat.status).toBe(200);
  const { messages } = ((await chat.json()) as { data: { messages: { id: string }[] } }).data;
  expect(messages.length).toBeGreaterThan(0);
  // The live credentials still wait for review.
  expect((await clientCredentials(clientId, sandboxSecret)).status).toBe(401);

  // A reload never shows the secret again.
  await page.reload();
  await expect(page.getByTestId("sandbox-secret-reveal")).toHaveCount(0);
  expect(await page.content()).not.toContain(sandboxSecret);

  // The Sandbox tab: its client ID, the world the first call built, the quota, reset.
  await page.getByRole("navigation", { name: "Application sections" }).getByRole("link", { name: "Sandbox" }).click();
  await page.waitForURL(`${server.url}/apps/${clientId}/sandbox`);
  await expect(page.getByRole("navigation", { name: "Application sections" }).getByRole("link", { name: "Sandbox" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByText(sandboxClientId, { exact: true })).toBeVisible();
  await expect(page.getByTestId("sandbox-world")).toContainText("Built");
  await expect(page.getByTestId("sandbox-secret-reveal")).toHaveCount(0);
  await expect(page.getByTestId("sandbox-quota")).toContainText("600 requests per minute");
  await expectAccessible(page, "sandbox tab");
  await expectNoHorizontalOverflow(page);
  await screenshot(page, "sandbox-tab");

  await page.getByRole("button", { name: "Reset sandbox" }).click();
  const dialog = page.getByRole("dialog", { name: "Reset the sandbox?" });
  await expect(dialog).toBeVisible();
  await expectAccessible(page, "reset dialog");
  await dialog.getByRole("button", { name: "Reset sandbox" }).click();
  await expect(page.getByText(/^Sandbox reset: \d+ synthetic people/)).toBeVisible({ timeout: 30_000 });
  // A new world: the chat the token read before is gone, a fresh one is there.
  const after = ((await (await readChat(accessToken)).json()) as { data: { messages: { id: string }[] } }).data.messages;
  expect(after.length).toBeGreaterThan(0);
  expect(after.map((m) => m.id)).not.toEqual(messages.map((m) => m.id));

  expect(consoleErrors).toEqual([]);
  expect(foreign).toEqual([]);
  await page.context().close();
});

test("a test user signs in to the pending login client's sandbox on the hosted page, under the Sandbox banner", async ({ browser }) => {
  const foreign: string[] = [];
  await createTestUser(server.databaseUrl, NEW_DEVELOPER);
  const page = await (await newContext(browser, foreign)).newPage();
  const consoleErrors = watchConsole(page);
  await signIn(page, NEW_DEVELOPER.handle, "/apps", { password: NEW_DEVELOPER.password });
  const name = `Castellanos Family Recipe Exchange — Weekend Edition ${randomBytes(2).toString("hex")}`;
  const clientId = await registerApp(page, { name, type: "login", scopes: ["svc:chat.read"], redirectUri: CALLBACK });
  // A login client's sandbox has no secret: nothing to reveal.
  await expect(page.getByTestId("sandbox-secret-reveal")).toHaveCount(0);
  const curl = (await page.locator("[data-language=curl]").textContent()) ?? "";
  const sandboxClientId = /client_id=(sbx_[A-Za-z0-9_]+)/.exec(curl)![1]!;
  expect(sandboxClientId).toBe(`sbx_${clientId}`);

  // Add a test user: its password is shown once.
  await page.goto(`${server.url}/apps/${clientId}/sandbox`);
  await expect(page.getByTestId("test-users-empty")).toBeVisible();
  const handle = `test_maria_${randomBytes(3).toString("hex")}`;
  await page.getByLabel("Handle (optional)").fill(handle);
  await page.getByRole("button", { name: "Add test user" }).click();
  const reveal = page.getByTestId("test-user-reveal");
  // The first test user waits for the sandbox's world to be built (its first use).
  await expect(reveal).toContainText(`Test user @${handle}`, { timeout: 60_000 });
  const password = await page.getByTestId("test-user-password").inputValue();
  expect(password.length).toBeGreaterThanOrEqual(20);
  await expect(page.getByTestId("test-user-row")).toHaveCount(1);
  await expect(page.getByTestId("test-user-row")).toContainText(`@${handle}`);
  // A second one with a generated handle, so the list has more than one row.
  await page.getByRole("button", { name: "I have stored it safely" }).click();
  await page.getByRole("button", { name: "Add test user" }).click();
  await expect(page.getByTestId("test-user-row")).toHaveCount(2, { timeout: 30_000 });
  await expectAccessible(page, "sandbox tab with test users");
  await expectNoHorizontalOverflow(page);
  await screenshot(page, "sandbox-tab-test-users");

  // Trigger an event in the sandbox.
  await page.getByLabel("Event type").selectOption("chat.message.created");
  await page.getByRole("button", { name: "Trigger event" }).click();
  await expect(page.getByTestId("triggered-event")).toContainText("chat.message.created", { timeout: 30_000 });

  // The test user, in a browser of their own, signs in through the sandbox client with PKCE.
  const person = await (await newContext(browser, foreign)).newPage();
  const personErrors = watchConsole(person);
  const { verifier, challenge } = pkcePair();
  const state = randomBytes(12).toString("base64url");
  const authorize = new URL(`${server.issuer}/protocol/openid-connect/auth`);
  authorize.search = new URLSearchParams({
    client_id: sandboxClientId,
    response_type: "code",
    redirect_uri: CALLBACK,
    scope: "openid",
    state,
    code_challenge: challenge,
    code_challenge_method: "S256",
  }).toString();
  await person.goto(authorize.href);
  await person.waitForURL(/\/interaction\//);
  const banner = person.locator("[data-sandbox-banner]");
  await expect(banner).toBeVisible();
  await expect(banner).toContainText("Sandbox");
  await expectAccessible(person, "hosted login, sandbox");
  await expectNoHorizontalOverflow(person);
  await screenshot(person, "sandbox-hosted-login");
  await person.getByLabel("Username").fill(handle);
  await person.getByLabel("Password").fill(password);
  await person.getByRole("button", { name: "Sign in", exact: true }).click();
  await person.waitForURL((url) => url.href.startsWith(CALLBACK) || url.pathname.includes("/interaction/"));
  if (!person.url().startsWith(CALLBACK)) {
    // The consent page of a sandbox client carries the banner too.
    await expect(person.locator("[data-sandbox-banner]")).toBeVisible();
    await person.getByRole("button", { name: "Allow" }).click();
    await person.waitForURL((url) => url.href.startsWith(CALLBACK));
  }
  const callback = new URL(person.url());
  expect(callback.searchParams.get("state")).toBe(state);
  const tokens = await fetch(`${server.issuer}/protocol/openid-connect/token`, {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "authorization_code",
      client_id: sandboxClientId,
      code: callback.searchParams.get("code")!,
      redirect_uri: CALLBACK,
      code_verifier: verifier,
    }),
  });
  expect(tokens.status).toBe(200);
  const { access_token: accessToken } = (await tokens.json()) as { access_token: string };
  const me = await fetch(`${server.apiUrl}/me`, { headers: { authorization: `Bearer ${accessToken}` } });
  expect(me.status).toBe(200);
  expect(((await me.json()) as { user: { username: string } }).user.username).toBe(handle);

  expect(consoleErrors).toEqual([]);
  expect(personErrors).toEqual([]);
  expect(foreign).toEqual([]);
  await person.context().close();
  await page.context().close();
});
