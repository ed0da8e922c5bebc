import { expect, test } from "@playwright/test";
import { newContext, query, screenshot, server, signIn } from "./support";

test("an unknown app, or someone else's, is a 404 page with status 404 (not a streamed 200)", async ({ browser }) => {
  const foreignRequests: string[] = [];
  const alice = await (await newContext(browser, foreignRequests)).newPage();
  await signIn(alice, "alice");

  const [others] = await query<{ clientId: string }>(
    server.databaseUrl,
    `SELECT a."clientId" FROM "Application" a JOIN "User" u ON u.id = a."ownerId" WHERE u.handle <> 'alice' LIMIT 1`,
  );
  expect(others, "the demo data has an app alice does not own").toBeTruthy();
  for (const pathname of ["/apps/api_unknown0000000000", "/apps/not%20an%20id", `/apps/${others!.clientId}`, `/apps/${others!.clientId}/edit`]) {
    const response = await alice.goto(`${server.url}${pathname}`);
    expect(response?.status(), pathname).toBe(404);
    await alice.getByRole("heading", { name: "Page not found" }).waitFor();
  }
  await screenshot(alice, "app-not-found");
  await alice.context().close();
  expect(foreignRequests, "the browser never reached for a remote host").toEqual([]);
});

/** A missing docs page is a 404 inside the docs layout: the header, the docs navigation and the search. */
test("a missing docs page is a 404 inside the docs layout", async ({ browser }) => {
  const foreignRequests: string[] = [];
  const page = await (await newContext(browser, foreignRequests)).newPage();
  const response = await page.goto(`${server.url}/docs/no-such-page`);
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page not found", level: 1 })).toBeVisible();
  await expect(page.getByRole("banner")).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Documentation" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Search docs" })).toBeVisible();
  await page.getByRole("navigation", { name: "Documentation" }).getByRole("link", { name: "Scopes" }).click();
  await page.getByRole("heading", { name: "Scopes", level: 1 }).waitFor();
  await page.goto(`${server.url}/docs/deeper/still/missing`);
  await expect(page.getByRole("navigation", { name: "Documentation" })).toBeVisible();
  await screenshot(page, "docs-not-found");
  await page.context().close();
  expect(foreignRequests, "the browser never reached for a remote host").toEqual([]);
});
