import { expect, test, type Browser, type Page } from "@playwright/test";
import { runCli } from "../tests/helpers/cli";
import { hostileLogo, makeLogo } from "../tests/helpers/images";
import { createTestUser, pkcePair } from "../tests/helpers/oidc";
import {
  CALLBACK,
  expectAccessible,
  expectNoHorizontalOverflow,
  newPersonPage,
  screenshot,
  server,
  signIn,
} from "./support";

/**
 * "a consent page people can trust", in Chromium: a developer gives an app a logo and
 * links in the portal form (an HTML file renamed .png and an http:// link are refused), people see
 * them on the consent page (first time; JavaScript off), the developer changes the approved app's
 * logo and links and adds a scope, which wait for review; the admin sees the before/after with
 * logo thumbnails and approves; the next sign-in says the app "now asks for more".
 */

const TAG = `ident${Date.now().toString(36)}`;
const NAME = `Northwind Community Photo Sharing & Event Planner ${TAG}`;
const DESCRIPTION =
  "Northwind lets neighbourhood groups share photos from local events, plan meet-ups and keep a shared calendar. " +
  "It uses your platform profile to show who posted what, and never posts anything on your behalf.";
const PERSON = `pers${TAG}`.slice(0, 20);
const PASSWORD = "app-identity-password";

function authUrl(clientId: string): string {
  const url = new URL(`${server.issuer}/protocol/openid-connect/auth`);
  url.search = new URLSearchParams({
    client_id: clientId,
    response_type: "code",
    redirect_uri: CALLBACK,
    scope: "openid profile",
    state: "identity",
    code_challenge: pkcePair().challenge,
    code_challenge_method: "S256",
  }).toString();
  return url.href;
}

async function chooseLogo(page: Page, name: string, mimeType: string, buffer: Buffer) {
  await page.getByLabel("Logo", { exact: true }).setInputFiles({ name, mimeType, buffer });
}

