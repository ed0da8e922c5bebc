import { auth, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, TEST_PASSWORD, type Api } from "../api/support";
import { startAgentWebsite, TestAgent, type AgentWebsite } from "../helpers/agents";
import { cliJson, runCli } from "../helpers/cli";
import { authorize, completeSignIn, CookieJar, createTestApp, exchangeCode } from "../helpers/oidc";
import type { TestServer } from "../helpers/server";

/**
 * The API as a remote MCP server at {APP_URL}/mcp (issue 41), driven by the official SDK's client
 * (`Client` + `StreamableHTTPClientTransport` with an authProvider): an agent whose client ID is its
 * metadata document's URL meets the 401, the person signs in and allows it, and the agent lists and
 * calls tools. Each tool answers what the API answers for the same call, under the same gate:
 * the token's audience (the MCP server's), its scopes (a write without its scope is the HTTP 403 a
 * client steps up from), revocation and suspension at once, idempotent retries. And the edge: a
 * foreign Origin, malformed JSON-RPC, both protocol revisions.
 */

const CALLBACK = "http://127.0.0.1:9/callback";
const READ_TOOLS = ["get_user_profile", "get_me", "get_my_stats", "list_my_notifications", "get_my_beetle", "list_my_beetle_cards", "list_chat_messages", "resolve_directory", "list_users", "search_docs"];
const WRITE_TOOLS = ["poke_user", "post_chat_message"];
const INSPECTOR_ORIGIN = "http://localhost:6274";

let site: AgentWebsite;
let api: Api;
let server: TestServer;
let person: { handle: string; id: number };
let mcpUrl: URL;

beforeAll(async () => {
  site = await startAgentWebsite();
  // The MCP Inspector's origin, as /docs/mcp tells an operator to allow it.
  // Usage and the request log flushed every 250 ms: the tests read them soon after a call.
  api = await startApi({
    env: { CLIENT_METADATA_ALLOW_PRIVATE: "1", NODE_EXTRA_CA_CERTS: site.certFile, MCP_ALLOWED_ORIGINS: INSPECTOR_ORIGIN, USAGE_FLUSH_MS: "250" },
  });
  server = api.server;
  person = await api.createUser();
  mcpUrl = new URL(`${server.url}/mcp`);
});

afterAll(async () => {
  await api?.stop();
  await site?.close();
});

interface Connected {
  client: Client;
  agent: TestAgent;
  token: string;
}

/**
 * An MCP client's first connection: the 401 sends it through auth() to the sign-in service, the
 * person signs in and allows it (the hosted pages' forms), it finishes with the code and connects.
 */
async function connect(clientId: string): Promise<Connected> {
  const agent = new TestAgent(clientId, CALLBACK);
  const first = new Client({ name: "test-agent", version: "1.0.0" });
  await expect(first.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: agent }))).rejects.toBeInstanceOf(UnauthorizedError);
  const signedIn = await completeSignIn(server, agent.authorizationUrl!.href, { handle: person.handle, password: TEST_PASSWORD, redirectUri: CALLBACK, jar: new CookieJar() });
  const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: agent });
  await transport.finishAuth(signedIn.code!);
  const client = new Client({ name: "test-agent", version: "1.0.0" });
  await client.connect(transport);
  return { client, agent, token: agent.tokens()!.access_token };
}

