import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { createTestApp, createTestUser, pkcePair } from "../tests/helpers/oidc";
import { CALLBACK, checkLayout, expectAccessible, newContext, screenshot, server, signIn } from "./support";

/**
 * Part 4: the same person signed in in two browsers (and a third, so the list is long).
 * On Account security, "Where you're signed in" lists them with browser and OS from long user
 * agents and marks this device; "Sign out everywhere else" ends the others at once: the other
 * browser's portal page sends it to sign in, and its sign-in service session is gone (prompt=none
 * answers login_required). This browser stays signed in.
 */
const HANDLE = "sessions_dana";
const PASSWORD = "sessions-e2e-passphrase";
const DESKTOP_UA =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 CorpAgentTelemetry/4.18.2-build.20261127 (managed; device=WS-0042-FINANCE-ROOM-B; policy=strict-enterprise-rollout)";
const PHONE_UA =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8 Pro Build/AP2A.240905.003; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/130.0.6723.107 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/487.0.0.44.83;IABMV/1;]";
const TABLET_UA = "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
const foreignRequests: string[] = [];

/** Signs in to the portal in its own browser (`userAgent`), on Account security. */
async function signInWith(browser: Browser, userAgent: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await newContext(browser, foreignRequests, { userAgent });
  const page = await context.newPage();
  await signIn(page, HANDLE, "/account/security", { password: PASSWORD });
  return { context, page };
}

/** prompt=none for a login client in this browser: where the sign-in service sends it back to. */
async function silentAuthorize(page: Page, clientId: string): Promise<URL> {
  const url = new URL(`${server.issuer}/protocol/openid-connect/auth`);
  const params = {
    client_id: clientId,
    response_type: "code",
    redirect_uri: CALLBACK,
    scope: "openid",
    prompt: "none",
    state: "silent",
    code_challenge: pkcePair().challenge,
    code_challenge_method: "S256",
  };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  // With the browser's cookies (its sign-in service session), not followed: Chromium refuses to
  // navigate to the fake callback's port 9 (ERR_UNSAFE_PORT), so the redirect is read instead.
  const res = await page.context().request.get(url.href, { maxRedirects: 0 });
  const location = res.headers()["location"] ?? "";
  expect(location.startsWith(CALLBACK), `${res.status()} ${location}`).toBe(true);
  return new URL(location);
}

test("Sign out everywhere else ends the other browser's portal and sign-in sessions at once", async ({ browser }) => {
  await createTestUser(server.databaseUrl, { handle: HANDLE, password: PASSWORD, displayName: "Dana Sessions" });
  const { clientId } = await createTestApp(server.databaseUrl, { type: "login", name: "Silent Notes", redirectUris: [CALLBACK], firstParty: true });
  const { context: desktop, page: here } = await signInWith(browser, DESKTOP_UA);
  const { context: phone, page: there } = await signInWith(browser, PHONE_UA);
  const { context: tablet } = await signInWith(browser, TABLET_UA);

  await here.reload();
  const list = here.getByRole("list", { name: "Sign-in sessions" });
  await expect(list.getByRole("listitem")).toHaveCount(3);
  const mine = list.getByRole("listitem").filter({ hasText: "This device" });
  await expect(mine).toHaveCount(1);
  await expect(list.getByRole("listitem").first()).toContainText("This device");
  await expect(mine).toContainText("Chrome 131 on Windows 10");
  await expect(mine.getByRole("button", { name: /Sign out/ })).toHaveCount(0);
  await expect(list.getByRole("listitem").filter({ hasText: "Chrome 130 on Android 14" })).toHaveCount(1);
  await expect(list.getByRole("listitem").filter({ hasText: "Safari 17 on iOS 17.5" })).toHaveCount(1);
  // The loopback address, masked: the full one is never on the page.
  await expect(mine).toContainText("Network 127.0.0.x");
  expect(await here.content()).not.toContain("127.0.0.1");
  await expect(here.getByRole("link", { name: "Connected apps" })).toHaveAttribute("href", "/account/apps");
  await expectAccessible(here, "account security sessions");
  await screenshot(here, "account-security-sessions");
  const problems = await checkLayout(here, "account-security-sessions", (page) => page.goto(`${server.url}/account/security`));
  expect(problems).toEqual([]);

  // The other browser is in the portal and at the sign-in service.
  expect((await silentAuthorize(there, clientId)).searchParams.get("code")).toBeTruthy();
  await there.goto(`${server.url}/account/security`);
  await expect(there.getByRole("heading", { name: "Account security", level: 1 })).toBeVisible();

  await here.getByRole("button", { name: "Sign out everywhere else" }).click();
  const dialog = here.getByRole("dialog", { name: "Sign out everywhere else?" });
  await expect(dialog).toContainText("Apps you allowed keep their access");
  await expectAccessible(here, "sign out everywhere else dialog");
  await dialog.getByRole("button", { name: "Sign out everywhere else" }).click();
  await expect(here.getByText("Signed out of 2 other sessions")).toBeVisible();
  await expect(list.getByRole("listitem")).toHaveCount(1);
  await expect(here.getByRole("button", { name: "Sign out everywhere else" })).toHaveCount(0);

  // At once: the other browser's next portal page is the sign-in page…
  await there.goto(`${server.url}/account/security`);
  await there.waitForURL(/\/signin(\?|$)/);
  // …and its sign-in service session is gone.
  expect((await silentAuthorize(there, clientId)).searchParams.get("error")).toBe("login_required");
  // This browser stays signed in, in the portal and at the sign-in service.
  await here.goto(`${server.url}/account/security`);
  await expect(here.getByRole("heading", { name: "Account security", level: 1 })).toBeVisible();
  expect((await silentAuthorize(here, clientId)).searchParams.get("code")).toBeTruthy();

  await Promise.all([desktop.close(), phone.close(), tablet.close()]);
  expect(foreignRequests, "the browsers never reached for a remote host").toEqual([]);
});
