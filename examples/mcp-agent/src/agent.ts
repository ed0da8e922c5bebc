import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";

/**
 * An AI agent in one file, on the official MCP SDK's client and the platform's MCP server only:
 *  - it names itself by its Client ID Metadata Document, which it serves itself over https on
 *    AGENT_PORT (a client ID is an https URL), and its redirect URI is a loopback address where the
 *    person's browser comes back (RFC 8252): nobody registers it;
 *  - it connects to {PLATFORM_URL}/mcp; the 401 sends the SDK to the platform's sign-in, it prints
 *    the address for the person to open, and the person signs in and allows it in their browser;
 *  - it lists the tools its grant allows, reads the person's profile, posts to the global chat
 *    (when the grant allows it: an admin trusts the agent's domain) and follows the person's
 *    notifications: it subscribes to the resource platform://me/notifications, and on each
 *    `notifications/resources/updated` reads it and prints what is new.
 *
 * Environment: AGENT_TLS_CERT and AGENT_TLS_KEY (a certificate for localhost, PEM files),
 * PLATFORM_URL (default http://localhost:3000), AGENT_PORT (default 4100).
 * The platform must trust that certificate and fetch from this machine: start it with
 * NODE_EXTRA_CA_CERTS=<the certificate> CLIENT_METADATA_ALLOW_PRIVATE=1 (development only; a real
 * agent's document is on its own public https site).
 */
const PLATFORM_URL = (process.env.PLATFORM_URL ?? "http://localhost:3000").replace(/\/$/, "");

const { AGENT_TLS_CERT, AGENT_TLS_KEY } = process.env;
if (!AGENT_TLS_CERT || !AGENT_TLS_KEY) {
  console.error("Set AGENT_TLS_CERT and AGENT_TLS_KEY to a certificate for localhost and its key (see README.md)");
  process.exit(1);
}

// Where the person's browser comes back with the code: a loopback address of this machine.
let returned: (code: string) => void;
const code = new Promise<string>((resolve) => (returned = resolve));
const callback = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  const given = url.pathname === "/callback" ? url.searchParams.get("code") : null;
  if (!given) return void res.writeHead(404).end();
  returned(given);
  res.writeHead(200, { "content-type": "text/plain" }).end("Signed in: you can close this tab.");
});
await new Promise<void>((resolve) => callback.listen(0, "127.0.0.1", resolve));

// The agent's client ID: the https URL of its metadata document.
const site = createHttpsServer({ cert: readFileSync(AGENT_TLS_CERT), key: readFileSync(AGENT_TLS_KEY) }, (req, res) => {
  if (req.url !== "/client.json") return void res.writeHead(404).end();
  res.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=3600" }).end(JSON.stringify(metadata));
});
await new Promise<void>((resolve) => site.listen(Number(process.env.AGENT_PORT ?? 4100), "127.0.0.1", resolve));
const origin = `https://localhost:${(site.address() as AddressInfo).port}`;
const metadata = {
  client_id: `${origin}/client.json`,
  client_name: "Example MCP agent",
  client_uri: origin,
  redirect_uris: [`http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`],
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  token_endpoint_auth_method: "none",
};

/** What the SDK's auth() keeps between the two halves of a sign-in; here in memory. */
class AgentAuth implements OAuthClientProvider {
  clientMetadataUrl = metadata.client_id;
  redirectUrl = metadata.redirect_uris[0]!;
  clientMetadata: OAuthClientMetadata = metadata;
  #info: OAuthClientInformationMixed | undefined;
  #tokens: OAuthTokens | undefined;
  #verifier = "";
  clientInformation = () => this.#info;
  saveClientInformation = (info: OAuthClientInformationMixed) => void (this.#info = info);
  tokens = () => this.#tokens;
  saveTokens = (tokens: OAuthTokens) => void (this.#tokens = tokens);
  saveCodeVerifier = (verifier: string) => void (this.#verifier = verifier);
  codeVerifier = () => this.#verifier;
  redirectToAuthorization(url: URL) {
    console.log(`agent: to let the agent act for you, open ${url.href}`);
  }
}

// docs:connect-start
const mcp = new URL(`${PLATFORM_URL}/mcp`);
const authProvider = new AgentAuth();
const client = new Client({ name: "example-mcp-agent", version: "0.1.0" });
try {
  await client.connect(new StreamableHTTPClientTransport(mcp, { authProvider }));
} catch (error) {
  if (!(error instanceof UnauthorizedError)) throw error;
  // The person signs in and allows the agent in their browser, which returns to /callback.
  const transport = new StreamableHTTPClientTransport(mcp, { authProvider });
  await transport.finishAuth(await code);
  await client.connect(transport);
}
// docs:connect-end
console.log(`agent: connected to ${client.getServerVersion()?.title ?? "the platform"}`);

const { tools } = await client.listTools();
console.log(`agent: tools ${tools.map((tool) => tool.name).join(", ")}`);

const me = await client.callTool({ name: "get_me", arguments: {} });
const profile = me.structuredContent as { user: { username: string; displayName: string } };
console.log(`agent: signed in as @${profile.user.username} (${profile.user.displayName})`);

if (tools.some((tool) => tool.name === "post_chat_message")) {
  const posted = await client.callTool({ name: "post_chat_message", arguments: { text: `Hello from an AI agent, for @${profile.user.username}` } });
  if (posted.isError) console.log(`agent: could not post: ${JSON.stringify(posted.content)}`);
  else console.log(`agent: posted message ${(posted.structuredContent as { data: { id: string } }).data.id}`);
} else {
  console.log("agent: this grant cannot post to the chat (an admin trusts the agent's domain to allow it)");
}

// Follow the person's notifications: subscribe to the resource, and on each update read it and
// print what was not seen before (a notification is known by what it says and when; `read` changes
// as the person reads it).
const NOTIFICATIONS = "platform://me/notifications";
type Notification = { type: string; read: boolean; created_at: number; from?: { handle: string }; count?: number; message?: string };
const keyOf = ({ read: _read, ...notification }: Notification) => JSON.stringify(notification);
const seen = new Set<string>();
async function readNotifications(): Promise<Notification[]> {
  const { contents } = await client.readResource({ uri: NOTIFICATIONS });
  const text = contents[0] && "text" in contents[0] ? contents[0].text : "{}";
  const fresh = [...(JSON.parse(text) as { data: { notifications: Notification[] } }).data.notifications].reverse().filter((n) => !seen.has(keyOf(n)));
  for (const notification of fresh) seen.add(keyOf(notification));
  return fresh;
}
client.setNotificationHandler(ResourceUpdatedNotificationSchema, async ({ params }) => {
  if (params.uri !== NOTIFICATIONS) return;
  for (const notification of await readNotifications()) {
    console.log(`agent: new notification: ${notification.type}${notification.from ? ` from @${notification.from.handle}` : ""}`);
  }
});
if ((await client.listResources()).resources.some((resource) => resource.uri === NOTIFICATIONS)) {
  await client.subscribeResource({ uri: NOTIFICATIONS });
  console.log(`agent: following notifications (${(await readNotifications()).length} already there)`);
} else {
  console.log("agent: this grant cannot read notifications");
}
await new Promise<void>((resolve) => {
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => resolve());
});
await client.close();
callback.close();
site.close();
