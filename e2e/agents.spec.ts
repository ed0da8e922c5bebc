import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { decodeJwt } from "jose";
import { createTestUser } from "../tests/helpers/oidc";
import { TestAgent } from "../tests/helpers/agents";
import { makeLogo } from "../tests/helpers/images";
import { startAgentSite, type AgentSite } from "./agents";
import { CALLBACK, expectAccessible, newPersonPage, screenshot, server, signIn } from "./support";

/**
 * An AI agent in Chromium (issue 40): an MCP client (the official SDK's `auth()`) whose client ID is
 * its metadata document's URL sends a person to the platform; the person signs in and reads a
 * consent page that names the agent only as its own claim, shows the verified domain and the client
 * ID in full, and says the platform has not reviewed it; the token is for the MCP server. Then the
 * person finds it under Connected apps, and an admin finds it on the Agents page, suspends and
 * reinstates it, and trusts its domain.
 */
const foreignRequests: string[] = [];
let site: AgentSite;
let clientId: string;

test.beforeAll(async () => {
  site = await startAgentSite();
  const name = `research-assistant-${Date.now()}`;
  clientId = site.publish(name, { logo_uri: site.publishLogo(name, await makeLogo("png", { width: 192, height: 192, color: "#7c3aed" })) });
});
test.afterAll(async () => {
  await site?.close();
  expect(foreignRequests).toEqual([]);
});

test.describe.configure({ mode: "serial" });

/** A new person's browser at the agent's authorization URL, signed in on the hosted page, on the agent consent page. */
async function signInToConsent(browser: Browser, agent: TestAgent, handle: string): Promise<Page> {
  const page = await newPersonPage(browser, foreignRequests);
  await page.goto(agent.authorizationUrl!.href);
  await page.getByLabel("Username").fill(handle);
  await page.getByLabel("Password").fill("agents-password-1");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Allow an AI agent to access your account?");
  return page;
}

test("an MCP client's agent signs a person in through the agent consent page; its token is for /mcp", async ({ browser }) => {
  const handle = `agent_user_${Date.now().toString(36)}`;
  await createTestUser(server.databaseUrl, { handle, password: "agents-password-1", displayName: "Agnes Agentsson" });
  const agent = new TestAgent(clientId, CALLBACK);
  const mcp = `${new URL(server.url).origin}/mcp`;
  expect(await auth(agent, { serverUrl: mcp })).toBe("REDIRECT");
  const page = await signInToConsent(browser, agent, handle);
  const identity = page.getByTestId("agent-identity");
  await expect(identity).toContainText("It says it is Research Assistant and that the logo above is its own. The platform has not checked that name or logo.");
  // The logo its document points to, copied to and served from the platform's origin (a request
  // to the agent's site would be in foreignRequests).
  const logo = page.getByTestId("app-logo");
  const src = await logo.getAttribute("src");
  expect(src).toMatch(/^\/media\/logos\/[^/]+\/[0-9a-f]{16}\.png$/);
  expect(src!.split("/")[3]).toBe(encodeURIComponent(clientId));
  await expect.poll(() => logo.evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : -1))).toBe(192);
  await expect(identity).toContainText("Its client ID is verified to belong to localhost:");
  await expect(identity).toContainText(clientId);
  await expect(page.getByTestId("agent-not-reviewed")).toBeVisible();
  // It asked for every scope the MCP server lists and is shown the read ones only.
  const permissions = page.getByRole("list", { name: "Requested permissions" });
  await expect(permissions).toContainText("svc:chat.read");
  await expect(permissions).not.toContainText("svc:chat.write");
  await expectAccessible(page, "agent consent");
  await screenshot(page, "agent-consent");
  await page.setViewportSize({ width: 1280, height: 900 });

  await page.getByRole("button", { name: "Allow" }).click();
  await page.waitForURL((url) => url.href.startsWith(CALLBACK));
  const callback = new URL(page.url());
  expect(callback.searchParams.get("iss")).toBe(server.issuer);
  expect(await auth(agent, { serverUrl: mcp, authorizationCode: callback.searchParams.get("code")! })).toBe("AUTHORIZED");
  expect(decodeJwt(agent.tokens()!.access_token)).toMatchObject({ aud: mcp, client_id: clientId });
  // One tool call, which the admin's view of agents counts (the last journey).
  const called = await fetch(mcp, {
    method: "POST",
    headers: { authorization: `Bearer ${agent.tokens()!.access_token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_me", arguments: {} } }),
  });
  expect(((await called.json()) as { result: { structuredContent: { user: { username: string } } } }).result.structuredContent.user.username).toBe(handle);

  // Connected apps lists it with its domain; revoking it takes its refresh token back.
  // The portal signs in through the platform session the person has now: one click.
  await page.goto(`${server.url}/account/apps`);
  await page.getByRole("button", { name: /Continue with your platform account/ }).click();
  await page.waitForURL(/\/account\/apps$/);
  const card = page.getByRole("listitem").filter({ hasText: "Research Assistant" });
  await expect(card).toContainText("AI agent from localhost");
  await expectAccessible(page, "connected apps with an agent");
  await card.getByRole("button", { name: "Revoke access of Research Assistant" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Revoke access" }).click();
  await expect(page.getByRole("heading", { name: "No connected apps" })).toBeVisible();
  const refreshed = await fetch(`${server.issuer}/protocol/openid-connect/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "refresh_token", client_id: clientId, refresh_token: agent.tokens()!.refresh_token! }),
  });
  expect(refreshed.status).toBe(400);
  await page.context().close();
});

