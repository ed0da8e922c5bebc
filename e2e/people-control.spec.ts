import { expect, test } from "@playwright/test";
import { createTestApp, createTestUser, pkcePair } from "../tests/helpers/oidc";
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
 * Issue 15 in Chromium: a person revokes an app on Connected apps and is asked for consent again
 * at the next sign-in; an owner adds a viewer to the app's team, who sees the app and cannot change
 * it (no Edit, and the edit page answers 403 whatever the buttons say).
 */

const PASSWORD = "people-control-password";

function authUrl(clientId: string): string {
  const url = new URL(`${server.issuer}/protocol/openid-connect/auth`);
  url.search = new URLSearchParams({
    client_id: clientId,
    response_type: "code",
    redirect_uri: CALLBACK,
    scope: "openid profile svc:chat.read",
    state: "people-control",
    code_challenge: pkcePair().challenge,
    code_challenge_method: "S256",
  }).toString();
  return url.href;
}

test.describe("people in control of their apps", () => {
  test("Connected apps: a person revokes an app and is asked for consent again", async ({ browser }) => {
    const foreign: string[] = [];
    await createTestUser(server.databaseUrl, { handle: "pia", password: PASSWORD, displayName: "Pia Koskinen" });
    const { clientId } = await createTestApp(server.databaseUrl, {
      type: "login",
      name: "Chat Reader for Pia",
      ownerHandle: "readerdev",
      scopes: ["svc:chat.read"],
      redirectUris: [CALLBACK],
    });
    const page = await newPersonPage(browser, foreign);

    // First sign-in to the app: login, consent, back to the app.
    await page.goto(authUrl(clientId));
    await page.getByLabel("Username").fill("pia");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:9\/callback\?/);

    // The portal's sign-in reuses the platform session; Connected apps is in the avatar menu.
    await page.goto(`${server.url}/apps`);
    await page.waitForURL(/\/signin\?/);
    await page.getByRole("button", { name: "Continue with your platform account" }).click();
    await page.waitForURL(`${server.url}/apps`);
    await page.getByRole("button", { name: /Account menu/ }).or(page.locator("summary", { hasText: "@pia" })).first().click();
    await page.getByRole("link", { name: "Connected apps" }).click();
    await page.waitForURL(`${server.url}/account/apps`);
    const card = page.getByRole("listitem").filter({ hasText: "Chat Reader for Pia" });
    await expect(card).toContainText("Read the global chat");
    await expect(card).toContainText("@readerdev");
    await expectAccessible(page, "connected apps");
    await expectNoHorizontalOverflow(page);
    await screenshot(page, "connected-apps");

    await card.getByRole("button", { name: "Revoke access" }).click();
    const dialog = page.getByRole("dialog");
    await expect(dialog).toContainText("stops working now");
    await screenshot(page, "connected-apps-revoke");
    await dialog.getByRole("button", { name: "Revoke access" }).click();
    await expect(page.getByText("No connected apps")).toBeVisible();

    // The next authorization asks again (the platform session is still there: no login page).
    await page.goto(authUrl(clientId));
    await expect(page.getByRole("button", { name: "Allow" })).toBeVisible();
    expect(foreign).toEqual([]);
    await page.context().close();
  });

  test("Review of changes: a widened approved app waits for the admin; the consent page keeps the approved name", async ({ browser }) => {
    const foreign: string[] = [];
    const { clientId } = await createTestApp(server.databaseUrl, {
      type: "login",
      name: "Quiet Reader",
      ownerHandle: "alice",
      scopes: ["svc:chat.read"],
      redirectUris: [CALLBACK],
    });
    const owner = await newPersonPage(browser, foreign);
    await signIn(owner, "alice", `/apps/${clientId}/edit`);
    await expect(owner.getByText(/wait for an admin's review/)).toBeVisible();
    await owner.getByLabel("Application name").fill("Official Platform Reader");
    await owner.getByRole("checkbox", { name: /^svc:directory\.read/ }).check();
    await owner.getByRole("button", { name: "Save changes" }).click();
    await owner.waitForURL(`${server.url}/apps/${clientId}`);
    // The save says it went to review, not "Changes saved".
    await expect(owner.getByText(/^Sent for review/)).toBeVisible();
    const diff = owner.getByTestId("pending-change");
    await expect(owner.getByRole("heading", { name: "Changes waiting for review" })).toBeVisible();
    await expect(diff).toContainText("Official Platform Reader");
    await expect(diff).toContainText("svc:directory.read");
    await expect(owner.getByRole("heading", { level: 1 })).toHaveText("Quiet Reader");
    await expectAccessible(owner, "pending change (owner)");
    await screenshot(owner, "app-pending-change");

    // People signing in meanwhile see the approved name and scopes.
    await createTestUser(server.databaseUrl, { handle: "quinn", password: PASSWORD });
    const person = await newPersonPage(browser, foreign);
    await person.goto(authUrl(clientId));
    await person.getByLabel("Username").fill("quinn");
    await person.getByLabel("Password").fill(PASSWORD);
    await person.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(person.getByRole("heading", { name: /Allow Quiet Reader/ })).toBeVisible();
    await expect(person.getByText("Look people up in the user directory")).toHaveCount(0);

    // The admin finds it in the queue and approves the diff.
    const admin = await newPersonPage(browser, foreign);
    await signIn(admin, "admin", "/admin/apps");
    await admin.getByRole("link", { name: /changes waiting for review/ }).click();
    await admin.locator(`tr[data-client-id="${clientId}"]`).getByRole("link", { name: "Quiet Reader" }).click();
    await expect(admin.getByTestId("pending-change")).toContainText("Official Platform Reader");
    await screenshot(admin, "admin-pending-change");
    await admin.getByRole("button", { name: "Approve changes" }).click();
    await expect(admin.getByRole("heading", { level: 1 })).toHaveText("Official Platform Reader");
    await expect(admin.getByTestId("pending-change")).toHaveCount(0);
    expect(foreign).toEqual([]);
    for (const page of [owner, person, admin]) await page.context().close();
  });

  test("Teams: the owner adds a viewer, who sees the app and cannot change it", async ({ browser }) => {
    const foreign: string[] = [];
    const { clientId } = await createTestApp(server.databaseUrl, {
      type: "api",
      name: "Team Dashboard",
      ownerHandle: "alice",
      scopes: ["svc:chat.read"],
    });
    const owner = await newPersonPage(browser, foreign);
    await signIn(owner, "alice", `/apps/${clientId}`);
    await owner.getByLabel("Add a person by username").fill("carol");
    await owner.getByLabel("Role", { exact: true }).selectOption("viewer");
    await owner.getByRole("button", { name: "Add", exact: true }).click();
    await expect(owner.getByRole("list", { name: "Team members" })).toContainText("@carol");
    await expectAccessible(owner, "team");
    await screenshot(owner, "app-team");

    const viewer = await newPersonPage(browser, foreign);
    await signIn(viewer, "carol", "/apps");
    await expect(viewer.getByText("Team Dashboard")).toBeVisible();
    await viewer.goto(`${server.url}/apps/${clientId}`);
    await expect(viewer.getByRole("heading", { name: "Team Dashboard" })).toBeVisible();
    await expect(viewer.getByRole("link", { name: "Edit" })).toHaveCount(0);
    await expect(viewer.getByText("Danger zone")).toHaveCount(0);
    const edit = await viewer.goto(`${server.url}/apps/${clientId}/edit`);
    expect(edit?.status()).toBe(403);
    expect(foreign).toEqual([]);
    await owner.context().close();
    await viewer.context().close();
  });
});