/** One JSON-RPC message POSTed as a client would, with `headers` (the token's Authorization among them). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests poke at arbitrary JSON-RPC answers
async function post(body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; json: any }> {
  const res = await fetch(mcpUrl, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : null };
}

/** The app's request log rows of one request id, once the log (written in batches) has them. */
async function loggedRequest(clientId: string, requestId: string): Promise<{ method: string; route: string; status: number }[]> {
  let rows: { method: string; route: string; status: number }[] = [];
  for (let i = 0; i < 50 && rows.length === 0; i++) {
    rows = await api.sql(`SELECT method, route, status FROM "RequestLog" WHERE "clientId" = $1 AND "requestId" = $2`, [clientId, requestId]);
    if (rows.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return rows;
}

/** A raw session of `token`'s: initialized, subscribed to the global chat, its stream open (GET /mcp). */
async function openSession(token: string): Promise<{ sessionId: string; received: () => string; endedAt: Promise<number> }> {
  const init = await post({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }, bearer(token));
  const sessionId = init.headers.get("mcp-session-id")!;
  expect(sessionId).toMatch(/^mcs_/);
  const subscribed = await post({ jsonrpc: "2.0", id: 2, method: "resources/subscribe", params: { uri: "platform://global-chat/messages" } }, { ...bearer(token), "mcp-session-id": sessionId });
  expect(subscribed.json).toMatchObject({ id: 2, result: {} });
  const res = await fetch(mcpUrl, { headers: { ...bearer(token), accept: "text/event-stream", "mcp-session-id": sessionId } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  let text = "";
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const endedAt = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return Date.now();
      text += value;
    }
  })();
  while (!text.includes(": connected")) await new Promise((resolve) => setTimeout(resolve, 10));
  return { sessionId, received: () => text, endedAt };
}

function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

describe("an MCP client connects with the official SDK", () => {
  let reader: Connected;
  beforeAll(async () => {
    reader = await connect(site.publish("mcp-reader", CALLBACK));
  });

  it("meets a 401 naming the MCP server's resource metadata, signs the person in and gets a token for {APP_URL}/mcp", async () => {
    const res = await post({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain(`resource_metadata="${new URL(server.url).origin}/.well-known/oauth-protected-resource/mcp"`);
    expect(decodeJwt(reader.token)).toMatchObject({ aud: mcpUrl.href, sub: String(person.id) });
    expect(reader.client.getServerVersion()).toMatchObject({ name: "social-platform" });
    // The API refuses the MCP server's token: it is for another resource.
    expect((await api.call("/me", { token: reader.token })).status).toBe(401);
  });

  it("initializes on both protocol revisions", async () => {
    for (const version of ["2025-11-25", "2025-06-18"]) {
      const res = await post(
        { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "raw", version: "1" } } },
        { ...bearer(reader.token), "mcp-protocol-version": version },
      );
      expect(res.status, version).toBe(200);
      expect(res.json.result.protocolVersion).toBe(version);
      expect(res.json.result.capabilities.tools).toBeDefined();
    }
  });

  it("lists only what a read-only grant may call, every tool annotated read-only, with input and output schemas", async () => {
    const { tools } = await reader.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...READ_TOOLS].sort());
    for (const tool of tools) {
      expect(tool.annotations, tool.name).toMatchObject({ readOnlyHint: true, destructiveHint: false, openWorldHint: false });
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.type, tool.name).toBe("object");
      expect(tool.description!.length, tool.name).toBeGreaterThan(40);
    }
  });

  it("each read tool's structuredContent is the API's JSON for the same call", async () => {
    // The same person's token for the API, from the same agent (the API's audience).
    const forApi = new TestAgent(reader.agent.clientMetadataUrl, CALLBACK);
    expect(await auth(forApi, { serverUrl: `${server.url}/api/v1` })).toBe("REDIRECT");
    const signedIn = await completeSignIn(server, forApi.authorizationUrl!.href, { handle: person.handle, password: TEST_PASSWORD, redirectUri: CALLBACK, jar: new CookieJar() });
    expect(await auth(forApi, { serverUrl: `${server.url}/api/v1`, authorizationCode: signedIn.code! })).toBe("AUTHORIZED");
    const apiToken = forApi.tokens()!.access_token;
    const calls: [string, Record<string, unknown>, string, unknown?][] = [
      ["get_user_profile", { username: "alice" }, "/users/alice"],
      ["get_me", {}, "/me"],
      ["get_my_stats", {}, "/me/stats"],
      ["list_my_notifications", { limit: 5 }, "/me/notifications?limit=5"],
      ["get_my_beetle", {}, "/me/beetle"],
      ["list_my_beetle_cards", {}, "/me/beetle/cards"],
      ["list_chat_messages", { limit: 3 }, "/global-chat/messages?limit=3"],
      ["list_users", { limit: 2 }, "/users?limit=2"],
      ["resolve_directory", { identifiers: [{ type: "handle", value: "alice" }] }, "/directory/resolve", { identifiers: [{ type: "handle", value: "alice" }] }],
    ];
    for (const [tool, args, path, body] of calls) {
      const result = await reader.client.callTool({ name: tool, arguments: args });
      const fromApi = await api.call(path, { token: apiToken, ...(body ? { method: "POST", body } : {}) });
      expect(fromApi.status, path).toBeLessThan(300);
      expect(result.isError ?? false, `${tool}: ${JSON.stringify(result.content)}`).toBe(false);
      expect(result.structuredContent, tool).toEqual(fromApi.body);
      expect(result._meta?.["social-platform/request-id"], tool).toEqual(expect.any(String));
    }
  });

  it("a single tools/call is answered by the fast path, exactly as the SDK's server answers the same call", async () => {
    const paths = async () => {
      const metrics = await server.metrics();
      return { fast: metrics.get('platform_mcp_requests_total{path="fast"}') ?? 0, sdk: metrics.get('platform_mcp_requests_total{path="sdk"}') ?? 0 };
    };
    const strip = (answer: { result: { _meta: Record<string, unknown> } }) => {
      // Each call has its own request id and leaves one request less of the quota.
      const { "social-platform/request-id": requestId, "social-platform/ratelimit": remaining, ...meta } = answer.result._meta;
      expect(requestId).toEqual(expect.any(String));
      expect(remaining).toMatch(/^"app";r=\d+/);
      return { ...answer, result: { ...answer.result, _meta: meta } };
    };
    for (const args of [{ username: "alice" }, { username: "nobody_by_this_name" }]) {
      const before = await paths();
      const call = { jsonrpc: "2.0", id: "call-1", method: "tools/call", params: { name: "get_user_profile", arguments: args } };
      const fast = await post(call, bearer(reader.token));
      const middle = await paths();
      // `_meta` in the params: a message the fast path leaves to the SDK.
      const sdk = await post({ ...call, params: { ...call.params, _meta: {} } }, bearer(reader.token));
      const after = await paths();
      expect(middle).toEqual({ fast: before.fast + 1, sdk: before.sdk });
      expect(after).toEqual({ fast: middle.fast, sdk: middle.sdk + 1 });
      expect(fast.status).toBe(sdk.status);
      expect(fast.headers.get("content-type")).toBe(sdk.headers.get("content-type"));
      expect(strip(fast.json)).toEqual(strip(sdk.json));
    }
  });

  it("search_docs finds the docs' sections, with their address on the platform", async () => {
    const found = await reader.client.callTool({ name: "search_docs", arguments: { query: "refresh token", limit: 3 } });
    const { results } = found.structuredContent as { results: { title: string; url: string; excerpt: string }[] };
    expect(results.length).toBeGreaterThan(0);
    expect(results.length).toBeLessThanOrEqual(3);
    for (const result of results) expect(result.url.startsWith(`${server.url}/docs`), result.url).toBe(true);
    const refused = await reader.client.callTool({ name: "search_docs", arguments: { query: "" } });
    expect(refused.isError).toBe(true);
  });

  it("API errors come back as tool results with isError and the SPEC's code and message", async () => {
    const result = await reader.client.callTool({ name: "get_user_profile", arguments: { username: "nobody_by_this_name" } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(result.content).toEqual([{ type: "text", text: "not_found: No user with that username." }]);
    expect(result._meta?.["social-platform/error"]).toEqual({ code: "not_found", message: "No user with that username." });
    const bad = await reader.client.callTool({ name: "list_chat_messages", arguments: { limit: "many" } });
    expect(bad._meta?.["social-platform/error"]).toMatchObject({ code: "invalid_request" });
    const unknown = await reader.client.callTool({ name: "get_user_profile", arguments: { username: "alice", shoe_size: 44 } });
    expect(unknown._meta?.["social-platform/error"]).toEqual({ code: "invalid_request", message: "get_user_profile takes no argument `shoe_size`." });
  });

  it("a write tool without its scope is the gate's 403 insufficient_scope naming the scope, so the client can step up", async () => {
    const res = await post({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "post_chat_message", arguments: { text: "hello" } } }, bearer(reader.token));
    expect(res.status).toBe(403);
    expect(res.headers.get("www-authenticate")).toMatch(/error="insufficient_scope", scope="svc:chat\.write", resource_metadata="[^"]+\/mcp"/);
    expect(res.json).toMatchObject({ jsonrpc: "2.0", id: 7, error: { message: "This endpoint needs the svc:chat.write scope." } });
  });
});

