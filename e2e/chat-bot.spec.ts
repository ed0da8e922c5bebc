import { expect, test } from "@playwright/test";
import { startExample, type RunningExample } from "../tests/helpers/example";
import { clientCredentialsToken, createTestApp, createTestUser, signInAndGetTokens } from "../tests/helpers/oidc";
import { expectAccessible, newPersonPage, screenshot, server } from "./support";

/**
 * examples/chat-bot with its operator's device sign-in completed in Chromium, as a person does it:
 * the bot prints its link and code, the person opens the link, confirms the code, signs in and
 * allows the bot; the bot then answers `!ping` in the chat as that person (tests/examples/chat-bot.test.ts
 * drives the same by HTTP and checks the 429 Retry-After path).
 */
const PASSWORD = "bot-pilot-password";

test.describe.serial("chat bot signed in through the device flow in a browser", () => {
  const foreignRequests: string[] = [];
  let bot: RunningExample;
  let reader: { clientId: string; clientSecret: string };
  let operatorApp: { clientId: string };

  test.beforeAll(async () => {
    await createTestUser(server.databaseUrl, { handle: "botpilot", password: PASSWORD, displayName: "Bot Pilot" });
    reader = (await createTestApp(server.databaseUrl, { type: "api", name: "Ping bot reader", scopes: ["svc:chat.read"] })) as typeof reader;
    operatorApp = await createTestApp(server.databaseUrl, { type: "login", name: "Ping bot", scopes: ["svc:chat.write"], deviceFlow: true });
    bot = startExample("chat-bot", "src/bot.ts", {
      PLATFORM_URL: server.url,
      BOT_CREDENTIALS: `${reader.clientId}:${reader.clientSecret}`,
      OPERATOR_CLIENT_ID: operatorApp.clientId,
      POLL_MS: "250",
    });
  });

  test.afterAll(async () => {
    await bot?.stop();
  });

  test("the operator confirms the bot's code in the browser; the bot answers !ping as them", async ({ browser }) => {
    const [, link] = await bot.waitFor(/^bot: or open (\S+)$/);
    const [, userCode] = await bot.waitFor(/enter the code (\S+)$/);

    const page = await newPersonPage(browser, foreignRequests);
    await page.goto(link!);
    await expect(page.getByLabel("Code")).toHaveValue(userCode!);
    await page.getByRole("button", { name: "Continue" }).click();
    await expect(page.getByRole("heading", { name: "Is this the code on your device?" })).toBeVisible();
    await expect(page.getByText("Ping bot", { exact: true })).toBeVisible();
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByLabel("Username").fill("botpilot");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page.getByRole("heading", { name: "Allow Ping bot to access your account?" })).toBeVisible();
    await page.getByRole("button", { name: "Allow" }).click();
    await expect(page.getByRole("heading", { name: "You're signed in on your device" })).toBeVisible();
    await expectAccessible(page, "device success for the bot");
    await screenshot(page, "device-chat-bot-success");
    await page.context().close();

    await bot.waitFor(/^bot: signed in as @botpilot;/, 30_000);
    // Someone asks in the chat (here the operator, through another sign-in of theirs).
    const { access_token } = await signInAndGetTokens(server, { handle: "botpilot", password: PASSWORD, clientId: operatorApp.clientId, redirectUri: "http://localhost:9/callback" });
    const posted = await fetch(`${server.apiUrl}/global-chat/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${access_token}`, "content-type": "application/json" },
      body: JSON.stringify({ text: "!ping please" }),
    });
    expect(posted.status).toBe(201);
    const ping = ((await posted.json()) as { data: { id: string } }).data;
    const [, pingId, answerId] = await bot.waitFor(/^bot: answered message (\d+) with message (\d+)$/, 30_000);
    expect(pingId).toBe(ping.id);

    const token = await clientCredentialsToken(server, reader.clientId, reader.clientSecret);
    const page2 = await fetch(`${server.apiUrl}/global-chat/messages?limit=50`, { headers: { authorization: `Bearer ${token.access_token}` } });
    const messages = ((await page2.json()) as { data: { messages: { id: string; text: string; reply_to_id?: string; author: { handle: string } }[] } }).data.messages;
    expect(messages.find((m) => m.id === answerId)).toMatchObject({ text: "pong @botpilot", reply_to_id: ping.id, author: { handle: "botpilot" } });
  });

  test("the browser never reached for a remote host", () => {
    expect(foreignRequests).toEqual([]);
  });
});
