import { expect, test } from "@playwright/test";
import { newContext, server, signIn } from "./support";

test("sign-out ends the platform session too", async ({ browser }) => {
  const foreignRequests: string[] = [];
  const alice = await (await newContext(browser, foreignRequests)).newPage();
  await signIn(alice, "alice");

  await alice.goto(`${server.url}/apps`);
  await alice.locator("summary", { hasText: "Account menu for @alice" }).click();
  await alice.getByRole("button", { name: "Sign out" }).click();
  // The sign-in service asks to confirm ending the platform session.
  await alice.waitForURL(/\/interaction\/logout/);
  await alice.getByRole("button", { name: "Sign out", exact: true }).click();
  await alice.waitForURL(`${server.url}/`);

  // The portal session is gone, and so is the platform one: signing in asks for the password again.
  await alice.goto(`${server.url}/apps`);
  await alice.waitForURL(/\/signin\?/);
  await alice.getByRole("button", { name: "Continue with your platform account" }).click();
  await alice.waitForURL(/\/interaction\//);
  await alice.getByLabel("Password").waitFor();
  await alice.context().close();
  expect(foreignRequests, "the browser never reached for a remote host").toEqual([]);
});