describe("live updates: resources and subscriptions", () => {
  const CHAT = "platform://global-chat/messages";
  const NOTIFICATIONS = "platform://me/notifications";
  let listener: Connected;
  let posterToken: string;
  /** A second person's: a pair may poke once a day. */
  let secondPokerToken: string;
  const updates: { uri: string; at: number }[] = [];

  beforeAll(async () => {
    listener = await connect(site.publish("mcp-listener", CALLBACK));
    listener.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updates.push({ uri: notification.params.uri, at: Date.now() });
    });
    posterToken = await api.token({ user: (await api.createUser()).handle, scopes: ["svc:chat.write", "svc:pokes.write"] });
    secondPokerToken = await api.token({ user: (await api.createUser()).handle, scopes: ["svc:pokes.write"] });
  });

  /** The first update of `uri` after `since`, waited for up to 3 s. */
  async function updateOf(uri: string, since: number): Promise<{ uri: string; at: number } | undefined> {
    for (let i = 0; i < 150; i++) {
      const found = updates.find((u) => u.uri === uri && u.at >= since);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return undefined;
  }

  it("lists the person's notifications and the global chat as resources, each read as the API's JSON", async () => {
    const { resources } = await listener.client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual([CHAT, NOTIFICATIONS]);
    const read = await listener.client.readResource({ uri: CHAT });
    const fromApi = await api.call("/global-chat/messages", { token: await api.token({ user: person.handle, scopes: ["svc:chat.read"] }) });
    expect(read.contents).toHaveLength(1);
    expect(read.contents[0]).toMatchObject({ uri: CHAT, mimeType: "application/json" });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual(fromApi.body);
    const logged = await loggedRequest(decodeJwt(listener.token).client_id as string, read._meta?.["social-platform/request-id"] as string);
    expect(logged).toEqual([{ method: "MCP", route: `MCP resources/read ${CHAT}`, status: 200 }]);
    await expect(listener.client.readResource({ uri: "platform://nothing/here" })).rejects.toThrow(/Resource not found/);
  });

  it("a subscribed session hears of a new chat message and a new notification within a second, and nothing once unsubscribed", async () => {
    await listener.client.subscribeResource({ uri: CHAT });
    await listener.client.subscribeResource({ uri: NOTIFICATIONS });
    const postedAt = Date.now();
    expect((await api.call("/global-chat/messages", { method: "POST", token: posterToken, body: { text: `live ${postedAt}` } })).status).toBe(201);
    const chat = await updateOf(CHAT, postedAt);
    expect(chat, "chat update").toBeDefined();
    expect(chat!.at - postedAt).toBeLessThan(1_000);
    const pokedAt = Date.now();
    expect((await api.call(`/users/${person.handle}/poke`, { method: "POST", token: posterToken })).status).toBeLessThan(300);
    const poke = await updateOf(NOTIFICATIONS, pokedAt);
    expect(poke, "notification update").toBeDefined();
    expect(poke!.at - pokedAt).toBeLessThan(1_000);

    await listener.client.unsubscribeResource({ uri: CHAT });
    const quietFrom = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 2_100)); // the chat's one post per 2 s
    expect((await api.call("/global-chat/messages", { method: "POST", token: posterToken, body: { text: `quiet ${quietFrom}` } })).status).toBe(201);
    // A poke after it: once its update is in, the chat's would have been too.
    const secondPokeAt = Date.now();
    expect((await api.call(`/users/${person.handle}/poke`, { method: "POST", token: secondPokerToken })).status).toBeLessThan(300);
    expect(await updateOf(NOTIFICATIONS, secondPokeAt)).toBeDefined();
    expect(updates.filter((u) => u.uri === CHAT && u.at >= quietFrom)).toEqual([]);
  });
});