/** The logo image on the page has loaded from our origin (not broken). */
async function expectLogoLoaded(page: Page, scope = page.locator("body")) {
  const logo = scope.getByTestId("app-logo").first();
  await expect(logo).toBeVisible();
  await expect(logo).toHaveAttribute("src", /^\/media\/logos\/app_[A-Za-z0-9]+\/[0-9a-f]{16}\.(png|jpg|webp)$/);
  await expect.poll(() => logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
}

/**
 * axe runs as a script: the person's page (JavaScript off) is checked in a script-enabled context
 * holding the same cookies. Looking does not answer the interaction.
 */
async function expectAccessibleWithScript(browser: Browser, page: Page, foreign: string[], label: string) {
  const checker = await newPersonPage(browser, foreign);
  await checker.context().addCookies(await page.context().cookies());
  await checker.goto(page.url());
  await expect(checker.getByRole("heading", { level: 1 })).toHaveText((await page.getByRole("heading", { level: 1 }).textContent()) ?? "");
  await expectAccessible(checker, label);
  await checker.context().close();
}

test.describe("a consent page people can trust", () => {
  test("logo and links: form checks, consent page, pending change review, asks for more", async ({ browser }) => {
    const foreign: string[] = [];
    await createTestUser(server.databaseUrl, { handle: PERSON, password: PASSWORD, displayName: "Rosa Lindqvist" });

    // The developer registers a login client with a logo and links.
    const dev = await newPersonPage(browser, foreign);
    await signIn(dev, "alice", "/apps/new");
    await dev.getByLabel("Application name").fill(NAME);
    await dev.getByLabel("Description").fill(DESCRIPTION);
    await dev.getByText("Login client", { exact: true }).click();
    await dev.getByLabel("Redirect URIs 1", { exact: true }).fill(CALLBACK);

    await chooseLogo(dev, "logo.png", "image/png", hostileLogo("html"));
    await expect(dev.getByText("The logo must be a PNG, JPEG or WebP image")).toBeVisible();
    // A real PNG the browser cannot fault: the server decodes it and refuses its size, through the real upload.
    await chooseLogo(dev, "tiny.png", "image/png", await makeLogo("png", { width: 8, height: 8 }));
    await expect(dev.getByText("The logo must be a PNG, JPEG or WebP image")).toHaveCount(0);

    await dev.getByLabel("Homepage").fill("http://northwind.example/");
    await dev.getByLabel("Privacy policy").fill("https://northwind.example/legal/privacy-policy-for-community-members");
    await dev.getByLabel("Terms of service").fill("https://northwind.example/legal/terms");
    await dev.getByRole("button", { name: "Register application" }).click();
    await expect(dev.getByText("must use https://")).toBeVisible();
    await dev.getByLabel("Homepage").fill("https://northwind.example/");
    await dev.getByRole("button", { name: "Register application" }).click();
    // The field says it (and a toast).
    await expect(dev.getByText("The logo is 8×8 pixels; each side must be 16 to 1024").first()).toBeVisible();
    await expect(dev.getByLabel("Logo", { exact: true })).toHaveAttribute("aria-invalid", "true");
    await expect(dev).toHaveURL(`${server.url}/apps/new`);
    await chooseLogo(dev, "logo.png", "image/png", await makeLogo("png", { width: 256, height: 256, color: "#0e7490" }));
    // The field's error goes with the file (the toast fades on its own).
    await expect(dev.getByLabel("Logo", { exact: true })).not.toHaveAttribute("aria-invalid", "true");
    await dev.getByRole("button", { name: "Register application" }).click();
    await dev.waitForURL(/\/apps\/app_[A-Za-z0-9]+$/);
    const clientId = dev.url().split("/").pop()!;

    const identity = dev.getByTestId("app-identity");
    await expect(identity).toContainText(NAME);
    await expect(identity.getByRole("link", { name: /Privacy policy/ })).toHaveAttribute(
      "href",
      "https://northwind.example/legal/privacy-policy-for-community-members",
    );
    await expectLogoLoaded(dev, identity);
    await expectAccessible(dev, "app page identity");
    await expectNoHorizontalOverflow(dev);
    await screenshot(dev, "app-identity-page");

    // An admin approves it (the review queue's journey is admin-review.spec.ts).
    const approved = await runCli(server.databaseUrl, ["apps", "approve", clientId, "--json"]);
    expect(approved.code, approved.stderr).toBe(0);

    // A person signs in to it for the first time, with JavaScript off: the page needs none.
    const person = await newPersonPage(browser, foreign, { javaScriptEnabled: false });
    await person.goto(authUrl(clientId));
    await person.getByLabel("Username").fill(PERSON);
    await person.getByLabel("Password").fill(PASSWORD);
    await person.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(person.getByRole("heading", { level: 1 })).toHaveText(`Allow ${NAME} to access your account?`);
    await expect(person.getByTestId("consent-kind")).toContainText("This is the first time");
    await expect(person.getByTestId("app-identity")).toContainText(DESCRIPTION);
    await expect(person.getByTestId("app-identity")).toContainText("Alice");
    await expect(person.getByRole("link", { name: /Terms of service/ })).toHaveAttribute("href", "https://northwind.example/legal/terms");
    await expectLogoLoaded(person);
    await expectNoHorizontalOverflow(person);
    await screenshot(person, "consent-first-time");
    await expectAccessibleWithScript(browser, person, foreign, "consent page, first time");
    await person.getByRole("button", { name: "Allow" }).click();
    await person.waitForURL(/^http:\/\/127\.0\.0\.1:9\/callback\?/);

    // The developer changes the approved app: a new logo, a new privacy link, one more scope.
    await dev.goto(`${server.url}/apps/${clientId}/edit`);
    await expectLogoLoaded(dev);
    await chooseLogo(dev, "new-logo.webp", "image/webp", await makeLogo("webp", { width: 300, height: 240, color: "#b45309" }));
    await dev.getByLabel("Privacy policy").fill("https://northwind.example/privacy-2026");
    await dev.getByRole("checkbox", { name: /^svc:stats\.read/ }).check();
    await expectAccessible(dev, "app form with a new logo");
    await screenshot(dev, "app-form-logo");
    await dev.getByRole("button", { name: "Save changes" }).click();
    await dev.waitForURL(`${server.url}/apps/${clientId}`);
    const waiting = dev.getByTestId("pending-change");
    await expect(waiting).toContainText("Privacy policy");
    await expect(waiting.getByTestId("pending-logo").getByTestId("app-logo")).toHaveCount(2);
    // The consent page keeps the approved logo and link until an admin approves.
    await expect(dev.getByTestId("app-identity").getByRole("link", { name: /Privacy policy/ })).toHaveAttribute(
      "href",
      "https://northwind.example/legal/privacy-policy-for-community-members",
    );

    // The admin sees the before/after with both logos, in the queue and on the app page, and approves.
    const admin = await newPersonPage(browser, foreign);
    await signIn(admin, "admin", "/admin");
    await admin.goto(`${server.url}/admin/apps?changes=1&status=all&q=${TAG}`);
    const row = admin.locator(`tr[data-client-id="${clientId}"]`);
    await row.getByText("Details").click();
    await expect(row.getByTestId("pending-logo").getByTestId("app-logo")).toHaveCount(2);
    await expect(row.getByTestId("pending-change")).toContainText("https://northwind.example/privacy-2026");
    await expectAccessible(admin, "review queue with a logo/link diff");
    await screenshot(admin, "admin-review-identity-queue");
    await admin.goto(`${server.url}/apps/${clientId}`);
    await expect(admin.getByTestId("pending-change")).toContainText("svc:stats.read");
    for (const img of await admin.getByTestId("pending-logo").getByTestId("app-logo").all()) {
      await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0)).toBe(true);
    }
    await expectAccessible(admin, "app page with a logo/link diff");
    await expectNoHorizontalOverflow(admin);
    await screenshot(admin, "admin-review-identity-diff");
    await admin.getByRole("button", { name: "Approve changes" }).click();
    await expect(admin.getByTestId("pending-change")).toHaveCount(0);

    // The next sign-in: the new logo, and the app now asks for more (the scope the change added).
    await person.goto(authUrl(clientId));
    await expect(person.getByRole("heading", { level: 1 })).toHaveText(`${NAME} now asks for more`);
    const added = person.locator("li[data-new]");
    await expect(added).toHaveCount(1);
    await expect(added).toContainText("svc:stats.read");
    await expect(person.getByRole("link", { name: /Privacy policy/ })).toHaveAttribute("href", "https://northwind.example/privacy-2026");
    await expect(person.getByTestId("app-logo").first()).toHaveAttribute("src", /\.webp$/);
    await expectLogoLoaded(person);
    await screenshot(person, "consent-asks-for-more");

    await expectAccessibleWithScript(browser, person, foreign, "consent page, asks for more");

    expect(foreign).toEqual([]);
  });
});
