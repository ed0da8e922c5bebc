import { expect, test, type Page } from "@playwright/test";
import { createHash, randomBytes } from "node:crypto";
import {
  CALLBACK,
  appStatus,
  clientCredentials,
  expectAccessible,
  expectInvalidToken,
  expectNoHorizontalOverflow,
  expectOAuthError,
  newContext,
  query,
  readChat,
  registerApp,
  screenshot,
  secretId,
  server,
  signIn,
} from "./support";

/**
 * The developer portal's main journey in Chromium, against the real server on the demo world: a
 * developer registers an app, an admin reviews it, the developer uses and rotates its secrets, an
 * admin suspends and reinstates it, a login client signs a user in with PKCE, and a non-admin
 * cannot reach the admin pages or replay their actions. Each test is one step; they build on each
 * other (alice's app is approved by the admin, then used), so they run in order, in two browser
 * contexts kept for the whole journey (alice's and the admin's).
 */

interface CapturedAction {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** How many secrets the app holds (the database keeps only hashes). */
async function secretCount(clientId: string): Promise<number> {
  const rows = await query<{ n: string }>(
    server.databaseUrl,
    `SELECT count(*) AS n FROM "ClientSecret" s JOIN "Application" a ON a.id = s."applicationId" WHERE a."clientId" = $1`,
    [clientId],
  );
  return Number(rows[0]!.n);
}

test.describe("developer portal in Chromium", () => {
  test.describe.configure({ mode: "serial" });

  let alice: Page;
  let admin: Page;
  let apiClientId: string;
  /** The API client's current secret (after rolling). */
  let currentSecret: string;
  // Long on purpose: the app page must not overflow at phone width.
  const apiName = `Chat Reader ${randomBytes(2).toString("hex")} for the Global Chat Moderation Team Digest`;
  const capturedActions: CapturedAction[] = [];
  /** Requests the browser tried to make to anything but our server (and the login client's fake callback). */
  const foreignRequests: string[] = [];

  test.beforeAll(async ({ browser }) => {
    alice = await (await newContext(browser, foreignRequests)).newPage();
    admin = await (await newContext(browser, foreignRequests)).newPage();
    admin.on("request", (request) => {
      const headers = request.headers();
      if (request.method() === "POST" && headers["next-action"]) {
        capturedActions.push({ url: request.url(), headers, body: request.postData() ?? "" });
      }
    });
  });

  test.afterAll(async () => {
    await alice?.context().close();
    await admin?.context().close();
  });

  test("a developer signs in through the hosted login page and registers an API key client, which is pending", async () => {
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

  test("an admin approves it from the review queue", async () => {
    await signIn(admin, "admin", "/admin");
    // Other spec files fill the queue (it is served oldest first): search for this one, as an admin would.
    await admin.getByLabel("Search", { exact: true }).fill(apiClientId);
    await admin.getByLabel("Search", { exact: true }).press("Enter");
    const row = admin.locator(`tr[data-client-id="${apiClientId}"]`);
    await row.waitFor();
    await expectAccessible(admin, "admin queue");
    await screenshot(admin, "admin-queue");
    await row.getByRole("button", { name: `Approve ${apiName}` }).click();
    await admin.getByText(`Approved ${apiName}`).waitFor();
    expect(await appStatus(apiClientId)).toBe("approved");
  });

  test("the developer sees the secret exactly once, uses it, and rotates it: add, retire, roll", async () => {
    // My apps says a secret is waiting, and saying so reveals nothing (no secret exists yet).
    await alice.setViewportSize({ width: 1280, height: 800 });
    await alice.goto(`${server.url}/apps`);
    const card = alice.locator(`li[data-client-id="${apiClientId}"]`);
    await expect(card.getByTestId("secret-ready")).toBeVisible();
    expect(await secretCount(apiClientId)).toBe(0);

    await alice.goto(`${server.url}/apps/${apiClientId}`);
    const panel = alice.getByTestId("secret-reveal");
    const revealed = alice.getByTestId("client-secret");
    const rows = alice.getByTestId("secret-row");
    await panel.waitFor();
    expect(await panel.textContent()).toContain("copy it now, it will not be shown again");
    // The new secret is at the top of the page, visible without scrolling at 1280×800,
    // and the Approved callout points to it.
    const box = await panel.boundingBox();
    expect(box, "the secret banner is rendered").not.toBeNull();
    expect(box!.y, "the banner starts on screen").toBeGreaterThanOrEqual(0);
    expect(box!.y + box!.height, "the whole banner fits in the first 800 px").toBeLessThanOrEqual(800);
    await expect(alice.getByRole("status").filter({ hasText: "Approved" })).toContainText("client secret is at the top of this page");
    expect(await secretCount(apiClientId)).toBe(1);
    await alice.setViewportSize({ width: 1280, height: 900 });
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

    // Revealed: My apps no longer says a secret is waiting.
    await alice.goto(`${server.url}/apps`);
    await card.waitFor();
    expect(await card.getByTestId("secret-ready").count()).toBe(0);
    await alice.goto(`${server.url}/apps/${apiClientId}`);

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

  test("a rejected app shows the admin's reason to its owner", async () => {
    const name = `Vague App ${randomBytes(2).toString("hex")}`;
    const clientId = await registerApp(alice, { name, type: "api", scopes: [] });
    const reason = "Say what the app does with the chat before we can approve it.";

    // Other spec files fill the queue (served oldest first): look this one up, as an admin would.
    await admin.goto(`${server.url}/admin/apps?q=${clientId}`);
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

  test("an admin suspends an approved app (the owner sees why, tokens stop) and reinstates it", async () => {
    const reason = "Polling the chat far too often; back off and we will reinstate it.";
    const before = await clientCredentials(apiClientId, currentSecret);
    expect(before.status).toBe(200);
    const { access_token: beforeSuspension } = (await before.json()) as { access_token: string };
    expect((await readChat(beforeSuspension)).status).toBe(200);
    await admin.goto(`${server.url}/apps/${apiClientId}`);
    // An admin reviewing someone else's app is in the admin area, and the page names the owner.
    const mainNav = admin.getByRole("navigation", { name: "Main" });
    await expect(mainNav.getByRole("link", { name: "Admin" })).toHaveAttribute("aria-current", "page");
    await expect(mainNav.getByRole("link", { name: "My apps" })).not.toHaveAttribute("aria-current", "page");
    await expect(admin.getByTestId("app-owner")).toContainText("(@alice)");
    // An admin sees the secrets' hints, never a value and no way to change them.
    await admin.getByText("Only the app's owner and team admins can see or manage secrets.").waitFor();
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
    // The owner's own app stays under "My apps", with no owner line.
    await expect(alice.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "My apps" })).toHaveAttribute("aria-current", "page");
    expect(await alice.getByTestId("app-owner").count()).toBe(0);
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

  test("a developer registers a login client, signs in through it with PKCE and calls GET /me", async () => {
    const name = `Sign-in Demo ${randomBytes(2).toString("hex")}`;
    const clientId = await registerApp(alice, { name, type: "login", scopes: ["svc:chat.read"], redirectUri: CALLBACK });
    expect(clientId).toMatch(/^app_/);
    await admin.goto(`${server.url}/admin/apps?q=${clientId}`);
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

  test("admin pages render for an admin (users, audit log) and record who did what", async () => {
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

    // The review queue shows pending apps unless asked, and other spec files (the layout
    // sweep's 60-app queue) share the database: look this approved one up.
    await admin.goto(`${server.url}/admin/apps?status=all&q=${apiClientId}`);
    await admin.locator(`tr[data-client-id="${apiClientId}"]`).waitFor();
    await screenshot(admin, "admin-apps");
  });

  test("a non-admin gets no admin page and no admin action, even when calling them directly", async () => {
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

  test("the browser never reached for a remote host (fonts, scripts, telemetry)", () => {
    expect(foreignRequests).toEqual([]);
  });
});