describe("writes, once trusted", () => {
  let writer: Connected;
  beforeAll(async () => {
    expect((await runCli(server.databaseUrl, ["agents", "trust", "localhost"])).code).toBe(0);
    writer = await connect(site.publish("mcp-writer", CALLBACK));
  });
  afterAll(async () => {
    await runCli(server.databaseUrl, ["agents", "untrust", "localhost"]);
  });

  it("lists the write tools, not read-only; a post retried with the same call id stores one message", async () => {
    const { tools } = await writer.client.listTools();
    for (const name of WRITE_TOOLS) expect(tools.find((t) => t.name === name)?.annotations?.readOnlyHint, name).toBe(false);
    const text = `from an agent ${Date.now()}`;
    const call = { jsonrpc: "2.0", id: 42, method: "tools/call", params: { name: "post_chat_message", arguments: { text } } };
    const first = await post(call, bearer(writer.token));
    const retry = await post(call, bearer(writer.token));
    expect(first.status).toBe(200);
    expect(first.json.result.isError).toBeUndefined();
    expect(retry.json.result.structuredContent).toEqual(first.json.result.structuredContent);
    const stored = await api.sql<{ n: string }>(`SELECT count(*) AS n FROM "ChatMessage" WHERE text = $1`, [text]);
    expect(Number(stored[0]!.n)).toBe(1);
    // Another call (another id) is another post, which the chat's one-post-per-2-s limit refuses now.
    const again = await post({ ...call, id: 43 }, bearer(writer.token));
    expect(again.json.result).toMatchObject({ isError: true, _meta: { "social-platform/error": { code: "rate_limited" }, "social-platform/retry-after": expect.any(Number) } });
  });

  it("suspending the agent fails its next call within 250 ms; so does the person revoking it", async () => {
    const probe = () => post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_me", arguments: {} } }, bearer(writer.token));
    expect((await probe()).status).toBe(200);
    const clientId = writer.agent.clientMetadataUrl!;
    expect((await runCli(server.databaseUrl, ["agents", "suspend", clientId, "--reason", "Testing"])).code).toBe(0);
    const suspendedAt = Date.now();
    let refused = await probe();
    while (refused.status === 200 && Date.now() - suspendedAt < 2_000) refused = await probe();
    expect(refused.status).toBe(401);
    expect(Date.now() - suspendedAt).toBeLessThan(250);
    expect(refused.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect((await runCli(server.databaseUrl, ["agents", "resume", clientId])).code).toBe(0);

    // Resumed, it signs the person in again; then the person revokes it (Connected apps' service).
    const again = await connect(clientId);
    const probeAgain = () => post({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "get_me", arguments: {} } }, bearer(again.token));
    expect((await probeAgain()).status).toBe(200);
    const session = await openSession(again.token);
    expect((await runCli(server.databaseUrl, ["users", "revoke-app", person.handle, clientId])).code).toBe(0);
    const revokedAt = Date.now();
    // The session's stream ends with its token, saying why.
    expect((await session.endedAt) - revokedAt).toBeLessThan(250);
    expect(session.received()).toContain(": closed token_revoked");
    let gone = await probeAgain();
    while (gone.status === 200 && Date.now() - revokedAt < 2_000) gone = await probeAgain();
    expect(gone.status).toBe(401);
    expect(Date.now() - revokedAt).toBeLessThan(250);
  });
});

