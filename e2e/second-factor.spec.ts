import { expect, test, type Page } from "@playwright/test";
import { generate } from "otplib";
import { createTestApp, createTestUser, exchangeCode, pkcePair } from "../tests/helpers/oidc";
import { startServer, type TestServer } from "../tests/helpers/server";
import { createTestDatabase } from "../tests/helpers/templates";
import { CALLBACK, expectAccessible, newContext, password, screenshot, server, signIn } from "./support";

/**
 * A person sets up an authenticator app on Account security (QR code, key, confirmed with a
 * code from otplib here), gets ten recovery codes, and the hosted sign-in then asks for a code after
 * the password — a plain form that works with JavaScript off; the ID token's amr says so. With
 * REQUIRE_MFA=admins (the default wherever DATABASE_URL is set), an admin without a second factor is
 * sent to enrol before the review queue.
 */
const PASSWORD = "second-factor-e2e-password";
const MFA_ACR = "urn:social-dev-platform:mfa";

const foreignRequests: string[] = [];

/**
 * Sets up the authenticator app on the open Account security page (the account's password first:
 * a wrong one is refused and shows no key); returns the key and the recovery codes.
 */
async function enrolOnPage(page: Page, accountPassword: string): Promise<{ secret: string; recoveryCodes: string[] }> {
  await page.getByRole("button", { name: "Set up authenticator app" }).click();
  const proof = page.getByRole("form", { name: "Set up authenticator app" });
  await proof.getByLabel("Your password").fill("not my password");
  await proof.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByText("That password is not right.")).toBeVisible();
  await expect(page.getByTestId("totp-secret")).toHaveCount(0);
  await proof.getByLabel("Your password").fill(accountPassword);
  await proof.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByRole("img", { name: "QR code for your authenticator app" }).locator("svg")).toBeVisible();
  const secret = (await page.getByTestId("totp-secret").textContent())!.trim();
  expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
  await page.getByLabel("Code from the app").fill(await generate({ secret }));
  await page.getByRole("button", { name: "Turn on" }).click();
  const list = page.getByRole("list", { name: "Recovery codes" });
  await expect(list.getByRole("listitem")).toHaveCount(10);
  const recoveryCodes = (await list.getByRole("listitem").allTextContents()).map((c) => c.trim());
  return { secret, recoveryCodes };
}

