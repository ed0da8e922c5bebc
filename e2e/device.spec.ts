import { expect, test, type Page } from "@playwright/test";
import { createTestApp, createTestUser, pollDeviceToken, startDeviceSignIn } from "../tests/helpers/oidc";
import {
  CALLBACK,
  completeDeviceSignInInBrowser,
  expectAccessible,
  expectNoHorizontalOverflow,
  newPersonPage,
  registerApp,
  screenshot,
  server,
  signIn,
} from "./support";

/**
 * Device sign-in (RFC 8628) in Chromium: the device asks for a code, the person opens the
 * verification page, types the code, confirms it, signs in and consents on the usual hosted pages,
 * and the device's polling gets tokens that work on the API. No JavaScript on any of these pages;
 * axe-checked; screenshots under test-results/screenshots/device-*.jpg.
 */
const PASSWORD = "device-journey-password";

test.describe("device sign-in in Chromium", () => {
  test.describe.configure({ mode: "serial" });

  let clientId: string;
  const foreignRequests: string[] = [];
  const scripts: string[] = [];

  async function personPage(browser: Parameters<typeof newPersonPage>[0]): Promise<Page> {
    const page = await newPersonPage(browser, foreignRequests);
    page.on("response", (response) => {
      if (response.request().resourceType() === "script") scripts.push(response.url());
    });
    return page;
  }

  test.beforeAll(async () => {
    await createTestUser(server.databaseUrl, { handle: "tessa", password: PASSWORD, displayName: "Tessa Okafor" });
    ({ clientId } = await createTestApp(server.databaseUrl, {
      type: "login",
      name: "Kitchen TV",
      ownerHandle: "tvmaker",
      scopes: ["svc:stats.read", "svc:chat.read"],
      deviceFlow: true,
    }));
  });

  test("enter the code, confirm, sign in, allow: the device gets its tokens", async ({ browser }) => {
    const device = await startDeviceSignIn(server, clientId, "openid profile");
    expect((await pollDeviceToken(server, clientId, device.device_code)).body.error).toBe("authorization_pending");

    const page = await personPage(browser);
    // The short address of the portal leads to the verification page.
    await page.goto(`${server.url}/device`);
    await expect(page).toHaveURL(/\/interaction\/device\?step=input$/);
    await expect(page.getByRole("heading", { name: "Sign in on your device" })).toBeVisible();
    await expectAccessible(page, "device code page");
    await expectNoHorizontalOverflow(page);
    await screenshot(page, "device-code");

    // A wrong code first: the page says so and keeps the form.
    await page.getByLabel("Code").fill("BBBB-BBBB");
    await page.getByRole("button", { name: "Continue" }).click();
    await expect(page.getByRole("alert")).toContainText("That code is not valid");
    // The typo stays in the box to be fixed.
    await expect(page.getByLabel("Code")).toHaveValue("BBBB-BBBB");
    await expectAccessible(page, "device code error");
    await screenshot(page, "device-code-error");

    await page.getByLabel("Code").fill(device.user_code.toLowerCase());
    const steps: string[] = [];
    await completeDeviceSignInInBrowser(page, {
      userCode: device.user_code,
      handle: "tessa",
      password: PASSWORD,
      async onStep(step) {
        steps.push(step);
        if (step === "confirm") {
          await expect(page.getByText(device.user_code, { exact: true })).toBeVisible();
          await expect(page.getByText("Kitchen TV")).toBeVisible();
          await expectAccessible(page, "device confirmation");
          await expectNoHorizontalOverflow(page);
          await screenshot(page, "device-confirm");
        }
        if (step === "login") {
          // The app is on another device: Cancel does not claim to return to it.
          await expect(page.getByRole("button", { name: "Cancel this device sign-in" })).toBeVisible();
        }
        if (step === "consent") {
          await expect(page.getByRole("heading", { name: "Allow Kitchen TV to access your account?" })).toBeVisible();
        }
        if (step === "success") {
          await expect(page.getByText("Kitchen TV can now continue on your device")).toBeVisible();
          await expectAccessible(page, "device success");
          await expectNoHorizontalOverflow(page);
          await screenshot(page, "device-success");
        }
      },
    });
    expect(steps).toEqual(["confirm", "login", "consent", "success"]);
    expect(page.url()).toContain("/interaction/device?step=success");

    const { status, body } = await pollDeviceToken(server, clientId, device.device_code);
    expect(status).toBe(200);
    const me = await fetch(`${server.url}/api/v1/me`, { headers: { authorization: `Bearer ${body.access_token as string}` } });
    expect(me.status).toBe(200);
    await page.context().close();
  });

  test("the complete link fills the code in; cancelling tells the device access_denied", async ({ browser }) => {
    const device = await startDeviceSignIn(server, clientId);
    const page = await personPage(browser);
    await page.goto(device.verification_uri_complete);
    await expect(page.getByLabel("Code")).toHaveValue(device.user_code);
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("button", { name: "Cancel" }).click();
    await expect(page.getByRole("heading", { name: "Device sign-in cancelled" })).toBeVisible();
    await expectAccessible(page, "device cancelled");
    await screenshot(page, "device-cancelled");
    expect((await pollDeviceToken(server, clientId, device.device_code)).body.error).toBe("access_denied");
    await page.context().close();
  });

  test("a developer ticks \"Allow device sign-in\" (and requires pushed authorization requests) when registering a login client", async ({ browser }) => {
    const page = await newPersonPage(browser, foreignRequests);
    await signIn(page, "carol");
    const appId = await registerApp(
      page,
      { name: `Device CLI ${Date.now()}`, type: "login", scopes: [], redirectUri: CALLBACK, device: true, requirePar: true },
      async () => {
        const checkbox = page.getByRole("checkbox", { name: /^Allow device sign-in/ });
        await expect(checkbox).toBeChecked();
        // From the top: the sticky header would otherwise sit mid-page in the full-page shot.
        await page.evaluate(() => window.scrollTo(0, 0));
        await expectAccessible(page, "app form with device sign-in");
        await screenshot(page, "device-app-form");
      },
    );
    expect(appId).toMatch(/^app_/);
    await expect(page.getByText("Allowed (device authorization grant)")).toBeVisible();
    await expect(page.getByText("Required: a sign-in request must be pushed first (PAR)")).toBeVisible();
    await page.context().close();
  });

  test("no page of the journey loaded a script but the login page's passkey script, nor anything from elsewhere", () => {
    // The login page's one script offers passkeys (e2e/js-budget measures it); nothing else, anywhere.
    expect(scripts.map((url) => new URL(url).pathname).filter((path) => path !== "/hosted/passkey.js")).toEqual([]);
    expect(foreignRequests).toEqual([]);
  });
});