describe("the edge", () => {
  let token: string;
  beforeAll(async () => {
    ({ token } = await connect(site.publish("mcp-edge", CALLBACK)));
  });

  it("platform mcp tools prints what tools/list offers for the given scopes", async () => {
    const tools = await cliJson<{ name: string; scope: string | null; read_only: boolean }[]>(server.databaseUrl, ["mcp", "tools", "--scope", "svc:chat.read", "--scope", "svc:chat.write"]);
    expect(tools.map((t) => t.name)).toEqual(["get_user_profile", "get_me", "list_chat_messages", "post_chat_message", "search_docs"]);
    expect(tools.find((t) => t.name === "post_chat_message")).toEqual({ name: "post_chat_message", title: "Post to the global chat", scope: "svc:chat.write", read_only: false });
    const refused = await runCli(server.databaseUrl, ["mcp", "tools", "--scope", "svc:everything"]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("Unknown scope svc:everything");
  });

  it("serves its server.json for the MCP Registry", async () => {
    const res = await fetch(`${server.url}/.well-known/mcp/server.json`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      name: "localhost/social-platform",
      remotes: [{ type: "streamable-http", url: mcpUrl.href }],
    });
  });

  it("refuses a foreign Origin (DNS rebinding) and answers the platform's own", async () => {
    const list = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    const foreign = await post(list, { ...bearer(token), origin: "https://attacker.example" });
    expect(foreign.status).toBe(403);
    expect(foreign.json.error.message).toContain("https://attacker.example");
    const own = await post(list, { ...bearer(token), origin: new URL(server.url).origin });
    expect(own.status).toBe(200);
    expect(own.headers.get("access-control-allow-origin")).toBe(new URL(server.url).origin);
    // An origin in MCP_ALLOWED_ORIGINS (the Inspector's): its browser's preflight and call are let through.
    const preflight = await fetch(mcpUrl, {
      method: "OPTIONS",
      headers: { origin: INSPECTOR_ORIGIN, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type, mcp-session-id" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe(INSPECTOR_ORIGIN);
    expect(preflight.headers.get("access-control-allow-headers")).toMatch(/Mcp-Session-Id/);
    expect((await post(list, { ...bearer(token), origin: INSPECTOR_ORIGIN })).status).toBe(200);
  });

  it("a session belongs to its token: another person's token cannot open its stream or end it; DELETE ends it and its stream", async () => {
    const session = await openSession(token);
    const other = await connect(site.publish("mcp-other", CALLBACK));
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(mcpUrl, { method, headers: { ...bearer(other.token), accept: "text/event-stream", "mcp-session-id": session.sessionId } });
      expect(res.status, method).toBe(404);
      expect((await res.json()).error.message).toContain("does not exist");
    }
    const unknown = await fetch(mcpUrl, { headers: { ...bearer(token), accept: "text/event-stream", "mcp-session-id": "not-a-session" } });
    expect(unknown.status).toBe(404);
    // Without a session, subscribing is a JSON-RPC error: there is nowhere to send updates.
    const sessionless = await post({ jsonrpc: "2.0", id: 5, method: "resources/subscribe", params: { uri: "platform://global-chat/messages" } }, bearer(token));
    expect(sessionless.json).toMatchObject({ id: 5, error: { code: -32600, message: expect.stringContaining("needs an MCP session") } });
    const ended = await fetch(mcpUrl, { method: "DELETE", headers: { ...bearer(token), "mcp-session-id": session.sessionId } });
    expect(ended.status).toBe(204);
    await session.endedAt;
    expect(await api.sql(`SELECT uri FROM "McpSubscription" WHERE "sessionId" = $1`, [session.sessionId])).toEqual([]);
  });

  it("a developer's login app whose token is for the MCP server finds its tool calls in its usage, by tool", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "login", scopes: ["svc:chat.read"], redirectUris: [CALLBACK] });
    const flow = await authorize(server, {
      handle: person.handle,
      password: TEST_PASSWORD,
      clientId: app.clientId,
      redirectUri: CALLBACK,
      scope: "openid svc:chat.read",
      extraParams: { resource: mcpUrl.href },
    });
    const exchanged = await exchangeCode(server, { clientId: app.clientId, code: flow.code!, redirectUri: CALLBACK, verifier: flow.verifier });
    const mcpToken = exchanged.body.access_token as string;
    expect(decodeJwt(mcpToken).aud).toBe(mcpUrl.href);
    for (const id of [1, 2]) {
      const res = await post({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "list_chat_messages", arguments: { limit: 1 } } }, bearer(mcpToken));
      expect(res.json.result.isError).toBeUndefined();
    }
    // What the app's Usage tab draws (lib/services/usage.ts getAppUsage), through `apps usage`.
    type Usage = { routes: { route: string; total: number }[] };
    const called = (usage: Usage) => usage.routes.find((r) => r.route === "MCP tools/call list_chat_messages");
    let usage: Usage = { routes: [] };
    for (let i = 0; i < 40 && called(usage)?.total !== 2; i++) {
      usage = await cliJson<Usage>(server.databaseUrl, ["apps", "usage", app.clientId]);
      if (called(usage)?.total !== 2) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    // Beside the sign-in's own grant (token:authorization_code).
    expect(usage.routes.map((r) => [r.route, r.total]).sort()).toEqual([
      ["MCP tools/call list_chat_messages", 2],
      ["token:authorization_code", 1],
    ]);
  });

  it("the retention job drops the subscriptions of a session whose stream has been gone for a day", async () => {
    const idle = await openSession(token);
    const live = await openSession(token);
    await api.sql(`UPDATE "McpSubscription" SET "seenAt" = "seenAt" - interval '25 hours' WHERE "sessionId" = $1`, [idle.sessionId]);
    const result = await cliJson<{ mcp_subscriptions_expired: number }>(server.databaseUrl, ["usage", "retention"]);
    expect(result.mcp_subscriptions_expired).toBeGreaterThanOrEqual(1);
    const left = await api.sql<{ sessionId: string }>(`SELECT "sessionId" FROM "McpSubscription" WHERE "sessionId" = ANY($1)`, [[idle.sessionId, live.sessionId]]);
    expect(left.map((r) => r.sessionId)).toEqual([live.sessionId]);
  });

  it("answers malformed JSON-RPC with JSON-RPC errors, never a 500", async () => {
    const notJson = await post("{ not json", bearer(token));
    expect(notJson.status).toBe(400);
    expect(notJson.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 }, id: null });
    const notRpc = await post({ hello: "world" }, bearer(token));
    expect(notRpc.status).toBe(400);
    expect(notRpc.json.error.code).toBeLessThan(-32000);
    const unknownTool = await post({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "drop_tables", arguments: {} } }, bearer(token));
    expect(unknownTool.json).toMatchObject({ id: 3, error: { code: -32602 } });
    const huge = await post({ jsonrpc: "2.0", id: 4, method: "tools/list", params: { pad: "x".repeat(300 * 1024) } }, bearer(token));
    expect(huge.status).toBe(413);
    const get = await fetch(mcpUrl, { headers: { ...bearer(token), accept: "text/event-stream" } });
    expect(get.status).toBe(405);
  });

  it("logs a tool call in the app's request log as MCP tools/call <tool>, with its request id, and counts it in /metrics", async () => {
    const counted = async () => (await server.metrics()).get('platform_mcp_tool_calls_total{tool="get_me",outcome="success"}') ?? 0;
    const before = await counted();
    const res = await post({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "get_me", arguments: {} } }, bearer(token));
    const requestId = res.json.result._meta["social-platform/request-id"] as string;
    const clientId = decodeJwt(token).client_id as string;
    expect(await loggedRequest(clientId, requestId)).toEqual([{ method: "MCP", route: "MCP tools/call get_me", status: 200 }]);
    expect(await counted()).toBe(before + 1);
    const listed = await cliJson<{ client_id: string }[]>(server.databaseUrl, ["agents", "list"]);
    expect(listed.map((a) => a.client_id)).toContain(clientId);
  });
});
