import { expect, test, type CDPSession, type Page } from "@playwright/test";
import { createTestApp, createTestUser, exchangeCode, pkcePair } from "../tests/helpers/oidc";
import { CALLBACK, expectAccessible, newContext, query, screenshot, server, signIn } from "./support";

/**
 * Issue 29, part 1, in Chromium with its virtual authenticator (the WebAuthn domain of the DevTools
 * protocol): a person adds a passkey on Account security, signs out, and signs in to a login client
 * with the passkey alone (the hosted login page's script), then with the password and the passkey
 * as the second step; the ID token's amr says which. The login page without JavaScript still signs
 * in with the password and shows no passkey button.
 */
const PASSWORD = "passkeys-e2e-password";
const MFA_ACR = "urn:social-dev-platform:mfa";
const foreignRequests: string[] = [];

async function credentialsOf(cdp: CDPSession, authenticatorId: string) {
  return (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials;
}
type VirtualCredential = Awaited<ReturnType<typeof credentialsOf>>[number];

/**
 * A platform authenticator with user verification (Touch ID, Windows Hello…), answering by itself,
 * optionally holding `credential` (a passkey taken out of an earlier one). Chromium's virtual
 * authenticator also answers a conditional request (the login page's username suggestions) at
 * once, as if the person picked the passkey there; to press a button instead, the page is loaded
 * with no authenticator and one is plugged in just before the click.
 */
async function plugAuthenticator(cdp: CDPSession, credential?: VirtualCredential): Promise<string> {
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  if (credential) await cdp.send("WebAuthn.addCredential", { authenticatorId, credential });
  return authenticatorId;
}

/** Takes the authenticator out, returning its one passkey (with its current counter). */
/**
 * page.goto to the login page right after a passkey sign-in: the browser's own navigation to the
 * fake callback (port 9, refused: chrome-error) may commit after the callback request was read and
 * interrupt goto's bookkeeping while the request still goes on. Then the
 * page it leads to (the login page unless `arrives` says otherwise) is waited for, and only if it does
 * not come is the request sent again.
 */
async function gotoAfterCallback(page: Page, url: string, arrives = /\/interaction\/[A-Za-z0-9_-]+$/): Promise<void> {
  await page.goto(url).catch(async (error: Error) => {
    if (!error.message.includes("interrupted by another navigation")) throw error;
    await page.waitForURL(arrives, { timeout: 5_000 }).catch(() => page.goto(url));
  });
}

async function unplugAuthenticator(cdp: CDPSession, authenticatorId: string): Promise<VirtualCredential> {
  const credentials = await credentialsOf(cdp, authenticatorId);
  expect(credentials).toHaveLength(1);
  await cdp.send("WebAuthn.removeVirtualAuthenticator", { authenticatorId });
  return credentials[0]!;
}

function authorizationUrl(clientId: string, challenge: string): string {
  const auth = new URL(`${server.issuer}/protocol/openid-connect/auth`);
  auth.search = new URLSearchParams({
    client_id: clientId,
    response_type: "code",
    redirect_uri: CALLBACK,
    scope: "openid",
    state: "passkeys",
    code_challenge: challenge,
    code_challenge_method: "S256",
  }).toString();
  return auth.href;
}

/**
 * The next request for the login client's callback (started before the action that leads there: the
 * conditional sign-in may finish during page.goto). Read from the request, since Chromium may refuse
 * to navigate to the fake callback's port 9 (ERR_UNSAFE_PORT) once it is asked for.
 */
function nextCallback(page: Page): Promise<URL> {
  return page.waitForRequest((request) => request.url().startsWith(CALLBACK), { timeout: 30_000 }).then((request) => new URL(request.url()));
}

/** Exchanges the callback's code and returns the ID token's claims. */
async function claimsAt(callback: Promise<URL>, clientId: string, verifier: string): Promise<{ amr?: string[]; acr?: string; sub?: string }> {
  const code = (await callback).searchParams.get("code")!;
  const res = await exchangeCode(server, { clientId, code, redirectUri: CALLBACK, verifier });
  expect(res.status).toBe(200);
  return JSON.parse(Buffer.from(String(res.body.id_token).split(".")[1]!, "base64url").toString("utf8")) as { amr?: string[]; acr?: string; sub?: string };
}

test.describe("passkeys", () => {
  test.describe.configure({ mode: "serial" });

  test("add a passkey on Account security, sign out, sign in with the passkey alone, then with the password and the passkey", async ({ browser }) => {
    const handle = "passkey_pia";
    const user = await createTestUser(server.databaseUrl, { handle, password: PASSWORD, displayName: "Pia Passkey" });
    const { clientId } = await createTestApp(server.databaseUrl, { type: "login", name: "Passkey Notes", redirectUris: [CALLBACK], firstParty: true });
    const context = await newContext(browser, foreignRequests);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("WebAuthn.enable");
    let authenticatorId = await plugAuthenticator(cdp);

    // Portal sign-in with the password, then Account security.
    await signIn(page, handle, "/account/security", { password: PASSWORD });
    const card = page.locator("section#passkeys");
    await expect(card.getByRole("heading", { name: /Passkeys/ })).toBeVisible();

    await card.getByRole("button", { name: "Add a passkey" }).click();
    // The name is suggested from this browser; the person may change it.
    await expect(card.getByLabel("Name")).toHaveValue(/Chrome|Chromium/);
    await card.getByLabel("Name").fill("Work laptop");
    // Adding a factor asks for the password (a borrowed session alone cannot add one); a wrong one is refused.
    await card.getByLabel("Your password").fill("not my password");
    await card.getByRole("button", { name: "Create passkey" }).click();
    await expect(card.getByText("That password is not right.")).toBeVisible();
    expect(await credentialsOf(cdp, authenticatorId)).toHaveLength(0);
    await card.getByLabel("Your password").fill(PASSWORD);
    await card.getByRole("button", { name: "Create passkey" }).click();
    const list = card.getByRole("list", { name: "Your passkeys" });
    await expect(list.getByRole("listitem")).toHaveCount(1);
    await expect(list).toContainText("Work laptop");
    await expect(list).toContainText("not used yet");
    // The account's first second factor brings ten recovery codes, shown once; then only how many are left.
    const codes = page.getByRole("list", { name: "Recovery codes" });
    await expect(codes.getByRole("listitem")).toHaveCount(10);
    await screenshot(page, "account-security-passkey-recovery-codes");
    await page.getByRole("button", { name: "I have saved them" }).click();
    await expect(codes).toHaveCount(0);
    await expect(page.locator("section#recovery-codes")).toContainText("10 of 10 recovery codes left.");
    // A discoverable credential of this site, made with user verification.
    const credentials = await credentialsOf(cdp, authenticatorId);
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.isResidentCredential).toBe(true);
    expect(credentials[0]!.rpId).toBe("localhost");

    // Rename.
    await list.getByRole("button", { name: "Rename Work laptop" }).click();
    await list.getByLabel("New name").fill("Work laptop (Chromium, desk by the window)");
    await list.getByRole("button", { name: "Save" }).click();
    await expect(list).toContainText("Work laptop (Chromium, desk by the window)");
    await expectAccessible(page, "account security with a passkey");

    // Sign out of the portal and of the platform.
    await page.locator("summary", { hasText: `Account menu for @${handle}` }).click();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/interaction\/logout/);
    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await page.waitForURL(`${server.url}/`);

    // A login client's sign-in with the passkey alone, no username typed: the browser offers it in
    // the username field's suggestions (conditional mediation), which the virtual authenticator takes.
    let pkce = pkcePair();
    let callback = nextCallback(page);
    // The sign-in may finish before the login page's load event, which then never comes: goto's own
    // answer is not what is tested, the callback is.
    await page.goto(authorizationUrl(clientId, pkce.challenge)).catch(() => undefined);
    let claims = await claimsAt(callback, clientId, pkce.verifier);
    expect(claims.sub).toBe(String(user.id));
    expect(claims.amr).toEqual(["hwk", "mfa"]);
    expect(claims.acr).toBe(MFA_ACR);

    // The same with the button: the page is shown with no authenticator plugged in, then the person presses it.
    let passkey = await unplugAuthenticator(cdp, authenticatorId);
    await context.clearCookies();
    pkce = pkcePair();
    await gotoAfterCallback(page, authorizationUrl(clientId, pkce.challenge));
    await page.waitForURL(/\/interaction\/[A-Za-z0-9_-]+$/);
    await expect(page.getByRole("button", { name: "Sign in with a passkey" })).toBeVisible();
    authenticatorId = await plugAuthenticator(cdp, passkey);
    callback = nextCallback(page);
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    claims = await claimsAt(callback, clientId, pkce.verifier);
    expect(claims.amr).toEqual(["hwk", "mfa"]);

    // Another browser session: the password, then the passkey as the second step.
    passkey = await unplugAuthenticator(cdp, authenticatorId);
    await context.clearCookies();
    pkce = pkcePair();
    await gotoAfterCallback(page, authorizationUrl(clientId, pkce.challenge));
    await page.getByLabel("Username").fill(handle);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page.getByRole("heading", { name: "Two-step verification" })).toBeVisible();
    const usePasskey = page.getByRole("button", { name: "Use a passkey" });
    await expect(usePasskey).toBeVisible();
    await screenshot(page, "hosted-second-factor-passkey");
    await expectAccessible(page, "second step with a passkey");
    authenticatorId = await plugAuthenticator(cdp, passkey);
    callback = nextCallback(page);
    await usePasskey.click();
    claims = await claimsAt(callback, clientId, pkce.verifier);
    expect(claims.amr).toEqual(["pwd", "hwk", "mfa"]);
    expect(claims.acr).toBe(MFA_ACR);

    // Account security says when it was last used; with two more (long) names, the list holds at both widths.
    await context.clearCookies();
    await query(
      server.databaseUrl,
      `INSERT INTO "SecondFactor" ("userId", kind, name, "credentialId", "publicKey", "signCount", "backedUp", "confirmedAt")
       VALUES ($1, 'passkey', 'iCloud Keychain on Pia''s iPhone 15 Pro Max with a very long name indeed', 'e2e-long-1', '\\x00', 0, true, now()),
              ($1, 'passkey', 'YubiKey5NFCSecurityKeyKeptInTheDrawerAtHomeBesideTheRouter', 'e2e-long-2', '\\x00', 0, false, now())`,
      [user.id],
    );
    await gotoAfterCallback(page, `${server.url}/account/security`, /\/signin\?/);
    await page.waitForURL(/\/signin\?/);
    await page.getByRole("button", { name: "Continue with your platform account" }).click();
    // The login page's username suggestions offer the passkey (taken at once by the virtual authenticator).
    await page.waitForURL(`${server.url}/account/security`);
    await expect(list.getByRole("listitem")).toHaveCount(3);
    await expect(list.getByRole("listitem").first()).toContainText("last used");
    await page.locator("#passkeys").scrollIntoViewIfNeeded();
    await screenshot(page, "account-security-passkeys");
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, "no sideways scrolling at 390 px").toBeLessThanOrEqual(0);
    await expectAccessible(page, "account security with three passkeys, phone");
    await page.setViewportSize({ width: 1280, height: 900 });

    // Removing one asks for the password; a wrong one is refused.
    await list.getByRole("button", { name: /^Remove YubiKey/ }).click();
    await page.getByLabel("Your password").fill("not my password");
    await page.getByRole("button", { name: "Remove passkey" }).click();
    await expect(page.getByText("That password is not right.")).toBeVisible();
    await page.getByLabel("Your password").fill(PASSWORD);
    await page.getByRole("button", { name: "Remove passkey" }).click();
    await expect(list.getByRole("listitem")).toHaveCount(2);
    await context.close();
  });

  test("the login page offers the passkey with JavaScript (axe-clean, both widths), and without it only the password, which signs in", async ({ browser }) => {
    const handle = "passkey_nojs";
    await createTestUser(server.databaseUrl, { handle, password: PASSWORD });
    const { clientId } = await createTestApp(server.databaseUrl, { type: "login", name: "No Script Passkey", redirectUris: [CALLBACK], firstParty: true });
    const withScript = await newContext(browser, foreignRequests);
    const shown = await withScript.newPage();
    await shown.goto(authorizationUrl(clientId, pkcePair().challenge));
    await expect(shown.getByRole("button", { name: "Sign in with a passkey" })).toBeVisible();
    await expect(shown.getByLabel("Username")).toHaveAttribute("autocomplete", "username webauthn");
    await screenshot(shown, "hosted-login-passkey");
    await expectAccessible(shown, "login page with the passkey button");
    await withScript.close();

    const context = await newContext(browser, foreignRequests, { javaScriptEnabled: false });
    const page = await context.newPage();
    const pkce = pkcePair();
    await page.goto(authorizationUrl(clientId, pkce.challenge));
    await expect(page.getByLabel("Username")).toBeVisible();
    await expect(page.getByRole("button", { name: "Sign in with a passkey" })).toBeHidden();
    await page.getByLabel("Username").fill(handle);
    await page.getByLabel("Password").fill(PASSWORD);
    const callback = nextCallback(page);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    expect((await claimsAt(callback, clientId, pkce.verifier)).amr).toEqual(["pwd"]);
    await context.close();
  });

  test("the browser never reached for a remote host", () => {
    expect(foreignRequests).toEqual([]);
  });
});
