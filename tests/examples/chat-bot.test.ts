import { afterAll, beforeAll, expect, it } from "vitest";
import { startExample, type RunningExample } from "../helpers/example";
import { clientCredentialsToken, completeDeviceSignIn, createTestApp, createTestUser, signInAndGetTokens } from "../helpers/oidc";
import { startServer, type TestServer } from "../helpers/server";

/**
 * examples/chat-bot, run as its README says against a real server: it reads the chat with its app
 * token, its operator signs it in through the device flow (the person's side by HTTP, as a browser
 * without JavaScript does it: tests/helpers/oidc.ts), and it answers `!ping` as the operator — after
 * waiting out the 429 `rate_limited` the operator's own `!ping` causes (one post per 2 seconds).
 */
let server: TestServer;
let bot: RunningExample;
let reader: { clientId: string; clientSecret: string };
let operatorApp: { clientId: string };
const PASSWORD = "bot-operator-password";

beforeAll(async () => {
  server = await startServer({ seed: true });
  reader = (await createTestApp(server.databaseUrl, { type: "api", scopes: ["svc:chat.read"] })) as typeof reader;
  operatorApp = await createTestApp(server.databaseUrl, { type: "login", scopes: ["svc:chat.write"], deviceFlow: true });
  await createTestUser(server.databaseUrl, { handle: "botop", password: PASSWORD, displayName: "Bot Operator" });
  bot = startExample("chat-bot", "src/bot.ts", {
    PLATFORM_URL: server.url,
    BOT_CREDENTIALS: `${reader.clientId}:${reader.clientSecret}`,
    OPERATOR_CLIENT_ID: operatorApp.clientId,
    POLL_MS: "250",
  });
});

afterAll(async () => {
  await bot?.stop();
  await server?.stop();
});

interface Message {
  id: string;
  text: string;
  reply_to_id?: string;
  author: { handle: string };
}

async function newestMessages(): Promise<Message[]> {
  const { access_token } = await clientCredentialsToken(server, reader.clientId, reader.clientSecret);
  const res = await fetch(`${server.apiUrl}/global-chat/messages?limit=20`, { headers: { authorization: `Bearer ${access_token}` } });
  return ((await res.json()) as { data: { messages: Message[] } }).data.messages;
}

it("signs its operator in with the device flow and answers !ping as them, honouring Retry-After", async () => {
  await bot.waitFor(/^bot: reading the chat with its app token/);
  const [, userCode] = await bot.waitFor(/enter the code (\S+)$/);
  const person = await completeDeviceSignIn(server, { userCode: userCode!, handle: "botop", password: PASSWORD });
  expect(person.step).toBe("success");
  expect(person.loginShown).toBe(true);
  await bot.waitFor(/^bot: signed in as @botop;/, 30_000);

  // The operator posts the command themselves (through another app of theirs); the bot's reply, as
  // the same person within 2 seconds, is refused with 429 rate_limited first.
  const { access_token } = await signInAndGetTokens(server, { handle: "botop", password: PASSWORD, clientId: operatorApp.clientId, redirectUri: "http://localhost:9/callback" });
  const posted = await fetch(`${server.apiUrl}/global-chat/messages`, {
    method: "POST",
    headers: { authorization: `Bearer ${access_token}`, "content-type": "application/json" },
    body: JSON.stringify({ text: "!ping" }),
  });
  expect(posted.status).toBe(201);
  const ping = ((await posted.json()) as { data: Message }).data;

  const [, pingId, answerId] = await bot.waitFor(/^bot: answered message (\d+) with message (\d+)$/, 30_000);
  expect(pingId).toBe(ping.id);
  expect(bot.lines).toContainEqual(expect.stringMatching(/^bot: rate limited, retrying in \d+ s$/));
  const answer = (await newestMessages()).find((m) => m.id === answerId)!;
  expect(answer).toMatchObject({ text: "pong @botop", reply_to_id: ping.id, author: { handle: "botop" } });
  expect(bot.lines.join("\n")).not.toMatch(/eyJ/); // no token in its log
  expect(bot.lines.join("\n")).not.toContain(reader.clientSecret);
});
