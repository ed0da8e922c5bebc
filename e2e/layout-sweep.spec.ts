import { expect, test } from "@playwright/test";
import { query, server } from "./support";
import { app, closePeople, expectClean, foreignRequests, openPeople, sweep } from "./sweep";

// The layout sweep (e2e/sweep.ts): every page in both themes, each checked light, then switched to dark in place.
test.describe("layout, axe and console sweep at 390 px and 1280 px, light and dark: public and owner pages", () => {
  test.beforeAll(async ({ browser }) => {
    test.setTimeout(180_000);
    await openPeople(browser);
  });

  test.afterAll(closePeople);

  // The public pages, signed out.
  test("landing", async () => {
    expectClean(await sweep("anonymous", "landing", (p) => p.goto(`${server.url}/`)));
  });
  test("portal sign-in page", async () => {
    expectClean(await sweep("anonymous", "signin", (p) => p.goto(`${server.url}/signin`)));
  });
  test("not found", async () => {
    expectClean(await sweep("anonymous", "not-found", (p) => p.goto(`${server.url}/no-such-page`), { status: 404 }));
  });

  // The owner's pages.
  test("My apps (long names and URLs)", async () => {
    expectClean(await sweep("alice", "my-apps", (p) => p.goto(`${server.url}/apps`)));
  });
  test("new application", async () => {
    expectClean(await sweep("alice", "app-new", (p) => p.goto(`${server.url}/apps/new`)));
  });
  test("app page: pending API client", async () => {
    expectClean(await sweep("alice", "app-pending", (p) => p.goto(`${server.url}/apps/${app("pending").clientId}`)));
  });
  test("app page: rejected API client", async () => {
    expectClean(await sweep("alice", "app-rejected", (p) => p.goto(`${server.url}/apps/${app("rejected").clientId}`)));
  });
  test("app page: approved API client, the one-time secret banner", async () => {
    // The banner shows once: the first view mints the secret. Each visit (the sweep's second one, a
    // retried test) first puts the app back to "approved, no secret yet", so each sees the banner.
    expectClean(
      await sweep("alice", "app-approved-secret", async (p) => {
        await query(
          server.databaseUrl,
          `DELETE FROM "ClientSecret" WHERE "applicationId" = (SELECT id FROM "Application" WHERE "clientId" = $1)`,
          [app("approvedNew").clientId],
        );
        await p.goto(`${server.url}/apps/${app("approvedNew").clientId}`);
        await p.getByTestId("secret-reveal").waitFor();
      }),
    );
  });
  test("app page: approved API client with a secret", async () => {
    expectClean(await sweep("alice", "app-approved", (p) => p.goto(`${server.url}/apps/${app("approvedKept").clientId}`)));
  });
  test("app page: suspended API client", async () => {
    expectClean(await sweep("alice", "app-suspended", (p) => p.goto(`${server.url}/apps/${app("suspended").clientId}`)));
  });
  test("app page: approved login client", async () => {
    expectClean(await sweep("alice", "app-login", (p) => p.goto(`${server.url}/apps/${app("login").clientId}`)));
  });
  test("app page: the delete dialog", async () => {
    expectClean(
      await sweep("alice", "app-delete-dialog", async (p) => {
        await p.goto(`${server.url}/apps/${app("pending").clientId}`);
        await p.getByRole("button", { name: "Delete application" }).click();
        await p.getByRole("dialog").waitFor();
      }),
    );
  });
  test("app page: the Usage tab (issue 16) with 1,000 logged requests (issue 28)", async () => {
    expectClean(await sweep("alice", "app-usage", (p) => p.goto(`${server.url}/apps/${app("approvedKept").clientId}/usage`)));
  });
  test("app page: the Usage tab, 30 days (issue 28: a bar per day, round ticks)", async () => {
    expectClean(await sweep("alice", "app-usage-30d", (p) => p.goto(`${server.url}/apps/${app("approvedKept").clientId}/usage?range=30d`)));
  });
  test("app page: the Usage tab, the request log filtered and paged (issue 28)", async () => {
    const clientId = app("approvedKept").clientId;
    expectClean(
      await sweep("alice", "app-usage-filtered", async (p) => {
        await p.goto(`${server.url}/apps/${clientId}/usage?status=4xx`);
        await p.getByRole("link", { name: "Older requests" }).click();
        await p.waitForURL(/before=/);
      }),
    );
  });
  test("app page: a logged request's detail view (issue 28)", async () => {
    const rows = await query<{ requestId: string }>(
      server.databaseUrl,
      `SELECT "requestId" FROM "RequestLog" WHERE "clientId" = $1 AND length("requestId") = 64 ORDER BY at DESC LIMIT 1`,
      [app("approvedKept").clientId],
    );
    expectClean(
      await sweep("alice", "app-usage-request", (p) =>
        p.goto(`${server.url}/apps/${app("approvedKept").clientId}/usage/requests/${encodeURIComponent(rows[0]!.requestId)}`),
      ),
    );
  });
  test("app page: the Webhooks tab (issue 25)", async () => {
    expectClean(await sweep("alice", "app-webhooks", (p) => p.goto(`${server.url}/apps/${app("approvedKept").clientId}/webhooks`)));
  });
  test("edit application", async () => {
    expectClean(await sweep("alice", "app-edit", (p) => p.goto(`${server.url}/apps/${app("pending").clientId}/edit`)));
  });

  test("the browser never reached for a remote host", () => {
    expect(foreignRequests).toEqual([]);
  });
});
