import { afterAll, beforeAll, expect, it } from "vitest";
import { rmSync } from "node:fs";
import { localhostCertificate } from "../helpers/agents";
import { startExample, type RunningExample } from "../helpers/example";
import { runCli } from "../helpers/cli";
import { completeSignIn, createTestApp, createTestUser, CookieJar, signInAndGetTokens } from "../helpers/oidc";
import { startServer, type TestServer } from "../helpers/server";

/**
 * examples/mcp-agent, run as its README says against a real server: it serves its own client
 * metadata document, meets the MCP server's 401 and prints where the person signs in; the person
 * signs in and allows it (by HTTP, as a browser without JavaScript does), and their browser returns
 * to the agent's callback. The agent then lists its tools, reads the profile, posts to the chat (an
 * admin trusted its domain first) and prints a notification that arrives while it follows them.
 */
let server: TestServer;
let agent: RunningExample;
let tls: ReturnType<typeof localhostCertificate>;
const PASSWORD = "agent-user-password";

beforeAll(async () => {
  tls = localhostCertificate();
  server = await startServer({ seed: true, env: { CLIENT_METADATA_ALLOW_PRIVATE: "1", NODE_EXTRA_CA_CERTS: tls.certFile } });
  await createTestUser(server.databaseUrl, { handle: "agentuser", password: PASSWORD, displayName: "Agnes User" });
  // The agent's document is on this machine, domain localhost: trusted, its agents may ask to post.
  expect((await runCli(server.databaseUrl, ["agents", "trust", "localhost"])).code).toBe(0);
  agent = startExample("mcp-agent", "src/agent.ts", {
    PLATFORM_URL: server.url,
    AGENT_TLS_CERT: tls.certFile,
    AGENT_TLS_KEY: tls.keyFile,
    AGENT_PORT: "0",
  });
});

afterAll(async () => {
  await agent?.stop();
  await server?.stop();
  if (tls) rmSync(tls.dir, { recursive: true, force: true });
});

it("signs a person in, lists tools, reads the profile, posts, and prints a new notification", async () => {
  const [, authorizationUrl] = await agent.waitFor(/^agent: to let the agent act for you, open (\S+)$/);
  const signedIn = await completeSignIn(server, authorizationUrl!, {
    handle: "agentuser",
    password: PASSWORD,
    redirectUri: new URL(authorizationUrl!).searchParams.get("redirect_uri")!,
    jar: new CookieJar(),
  });
  expect(signedIn.consentShown).toBe(true);
  // The browser returns to the agent's callback.
  expect((await fetch(signedIn.callback)).status).toBe(200);

  await agent.waitFor(/^agent: connected to Social Platform$/);
  const [, tools] = await agent.waitFor(/^agent: tools (.+)$/);
  expect(tools!.split(", ")).toEqual(expect.arrayContaining(["get_me", "post_chat_message", "list_my_notifications", "search_docs"]));
  await agent.waitFor(/^agent: signed in as @agentuser \(Agnes User\)$/);
  const [, messageId] = await agent.waitFor(/^agent: posted message (\d+)$/);

  await agent.waitFor(/^agent: following notifications/);
  const poker = await createTestApp(server.databaseUrl, { type: "login", scopes: ["svc:pokes.write", "svc:chat.read"] });
  await createTestUser(server.databaseUrl, { handle: "poker", password: PASSWORD, displayName: "Poker" });
  const { access_token } = await signInAndGetTokens(server, {
    handle: "poker",
    password: PASSWORD,
    clientId: poker.clientId,
    redirectUri: "http://localhost:9/callback",
    scope: "openid svc:pokes.write svc:chat.read",
  });
  const messages = (await (await fetch(`${server.apiUrl}/global-chat/messages?limit=5`, { headers: { authorization: `Bearer ${access_token}` } })).json()) as {
    data: { messages: { id: string; text: string }[] };
  };
  expect(messages.data.messages.find((m) => m.id === messageId)?.text).toBe("Hello from an AI agent, for @agentuser");
  const poke = await fetch(`${server.apiUrl}/users/agentuser/poke`, { method: "POST", headers: { authorization: `Bearer ${access_token}` } });
  expect(poke.status).toBe(200);
  // The subscription's update, then the read: well within the test's wait.
  await agent.waitFor(/^agent: new notification: poke from @poker$/, 5_000);
  expect(agent.lines.join("\n")).not.toMatch(/eyJ/); // no token in its log
});
