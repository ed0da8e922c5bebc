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