test("an older MCP client registers itself; the consent page says no one verified who publishes it", async ({ browser }) => {
  const handle = `agent_dcr_${Date.now().toString(36)}`;
  await createTestUser(server.databaseUrl, { handle, password: "agents-password-1", displayName: "Rita Registersson" });
  // No metadata document: auth() registers the client (DYNAMIC_REGISTRATION=agents in global-setup).
  const agent = new TestAgent(undefined, CALLBACK);
  const api = `${new URL(server.url).origin}/api/v1`;
  expect(await auth(agent, { serverUrl: api })).toBe("REDIRECT");
  const registered = agent.clientInformation()!.client_id;
  expect(registered).toMatch(/^agt_/);
  const page = await signInToConsent(browser, agent, handle);
  const identity = page.getByTestId("agent-identity");
  await expect(identity).toContainText("It says it is Test agent. The platform has not checked that name.");
  await expect(page.getByTestId("agent-unverified")).toHaveText("It registered itself with the platform: no one has verified who publishes it.");
  await expect(identity).not.toContainText("verified to belong");
  await expect(page.getByTestId("agent-not-reviewed")).toBeVisible();
  await expectAccessible(page, "registered agent consent");
  await screenshot(page, "agent-consent-registered");
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.getByRole("button", { name: "Allow" }).click();
  await page.waitForURL((url) => url.href.startsWith(CALLBACK));
  const code = new URL(page.url()).searchParams.get("code")!;
  expect(await auth(agent, { serverUrl: api, authorizationCode: code })).toBe("AUTHORIZED");
  expect(decodeJwt(agent.tokens()!.access_token)).toMatchObject({ aud: api, client_id: registered });

  await page.goto(`${server.url}/account/apps`);
  await page.getByRole("button", { name: /Continue with your platform account/ }).click();
  await page.waitForURL(/\/account\/apps$/);
  await expect(page.getByRole("listitem").filter({ hasText: "Test agent" })).toContainText("AI agent that registered itself");
  await page.context().close();
});

test("an admin finds the agent on the Agents page, suspends and reinstates it, and trusts its domain", async ({ browser }) => {
  const page = await newPersonPage(browser, foreignRequests);
  await signIn(page, "admin", "/admin/agents");
  const row = page.locator(`tr[data-client-id="${clientId}"]`);
  await expect(row).toContainText("Research Assistant");
  await expect(row).toContainText("Domain localhost");
  await expect(row).toContainText("Read scopes only");
  // The request log is written in batches: the call shows once it is in.
  await expect(async () => {
    await page.reload();
    await expect(row).toContainText("1 of them over MCP", { timeout: 1_000 });
  }).toPass({ timeout: 15_000 });
  await expectAccessible(page, "admin agents");

  await row.getByRole("button", { name: "Suspend Research Assistant" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByRole("button", { name: "Spam or abuse reported by several people." }).click();
  await dialog.getByRole("button", { name: "Suspend application" }).click();
  await expect(row).toContainText("Suspended");
  await row.getByRole("button", { name: "Reinstate Research Assistant" }).click();
  await expect(row).toContainText("Active");

  await page.getByLabel("Domain", { exact: true }).fill("localhost");
  await page.getByLabel("Rule", { exact: true }).selectOption("trusted");
  await page.getByRole("button", { name: "Set rule" }).click();
  const rules = page.getByRole("list", { name: "Agent rules" });
  await expect(rules).toContainText("Trusted domain");
  await expect(row).toContainText("Trusted domain");
  await screenshot(page, "admin-agents");
  await page.setViewportSize({ width: 1280, height: 900 });
  await rules.getByRole("button", { name: "Remove the rule for localhost" }).click();
  // Other journeys' rules may be listed (the layout sweep's long ones): only this one went.
  await expect(page.getByRole("list", { name: "Agent rules" }).getByText("localhost", { exact: true })).toHaveCount(0);
  await page.context().close();
});