test.describe("second factor", () => {
  test("enrol on Account security, then sign in with the password and a code with JavaScript off", async ({ browser }) => {
    const handle = "mfa_erin";
    await createTestUser(server.databaseUrl, { handle, password: PASSWORD, displayName: "Erin Two-Step" });
    const context = await newContext(browser, foreignRequests);
    const page = await context.newPage();
    await signIn(page, handle, "/apps", { password: PASSWORD });
    // Account security is in the account menu (a disclosure in the header).
    await page.getByRole("banner").locator("summary", { hasText: `@${handle}` }).click();
    await page.getByRole("navigation", { name: "Account" }).getByRole("link", { name: "Account security" }).click();
    await page.waitForURL(`${server.url}/account/security`);
    await expect(page.getByRole("heading", { name: "Account security", level: 1 })).toBeVisible();
    await expectAccessible(page, "account security");
    const { secret, recoveryCodes } = await enrolOnPage(page, PASSWORD);
    expect(new Set(recoveryCodes).size).toBe(10);
    await screenshot(page, "account-security-recovery-codes");
    await page.getByRole("button", { name: "I have saved them" }).click();
    await expect(page.getByText("10 of 10 recovery codes left.")).toBeVisible();
    await screenshot(page, "account-security-on");
    await context.close();

    // A login client's sign-in in a browser without JavaScript: password, then the code.
    const { clientId } = await createTestApp(server.databaseUrl, { type: "login", name: "Two Step Notes", redirectUris: [CALLBACK], firstParty: true });
    const noScript = await newContext(browser, foreignRequests, { javaScriptEnabled: false });
    const hosted = await noScript.newPage();
    const { verifier, challenge } = pkcePair();
    const auth = new URL(`${server.issuer}/protocol/openid-connect/auth`);
    auth.search = new URLSearchParams({
      client_id: clientId,
      response_type: "code",
      redirect_uri: CALLBACK,
      scope: "openid",
      state: "mfa",
      code_challenge: challenge,
      code_challenge_method: "S256",
    }).toString();
    await hosted.goto(auth.href);
    await hosted.getByLabel("Username").fill(handle);
    await hosted.getByLabel("Password").fill(PASSWORD);
    await hosted.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(hosted.getByRole("heading", { name: "Two-step verification" })).toBeVisible();
    await expect(hosted.locator("script")).toHaveCount(0);
    await hosted.getByLabel("Code").fill("000000" === (await generate({ secret })) ? "111111" : "000000");
    await hosted.getByRole("button", { name: "Verify" }).click();
    await expect(hosted.getByRole("alert")).toContainText("That code is not right.");
    await screenshot(hosted, "hosted-second-factor-error");
    await hosted.getByLabel("Code").fill(await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 }));
    await hosted.getByRole("button", { name: "Verify" }).click();
    await hosted.waitForURL(/^http:\/\/127\.0\.0\.1:9\/callback\?/);
    const code = new URL(hosted.url()).searchParams.get("code")!;
    const res = await exchangeCode(server, { clientId, code, redirectUri: CALLBACK, verifier });
    expect(res.status).toBe(200);
    const claims = JSON.parse(Buffer.from(String(res.body.id_token).split(".")[1]!, "base64url").toString("utf8")) as { amr?: string[]; acr?: string };
    expect(claims.amr).toEqual(["pwd", "otp", "mfa"]);
    expect(claims.acr).toBe(MFA_ACR);

    // A recovery code works once: the same browser signs in again (prompt=login) with one, then with it again.
    const recovery = recoveryCodes[0]!;
    for (const attempt of ["first", "again"]) {
      const pair = pkcePair();
      auth.searchParams.set("code_challenge", pair.challenge);
      auth.searchParams.set("prompt", "login");
      await hosted.goto(auth.href);
      await hosted.getByLabel("Username").fill(handle);
      await hosted.getByLabel("Password").fill(PASSWORD);
      await hosted.getByRole("button", { name: "Sign in", exact: true }).click();
      await expect(hosted.getByRole("heading", { name: "Two-step verification" })).toBeVisible();
      await hosted.getByLabel("Code").fill(recovery);
      await hosted.getByRole("button", { name: "Verify" }).click();
      if (attempt === "again") {
        await expect(hosted.getByRole("alert")).toContainText("That code is not right.");
        break;
      }
      await hosted.waitForURL(/^http:\/\/127\.0\.0\.1:9\/callback\?/);
      const viaRecovery = await exchangeCode(server, { clientId, code: new URL(hosted.url()).searchParams.get("code")!, redirectUri: CALLBACK, verifier: pair.verifier });
      expect(viaRecovery.status).toBe(200);
      const recovered = JSON.parse(Buffer.from(String(viaRecovery.body.id_token).split(".")[1]!, "base64url").toString("utf8")) as { amr?: string[] };
      expect(recovered.amr).toEqual(["pwd", "mfa"]);
    }
    await noScript.close();
    expect(foreignRequests, "the browser never reached for a remote host").toEqual([]);
  });

  test.describe("REQUIRE_MFA=admins", () => {
    let strict: TestServer;
    test.beforeAll(async () => {
      test.setTimeout(180_000);
      const serverUrl = new URL(server.databaseUrl);
      serverUrl.pathname = "/postgres";
      strict = await startServer({
        next: true,
        databaseUrl: await createTestDatabase(serverUrl.href, { seed: true }),
        env: { REQUIRE_MFA: "admins" },
      });
    });
    test.afterAll(async () => {
      await strict?.stop();
    });

    test("an admin without a second factor is sent to Account security before the review queue, and reaches it once enrolled", async ({ browser }) => {
      const context = await newContext(browser, foreignRequests, { origin: strict.url });
      const page = await context.newPage();
      await signIn(page, "admin", "/admin/apps", { base: strict.url, arrive: false });
      await page.waitForURL(`${strict.url}/account/security?required=1`);
      await expect(page.getByText("Your account needs a second factor before you can continue")).toBeVisible();
      await expect(page.getByRole("heading", { name: "Review queue" })).toHaveCount(0);
      // Every admin page, not only the queue.
      await page.goto(`${strict.url}/admin/users`);
      await page.waitForURL(`${strict.url}/account/security?required=1`);
      await screenshot(page, "account-security-required");
      await enrolOnPage(page, password("admin"));
      await page.getByRole("button", { name: "I have saved them" }).click();
      await page.goto(`${strict.url}/admin/apps`);
      await expect(page).toHaveURL(`${strict.url}/admin/apps`);
      await expect(page.getByRole("link", { name: "Review queue" })).toBeVisible();
      await context.close();
      expect(foreignRequests, "the browser never reached for a remote host").toEqual([]);
    });
  });
});
