import { expect, test, type Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import {
  appStatus,
  expectAccessible,
  expectNoHorizontalOverflow,
  newContext,
  query,
  registerApp,
  screenshot,
  server,
  signIn,
} from "./support";

/**
 * The admin area's review work in Chromium: an admin clears a 50-app queue with search,
 * a type filter and bulk approval (one confirmation each), undoes one approval; a rejected app is
 * resubmitted by its owner and shows up marked, with the old reason; disabling a user asks for a
 * reason, which the audit log then shows under its action filter. The queue, the audit log and the
 * users page are checked with long data (a 120-character name, a 300-character unbroken URL) at
 * 390 and 1280 px: axe, no sideways scrolling, screenshots. Every row this file creates carries a
 * random prefix: the server and its database are shared with the other journeys.
 */

const TAG = `qz${randomBytes(3).toString("hex")}`;
const LONG_NAME = `${TAG} ${"Moderation digest for the global chat and the friends feed ".repeat(3)}`.slice(0, 120);
const LONG_URL = `https://example.com/${"a".repeat(280)}`;

/** 50 pending apps owned by carol, half API key clients and half login clients, oldest first. */
async function seedQueue(): Promise<void> {
  const [carol] = await query<{ id: number }>(server.databaseUrl, `SELECT id FROM "User" WHERE handle = 'carol'`);
  for (let i = 0; i < 50; i++) {
    const login = i % 2 === 1;
    const name = i === 0 ? LONG_NAME : `${TAG} ${login ? "Sign-in" : "Stats"} app ${String(i).padStart(2, "0")}`;
    const description =
      i === 0 ? `Reads the chat; docs at ${LONG_URL}` : `${TAG}: posts a daily summary of the chat to a team channel.`;
    await query(
      server.databaseUrl,
      `INSERT INTO "Application" ("clientId", name, description, type, status, "ownerId", "redirectUris", "postLogoutRedirectUris", scopes, "createdAt", "updatedAt")
       VALUES ($1, $2, $3, $4::"AppType", 'pending', $5, $6, '{}', $7, now() - make_interval(mins => $8), now())`,
      [
        `${login ? "app" : "api"}_${TAG}${String(i).padStart(14, "0")}`,
        name,
        description,
        login ? "login" : "api",
        carol!.id,
        login ? [`https://${TAG}-${i}.example.com/auth/callback`] : [],
        login ? ["svc:chat.read", "svc:profile.read"] : ["svc:chat.read"],
        500 - i,
      ],
    );
  }
}

async function statusCounts(): Promise<Record<string, number>> {
  const rows = await query<{ status: string; n: string }>(
    server.databaseUrl,
    `SELECT status, count(*) AS n FROM "Application" WHERE name LIKE $1 GROUP BY status`,
    [`${TAG}%`],
  );
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

async function checkPage(page: Page, label: string, shot: string): Promise<void> {
  await expectAccessible(page, label);
  await expectNoHorizontalOverflow(page);
  await screenshot(page, shot);
}

test.describe("admin review in Chromium", () => {
  test.describe.configure({ mode: "serial" });

  let admin: Page;
  let alice: Page;
  const foreignRequests: string[] = [];

  test.beforeAll(async ({ browser }) => {
    await seedQueue();
    admin = await (await newContext(browser, foreignRequests)).newPage();
    alice = await (await newContext(browser, foreignRequests)).newPage();
    await signIn(admin, "admin", "/admin/apps");
  });

  test.afterAll(async () => {
    await admin?.context().close();
    await alice?.context().close();
    expect(foreignRequests).toEqual([]);
  });

  test("an admin clears a 50-app queue with search, a type filter and bulk approve, and undoes one approval", async () => {
    // Search: the URL carries it, so a reload keeps it.
    await admin.getByLabel("Search").fill(TAG);
    await admin.getByRole("button", { name: "Apply" }).click();
    await admin.waitForURL(/\?q=/);
    // "All types" is not carried as an empty `type=`: the URL is the clean one.
    expect(new URL(admin.url()).search).toBe(`?q=${TAG}`);
    await expect(admin.getByText("50 applications pending match the filters")).toBeVisible();
    // The status is the filter, not a badge repeated on every row.
    expect(await admin.locator("tbody").getByText("Pending review").count()).toBe(0);
    await admin.locator(`tr:has-text("${LONG_NAME}")`).getByText("Details").click();
    await expect(admin.getByText(LONG_URL).first()).toBeVisible();
    await checkPage(admin, "review queue", "admin-review-queue");

    // Filter: API key clients only.
    await admin.getByLabel("Type").selectOption("api");
    await admin.getByRole("button", { name: "Apply" }).click();
    await admin.waitForURL(/type=api/);
    await admin.reload();
    await expect(admin.getByLabel("Search")).toHaveValue(TAG);
    await expect(admin.getByLabel("Type")).toHaveValue("api");
    await expect(admin.getByText("25 applications pending match the filters")).toBeVisible();

    // Bulk approve the page: one confirmation for 25 apps.
    // Reduced motion: sonner then shows a toast without its fade-in, so axe measures its real colours.
    await admin.emulateMedia({ reducedMotion: "reduce" });
    await admin.getByLabel("Select all on this page").check();
    await admin.getByRole("button", { name: "Approve selected" }).click();
    const confirm = admin.getByRole("dialog", { name: "Approve 25 applications?" });
    await confirm.getByRole("button", { name: "Approve 25" }).click();
    // 25 approvals in one action: give a loaded machine more than the default 5 s.
    await expect(admin.getByText("Approved 25 applications")).toBeVisible({ timeout: 20_000 });
    // axe with a success toast on screen (its colours must pass AA).
    await expectAccessible(admin, "queue with a toast");
    await expect(admin.getByText("No applications", { exact: true })).toBeVisible();
    expect(await statusCounts()).toEqual({ approved: 25, pending: 25 });

    // Login clients: approve one, undo it from the toast, and it is back in the queue.
    await admin.goto(`${server.url}/admin/apps?q=${TAG}&type=login`);
    const first = `${TAG} Sign-in app 01`;
    const row = admin.locator(`tr[data-client-id="app_${TAG}${"1".padStart(14, "0")}"]`);
    await row.getByRole("button", { name: `Approve ${first}` }).click();
    const toast = admin.locator("[data-sonner-toast]").filter({ hasText: `Approved ${first}` });
    await toast.getByRole("button", { name: "Undo" }).click();
    await expect(admin.getByText("Approval undone: the app is back in the queue")).toBeVisible();
    expect(await appStatus(`app_${TAG}${"1".padStart(14, "0")}`)).toBe("pending");
    await expect(row).toBeVisible();
    const undo = await query<{ detail: { to: string } }>(
      server.databaseUrl,
      `SELECT detail FROM "AuditLog" WHERE action = 'app.approve.undo' AND "targetId" = $1`,
      [`app_${TAG}${"1".padStart(14, "0")}`],
    );
    expect(undo.map((u) => u.detail.to)).toEqual(["pending"]);

    // Then the rest of the queue in one go.
    await admin.getByLabel("Select all on this page").check();
    await admin.getByRole("button", { name: "Approve selected" }).click();
    await admin.getByRole("dialog", { name: "Approve 25 applications?" }).getByRole("button", { name: "Approve 25" }).click();
    // 25 approvals in one action: give a loaded machine more than the default 5 s.
    await expect(admin.getByText("Approved 25 applications")).toBeVisible({ timeout: 20_000 });
    expect(await statusCounts()).toEqual({ approved: 50 });
  });

  test("a rejected app is resubmitted by its owner and shows up marked, with the old reason", async () => {
    await signIn(alice, "alice");
    const name = `${TAG} Vague app`;
    const clientId = await registerApp(alice, { name, type: "api", scopes: ["svc:chat.read"] });

    await admin.goto(`${server.url}/admin/apps?q=${encodeURIComponent(name)}`);
    await admin.locator(`tr[data-client-id="${clientId}"]`).getByRole("button", { name: `Reject ${name}` }).click();
    const dialog = admin.getByRole("dialog", { name: `Reject ${name}?` });
    await dialog.getByRole("button", { name: /^It asks for more scopes/ }).click();
    const reason = await dialog.getByLabel("Reason").inputValue();
    expect(reason).toMatch(/^It asks for more scopes/);
    await dialog.getByRole("button", { name: "Reject application" }).click();
    await expect(admin.getByText(`Rejected ${name}`)).toBeVisible();

    // The review loop closes: the edit form shows what the reviewer said.
    await alice.goto(`${server.url}/apps/${clientId}/edit`);
    await expect(alice.getByTestId("status-reason")).toHaveText(reason);
    await alice.getByLabel("Description").fill("Reads the global chat to build a daily digest; needs nothing else.");
    await alice.getByRole("button", { name: "Save and resubmit" }).click();
    await alice.waitForURL(`${server.url}/apps/${clientId}`);
    await expect(alice.getByText("Resubmitted, waiting for review", { exact: true })).toBeVisible();
    await expect(alice.getByTestId("previous-reason")).toHaveText(reason);
    expect(await appStatus(clientId)).toBe("pending");

    await admin.goto(`${server.url}/admin/apps?resubmitted=1&q=${encodeURIComponent(TAG)}`);
    const row = admin.locator(`tr[data-client-id="${clientId}"]`);
    await expect(row.getByText(/Resubmitted/)).toBeVisible();
    await expect(row.getByTestId("previous-rejection")).toContainText(reason);
    await expect(admin.getByLabel("Resubmitted only")).toBeChecked();

    // A viewer on alice's team: Edit answers 403 with the real reason and whom to ask.
    await query(
      server.databaseUrl,
      `INSERT INTO "AppMember" ("applicationId", "userId", role) SELECT a.id, u.id, 'viewer' FROM "Application" a, "User" u WHERE a."clientId" = $1 AND u.handle = 'bob' AND u."worldId" = 0`,
      [clientId],
    );
    const bob = await (await newContext(admin.context().browser()!, foreignRequests)).newPage();
    await signIn(bob, "bob");
    const edit = await bob.goto(`${server.url}/apps/${clientId}/edit`);
    expect(edit!.status()).toBe(403);
    await expect(bob.getByTestId("forbidden-reason")).toContainText("Ask the owner, @alice");

    // The approval reaches the whole team: the bell counts it, the Notifications page lists it.
    await admin.goto(`${server.url}/apps/${clientId}`);
    // An API key client has no consent page: its card says what it is.
    await expect(admin.getByText("About the app", { exact: true })).toBeVisible();
    await expect(admin.getByText("On the consent page", { exact: true })).toHaveCount(0);
    await admin.getByRole("button", { name: `Approve ${name}` }).click();
    await expect(admin.getByText(`Approved ${name}`)).toBeVisible();
    await bob.goto(`${server.url}/apps`);
    const bell = bob.getByRole("link", { name: /^Notifications, \d+ unread$/ });
    await expect(bell).toBeVisible();
    await bell.click();
    await bob.waitForURL(`${server.url}/account/notifications`);
    const notice = bob.getByTestId("notices").getByRole("listitem").filter({ hasText: `Your app "${name}" was approved.` });
    await expect(notice).toBeVisible();
    await expect(notice.getByRole("link", { name: "Open the app" })).toHaveAttribute("href", `/apps/${clientId}`);
    await checkPage(bob, "notifications", "portal-notifications");
    // Shown once: the bell no longer counts it.
    await bob.reload();
    await expect(bob.getByRole("link", { name: "Notifications", exact: true })).toBeVisible();
    await bob.context().close();
  });

  test("an approval names the revision the admin looked at: an app changed since is refused and shown again", async () => {
    // Issue 24 point 1. Two pending apps of carol's; each changes (a stored edit moves its revision)
    // after the admin's page rendered it.
    const [carol] = await query<{ id: number }>(server.databaseUrl, `SELECT id FROM "User" WHERE handle = 'carol'`);
    const ids = [`api_${TAG}stalepage00001`, `api_${TAG}stalequeue0001`];
    for (const [i, clientId] of ids.entries()) {
      await query(
        server.databaseUrl,
        `INSERT INTO "Application" ("clientId", name, description, type, status, "ownerId", "redirectUris", "postLogoutRedirectUris", scopes, "updatedAt")
         VALUES ($1, $2, 'Posts the daily digest.', 'api', 'pending', $3, '{}', '{}', '{svc:chat.read}', now())`,
        [clientId, `${TAG} Stale ${i ? "queue" : "page"} app`, carol!.id],
      );
    }
    const edit = (clientId: string) =>
      query(server.databaseUrl, `UPDATE "Application" SET description = 'Also reads every profile.' WHERE "clientId" = $1`, [clientId]);

    // The admin app view.
    const [onPage, inQueue] = ids as [string, string];
    await admin.goto(`${server.url}/apps/${onPage}`);
    await expect(admin.getByText("Posts the daily digest.")).toBeVisible();
    await edit(onPage);
    await admin.getByRole("button", { name: `Approve ${TAG} Stale page app` }).click();
    await expect(admin.getByText(/changed since you looked at it/)).toBeVisible();
    // Shown again as it is now, and still pending.
    await expect(admin.getByText("Also reads every profile.")).toBeVisible();
    expect(await appStatus(onPage)).toBe("pending");
    await admin.getByRole("button", { name: `Approve ${TAG} Stale page app` }).click();
    await expect(admin.getByText(`Approved ${TAG} Stale page app`)).toBeVisible();
    await expect.poll(() => appStatus(onPage)).toBe("approved");

    // The queue: a row's Approve, and bulk approval.
    await admin.goto(`${server.url}/admin/apps?q=${encodeURIComponent(`${TAG} Stale queue`)}`);
    const row = admin.locator(`tr[data-client-id="${inQueue}"]`);
    await expect(row).toBeVisible();
    await edit(inQueue);
    await row.getByRole("button", { name: `Approve ${TAG} Stale queue app` }).click();
    await expect(admin.getByText(/changed since you looked at it/).first()).toBeVisible();
    expect(await appStatus(inQueue)).toBe("pending");
    await query(server.databaseUrl, `UPDATE "Application" SET description = 'Reads the chat, once more.' WHERE "clientId" = $1`, [inQueue]);
    await admin.getByLabel("Select all on this page").check();
    await admin.getByRole("button", { name: "Approve selected" }).click();
    await admin.getByRole("dialog", { name: "Approve 1 application?" }).getByRole("button", { name: "Approve 1" }).click();
    await expect(admin.getByText(/changed since you looked at it/).first()).toBeVisible();
    expect(await appStatus(inQueue)).toBe("pending");
  });

  test("an admin sets an app's API quota on its page; every process enforces it and the audit log has it", async () => {
    const clientId = `api_${TAG}${"0".padStart(14, "0")}`;
    await admin.goto(`${server.url}/apps/${clientId}`);
    const quota = admin.getByTestId("app-quota");
    await expect(quota).toContainText("6,000 requests per minute (the default)");
    await quota.getByLabel("Requests per minute").fill("0");
    await quota.getByRole("button", { name: "Save quota" }).click();
    await expect(quota.getByText("must be at least 1")).toBeVisible();
    await quota.getByLabel("Requests per minute").fill("1200");
    await quota.getByRole("button", { name: "Save quota" }).click();
    await expect(admin.getByText("Quota set to 1,200 requests per minute")).toBeVisible();
    await expect(quota).toContainText("1,200 requests per minute (set by an admin)");
    await checkPage(admin, "app page with the quota form", "admin-app-quota");
    const rows = await query<{ requestsPerMinute: number }>(
      server.databaseUrl,
      `SELECT "requestsPerMinute" FROM "Application" WHERE "clientId" = $1`,
      [clientId],
    );
    expect(rows[0]!.requestsPerMinute).toBe(1200);
    await quota.getByRole("button", { name: "Use the default" }).click();
    await expect(quota).toContainText("6,000 requests per minute (the default)");
  });

  test("disabling a user asks for a reason, which the audit log shows under its action filter", async () => {
    const handle = `${TAG}_user`;
    await query(
      server.databaseUrl,
      `INSERT INTO "User" (handle, "displayName", "updatedAt") VALUES ($1, $2, now())`,
      [handle, `${TAG} ${"Very Long Display Name ".repeat(5)}`],
    );
    await admin.goto(`${server.url}/admin/users?q=${handle}`);
    const row = admin.locator(`tr[data-handle="${handle}"]`);
    await row.getByRole("button", { name: `Disable @${handle}` }).click();
    const dialog = admin.getByRole("dialog", { name: `Disable @${handle}?` });
    // No reason, no disabling.
    await dialog.getByRole("button", { name: "Disable account" }).click();
    await expect(dialog.getByText("Give a reason (at least 3 characters)")).toBeVisible();
    const reason = `Spam links to ${TAG}.example in the global chat.`;
    await dialog.getByLabel("Reason").fill(reason);
    await dialog.getByRole("button", { name: "Disable account" }).click();
    await expect(admin.getByText(`Disabled @${handle}`, { exact: true })).toBeVisible();
    await checkPage(admin, "admin users", "admin-review-users");

    // Enabling confirms too.
    await row.getByRole("button", { name: `Enable @${handle}` }).click();
    await admin.getByRole("dialog", { name: `Enable @${handle}?` }).getByRole("button", { name: "Enable account" }).click();
    await expect(admin.getByText(`Enabled @${handle}`, { exact: true })).toBeVisible();

    await admin.goto(`${server.url}/admin/audit`);
    await admin.getByLabel("Action").selectOption("user.disable");
    await admin.getByRole("button", { name: "Filter" }).click();
    await admin.waitForURL(/action=user\.disable/);
    const entry = admin.locator(`tr[data-audit-action="user.disable"]`).filter({ hasText: `@${handle}` });
    await expect(entry).toContainText(reason);
    expect(await admin.locator("tbody tr:not([data-audit-action='user.disable'])").count()).toBe(0);

    // The person's page has their history, and (alice) the apps they work on.
    await admin.goto(`${server.url}/admin/users/${handle}`);
    const history = admin.getByTestId("user-history");
    await expect(history.getByRole("listitem").filter({ hasText: "user.disable" })).toContainText(reason);
    await expect(history.getByRole("listitem").filter({ hasText: "user.enable" })).toBeVisible();
    await checkPage(admin, "admin user page", "admin-user-page");
    await admin.goto(`${server.url}/admin/users/alice`);
    await expect(admin.getByTestId("user-apps").getByRole("link", { name: `${TAG} Vague app` })).toBeVisible();
    // On a phone every admin tab is on screen, "Audit log" included.
    await admin.setViewportSize({ width: 390, height: 844 });
    const tab = await admin.getByRole("navigation", { name: "Admin sections" }).getByRole("link", { name: "Audit log" }).boundingBox();
    expect(tab!.x + tab!.width).toBeLessThanOrEqual(390);
    await admin.setViewportSize({ width: 1280, height: 900 });

    // App names, not client ids, name the targets (the long name included).
    await admin.goto(`${server.url}/admin/audit?action=app.approve&target=api_${TAG}${"0".padStart(14, "0")}`);
    await expect(admin.getByRole("link", { name: LONG_NAME })).toBeVisible();
    await admin.goto(`${server.url}/admin/audit`);
    await expect(admin.getByRole("link", { name: `${TAG} Vague app` }).first()).toBeVisible();
    await checkPage(admin, "audit log", "admin-review-audit");
  });
});
