import type { IncomingMessage, ServerResponse } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  UnsubscribeRequestSchema,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { env } from "../../env";
import { isAppError } from "../../errors";
import { countMcpRequest, countMcpToolCall } from "../../metrics";
import { BodyError, readBody } from "../../http/body";
import { requestIdFrom } from "../../http/request-id";
import { sendRaw } from "../../http/reply";
import { endMcpSession, MCP_SESSION_ID_PATTERN, newMcpSessionId, subscribeMcpResource, unsubscribeMcpResource } from "../../services/mcp-sessions";
import { serverSecurityHeaders } from "../../http/security-headers";
import { authorize, identify, type ApiCaller } from "../auth";
import { toErrorReply } from "../errors";
import { toApiRequest } from "../node";
import type { ApiReply, ApiRequest } from "../request-reply";
import { mcpResource, readResource, resourcesFor, serveSessionStream, sessionOwner, toolOfResource, type McpResource } from "./resources";
import { mcpTools, runToolCall, SEARCH_DOCS_TOOL, searchDocs, searchDocsTool, toolsFor, type McpTool, type ToolCall } from "./tools";

/** What a tool call of the HTTP request authenticates with (tools.ts ToolCall). */
type McpCredentials = Pick<ToolCall, "authorization" | "dpopKey">;

/**
 * `{APP_URL}/mcp`: the API as a remote MCP server (Streamable HTTP, issue 41), with the official
 * SDK's server and transport. Stateless where the protocol allows: every POST is answered on its own
 * (the SDK's stateless transport; nothing kept in a process between requests), so any process of any
 * machine answers any request. The one thing a session holds is its resource subscriptions: initialize
 * answers with an `Mcp-Session-Id`, resources/subscribe stores the subscription in the database
 * (lib/services/mcp-sessions.ts), and the session's stream (GET with that id) may be held by any
 * process (lib/api/mcp/resources.ts); DELETE ends the session. Before the SDK sees a
 * request, the edge here refuses a foreign `Origin` (DNS rebinding), a body over the bound and
 * malformed JSON (JSON-RPC errors), and checks the bearer token for the MCP server's audience with
 * the API's own gate (lib/api/auth.ts): 401 with `resource_metadata` to find the sign-in service,
 * and for a tools/call whose scope the token lacks, 403 `insufficient_scope` naming it, so a client
 * steps up (MCP authorization, "Scope challenge"). A tool call is then an API request
 * (lib/api/mcp/tools.ts).
 */

/** JSON-RPC messages are small; a batch of chat posts stays far below this. */
const MAX_BODY_BYTES = 256 * 1024;
const SERVER_INFO = { name: "social-platform", title: "Social Platform", version: "1.0.0" };
const INSTRUCTIONS =
  "Tools act on the social platform for the person who signed in: their profile, stats, notifications, beetle game, " +
  "pokes, the global chat and the directory. Each tool is one endpoint of the platform's API with the same scopes, quotas and errors.";

const CORS: Record<string, string> = {
  "access-control-allow-headers": "Authorization, DPoP, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID",
  "access-control-expose-headers": "WWW-Authenticate, DPoP-Nonce, Mcp-Session-Id, X-Request-Id",
  "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
  "access-control-max-age": "7200",
  vary: "Origin",
};

function allowedOrigin(origin: string | undefined): boolean {
  if (origin === undefined) return true;
  const config = env();
  return origin === new URL(config.APP_URL).origin || config.MCP_ALLOWED_ORIGINS.includes(origin);
}

/** A JSON-RPC error as the whole answer (before any message was read, its id is null). */
function rpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}, id: unknown = null): void {
  sendRaw(res, status, { "content-type": "application/json", "cache-control": "no-store", ...headers }, JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id }));
}

/** The HTTP answer of the API's gate refusing the request (its status, WWW-Authenticate and message). */
function refuse(res: ServerResponse, reply: ApiReply, cors: Record<string, string>, id: unknown = null): void {
  const challenge = reply.headers["www-authenticate"];
  rpcError(res, reply.status, -32001, reply.errorMessage ?? "Refused.", { ...cors, ...(challenge ? { "www-authenticate": challenge } : {}) }, id);
}

/** What a tool result's _meta says of the API's reply: its request id, status and rate-limit headers. */
function replyMeta(reply: ApiReply, requestId: string): Record<string, unknown> {
  // The reply's headers as given (an error's own, such as Retry-After, keep their case).
  const header = (name: string) => Object.entries(reply.headers).find(([key]) => key.toLowerCase() === name)?.[1];
  const rateLimit = header("ratelimit");
  const retryAfter = header("retry-after");
  return {
    "social-platform/request-id": requestId,
    "social-platform/status": reply.status,
    ...(rateLimit ? { "social-platform/ratelimit": rateLimit, "social-platform/ratelimit-policy": header("ratelimit-policy") } : {}),
    ...(retryAfter ? { "social-platform/retry-after": Number(retryAfter) } : {}),
  };
}

/** The MCP result of a tool call from the API's reply: its JSON as structuredContent, or an error result. */
function toolResult(reply: ApiReply, requestId: string): CallToolResult {
  const text = reply.body ?? "";
  if (reply.status < 400) return { content: [{ type: "text", text }], structuredContent: text ? JSON.parse(text) : {}, _meta: replyMeta(reply, requestId) };
  return errorResult(apiErrorOf(reply), text, replyMeta(reply, requestId));
}

/** The SPEC's error object of an API error reply (empty when its body has none). */
function apiErrorOf(reply: ApiReply): { code?: string; message?: string } {
  return ((reply.body ? JSON.parse(reply.body) : {}) as { error?: { code?: string; message?: string } }).error ?? {};
}

/**
 * A tool's error result. No structuredContent (clients check it against the tool's output schema):
 * the SPEC's error object is in the text (`code: message`) and, whole, in _meta.
 */
function errorResult(error: { code?: string; message?: string }, fallback: string, meta: Record<string, unknown> = {}): CallToolResult {
  return {
    isError: true,
    content: [{ type: "text", text: `${error.code ?? "error"}: ${error.message ?? fallback}` }],
    _meta: { ...meta, "social-platform/error": error },
  };
}

/**
 * The same result as `toolResult`, serialized: a success's JSON is spliced in as it came from the
 * API (its text and its structuredContent), not parsed and written again.
 */
function toolResultJson(reply: ApiReply, requestId: string): string {
  if (reply.status >= 400 || !reply.body) return JSON.stringify(toolResult(reply, requestId));
  return `{"content":[{"type":"text","text":${JSON.stringify(reply.body)}}],"structuredContent":${reply.body},"_meta":${JSON.stringify(replyMeta(reply, requestId))}}`;
}

/** A resource's read as MCP contents, or the API's error as a JSON-RPC error (its SPEC code and message in `data`). */
async function resourceContents(resource: McpResource, credentials: McpCredentials, callId: string | number, origin: string) {
  const { reply, requestId } = await readResource(resource, { ...credentials, callId, origin });
  if (reply.status >= 400) {
    const error = apiErrorOf(reply);
    throw new McpError(ErrorCode.InvalidRequest, `${error.code ?? "error"}: ${error.message ?? "the read failed"}`, { ...replyMeta(reply, requestId), "social-platform/error": error });
  }
  return { contents: [{ uri: resource.uri, mimeType: resource.mimeType, text: reply.body ?? "" }], _meta: replyMeta(reply, requestId) };
}

/** The resource a subscribe or read names, among those the caller may read. */
function resourceFor(uri: string, caller: Exclude<ApiCaller, { kind: "anonymous" }>): McpResource {
  const resource = mcpResource(uri);
  if (!resource || !resourcesFor(caller.scopes, caller.kind === "user").includes(resource)) {
    // MCP's "Resource not found" code.
    throw new McpError(-32002, `Resource not found: ${uri}`, { uri });
  }
  return resource;
}

/**
 * One stateless MCP server for one HTTP request, for `caller` (whose token the request's
 * `credentials` carry), in session `sessionId` when the client sent one.
 */
function mcpServer(caller: Exclude<ApiCaller, { kind: "anonymous" }>, credentials: McpCredentials, origin: string, sessionId: string | null): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false }, resources: { subscribe: true, listChanged: false } },
    instructions: INSTRUCTIONS,
  });
  const owner = sessionOwner(caller);
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: resourcesFor(caller.scopes, caller.kind === "user").map(({ uri, name, title, description, mimeType }) => ({ uri, name, title, description, mimeType })),
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [] }));
  server.setRequestHandler(ReadResourceRequestSchema, (request, extra) =>
    resourceContents(resourceFor(request.params.uri, caller), credentials, extra.requestId, origin),
  );
  const inSession = (method: string): string => {
    if (sessionId === null) {
      throw new McpError(ErrorCode.InvalidRequest, `${method} needs an MCP session: send initialize, then the Mcp-Session-Id header it answers with.`);
    }
    return sessionId;
  };
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    const resource = resourceFor(request.params.uri, caller);
    await subscribeMcpResource(inSession("resources/subscribe"), resource.uri, owner);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    await unsubscribeMcpResource(inSession("resources/unsubscribe"), request.params.uri, owner);
    return {};
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      ...toolsFor(caller.scopes, caller.kind === "user").map(({ name, title, description, inputSchema, outputSchema, annotations }) => ({
        name,
        title,
        description,
        inputSchema,
        outputSchema,
        annotations,
      })),
      searchDocsTool,
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    if (request.params.name === SEARCH_DOCS_TOOL) {
      const found = await searchDocs(request.params.arguments ?? {}, origin);
      countMcpToolCall(SEARCH_DOCS_TOOL, "error" in found ? "invalid_request" : "success");
      if ("error" in found) return errorResult({ code: "invalid_request", message: found.error }, found.error);
      return { content: [{ type: "text", text: JSON.stringify(found) }], structuredContent: found };
    }
    const tool = mcpTools().get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const { reply, requestId } = await runToolCall({ tool, args: request.params.arguments ?? {}, ...credentials, callId: extra.requestId, origin });
    countMcpToolCall(tool.name, reply.status < 400 ? "success" : (reply.errorCode ?? "error"));
    return toolResult(reply, requestId);
  });
  return server;
}

/**
 * The one message the hot path answers itself: a single tools/call of an API tool, as the SDK's
 * client sends it (JSON, accepting JSON and SSE, a supported protocol version). It is answered with
 * exactly what the SDK would answer (the same toolResult, serialized as the SDK serializes a JSON
 * response) without a Server, a transport and Web Request/Response objects per request, which cost
 * several times the API call itself. Anything else (initialize, tools/list, search_docs, a batch,
 * `_meta`, an unusual header) goes to the SDK: null.
 */
function fastToolCall(req: IncomingMessage, body: unknown): { tool: McpTool; args: Record<string, unknown>; id: string | number } | null {
  if (!body || typeof body !== "object" || Array.isArray(body)) return null;
  const message = body as { jsonrpc?: unknown; method?: unknown; id?: unknown; params?: unknown };
  if (message.jsonrpc !== "2.0" || message.method !== "tools/call" || (typeof message.id !== "string" && typeof message.id !== "number")) return null;
  if (Object.keys(message).length !== 4 || !message.params || typeof message.params !== "object") return null;
  const params = message.params as { name?: unknown; arguments?: unknown };
  const args = params.arguments ?? {};
  if (Object.keys(params).some((key) => key !== "name" && key !== "arguments") || typeof params.name !== "string") return null;
  if (!args || typeof args !== "object" || Array.isArray(args)) return null;
  const tool = mcpTools().get(params.name);
  if (!tool) return null;
  const accept = req.headers.accept ?? "";
  const version = req.headers["mcp-protocol-version"];
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) return null;
  if (!(req.headers["content-type"] ?? "").includes("application/json")) return null;
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version as string)) return null;
  return { tool, args: args as Record<string, unknown>, id: message.id };
}

/**
 * The tools the messages call, with their ids: a tools/call's tool, and the tool a resources/read or
 * resources/subscribe reads through. Their scopes are what the gate is asked about here.
 */
function toolCallsOf(body: unknown): { id: unknown; tool: McpTool | undefined; called: boolean }[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((m): { id: unknown; tool: McpTool | undefined; called: boolean }[] => {
    if (!m || typeof m !== "object") return [];
    const { method, id = null, params } = m as { method?: unknown; id?: unknown; params?: { name?: unknown; uri?: unknown } };
    if (method === "tools/call" && typeof params?.name === "string") return [{ id, tool: mcpTools().get(params.name), called: true }];
    if ((method === "resources/read" || method === "resources/subscribe") && typeof params?.uri === "string") {
      const resource = mcpResource(params.uri);
      return resource ? [{ id, tool: toolOfResource(resource), called: false }] : [];
    }
    return [];
  });
}

/** Whether the message is an initialize request (answered with a new session's id). */
function isInitialize(body: unknown): boolean {
  return !!body && typeof body === "object" && !Array.isArray(body) && (body as { method?: unknown }).method === "initialize";
}

/** Answers one request to /mcp. */
export async function serveMcpRequest(req: IncomingMessage, res: ServerResponse, origin: string): Promise<void> {
  const requestOrigin = req.headers.origin;
  if (!allowedOrigin(requestOrigin)) return rpcError(res, 403, -32000, `Origin ${requestOrigin} may not call this MCP server.`);
  const cors: Record<string, string> = requestOrigin ? { ...CORS, "access-control-allow-origin": requestOrigin } : {};
  if (req.method === "OPTIONS") return sendRaw(res, 204, { ...cors, allow: "GET, POST, DELETE, OPTIONS" }, null);
  const sessionHeader = req.headers["mcp-session-id"];
  const sessionId = typeof sessionHeader === "string" ? sessionHeader : null;
  // The transport's rule for an id the server never issued: 404, and the client starts a new session.
  if (sessionId !== null && !MCP_SESSION_ID_PATTERN.test(sessionId)) return rpcError(res, 404, -32001, "Session not found: initialize a new session.", cors);
  // The request as the API sees one (lib/api/node.ts), for the MCP server's audience; its body is read below.
  const request: ApiRequest = { ...toApiRequest(req, origin), resource: "mcp" };
  const requestId = requestIdFrom(req.headers["x-request-id"] as string | undefined);
  const info = { requestId, method: req.method ?? "POST", path: "/mcp" };
  let caller: Exclude<ApiCaller, { kind: "anonymous" }>;
  let identified;
  try {
    identified = await identify(request, "any");
    if (identified.kind !== "token") throw new Error("a token is required");
    caller = identified.caller;
  } catch (error) {
    return refuse(res, toErrorReply(error, info), cors);
  }
  const headers = { ...serverSecurityHeaders(), ...cors, "cache-control": "no-store" };
  if (req.method === "GET" || req.method === "DELETE") {
    // Only a session has a stream (its subscriptions' updates) or anything to end.
    if (sessionId === null) {
      return rpcError(res, 405, -32000, "Method not allowed without a session: initialize, then GET the stream with the Mcp-Session-Id it answers with.", { ...cors, allow: "POST, OPTIONS" });
    }
    try {
      if (req.method === "DELETE") {
        await endMcpSession(sessionId, sessionOwner(caller));
        return sendRaw(res, 204, headers, null);
      }
      if (!(req.headers.accept ?? "").includes("text/event-stream")) return rpcError(res, 406, -32000, "Not acceptable: the session's stream is text/event-stream.", cors);
      return await serveSessionStream(req, res, request, caller, sessionId, headers);
    } catch (error) {
      if (!isAppError(error)) throw error;
      return refuse(res, toErrorReply(error, info), cors);
    }
  }
  if (req.method !== "POST") return rpcError(res, 405, -32000, "Method not allowed: send JSON-RPC with POST.", { ...cors, allow: "GET, POST, DELETE, OPTIONS" });
  let body: unknown;
  try {
    body = JSON.parse((await readBody(req, { limit: MAX_BODY_BYTES, headers: req.headers })).toString("utf8"));
  } catch (error) {
    if (error instanceof BodyError) return rpcError(res, error.status, -32600, error.message, error.status === 413 ? { ...cors, connection: "close" } : cors);
    return rpcError(res, 400, ErrorCode.ParseError, "Parse error: the body is not JSON.", cors);
  }
  // A tool whose scope the token lacks: the gate's 403, at the HTTP level, so the client can ask for it.
  for (const { id, tool, called } of toolCallsOf(body)) {
    if (!tool) continue;
    try {
      authorize(identified, tool.route.config.auth, tool.scope, "mcp");
    } catch (error) {
      if (!isAppError(error)) throw error;
      const reply = toErrorReply(error, info);
      if (called) countMcpToolCall(tool.name, reply.errorCode ?? "error");
      return refuse(res, reply, cors, id);
    }
  }
  // What each tool call's API request carries: the token, and the DPoP key this request proved for it.
  const credentials: McpCredentials = { authorization: req.headers.authorization!, dpopKey: identified.dpopKey };
  const fast = fastToolCall(req, body);
  if (fast) {
    countMcpRequest("fast");
    const { reply, requestId: callRequestId } = await runToolCall({ tool: fast.tool, args: fast.args, ...credentials, callId: fast.id, origin });
    countMcpToolCall(fast.tool.name, reply.status < 400 ? "success" : (reply.errorCode ?? "error"));
    const result = toolResultJson(reply, callRequestId);
    return sendRaw(res, 200, { ...headers, "content-type": "application/json" }, `{"result":${result},"jsonrpc":"2.0","id":${JSON.stringify(fast.id)}}`);
  }
  countMcpRequest("sdk");
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  if (isInitialize(body)) res.setHeader("mcp-session-id", newMcpSessionId());
  const server = mcpServer(caller, credentials, origin, sessionId);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

/** Where the MCP Registry's description of this server is served. */
export const SERVER_JSON_PATH = "/.well-known/mcp/server.json";

/**
 * The MCP Registry's `server.json` for this deployment: a remote server (Streamable HTTP at
 * {APP_URL}/mcp), named in the reverse-DNS namespace of APP_URL's host. Public and cacheable.
 */
export function serverJson(): Record<string, unknown> {
  const { APP_URL } = env();
  const host = new URL(APP_URL).hostname;
  return {
    $schema: "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
    name: `${host.split(".").reverse().join(".")}/${SERVER_INFO.name}`,
    title: SERVER_INFO.title,
    description: "The social platform's API for AI agents: profiles, stats, notifications, pokes, the global chat and the directory, for the person who signed in.",
    version: SERVER_INFO.version,
    websiteUrl: `${APP_URL}/docs/mcp`,
    remotes: [{ type: "streamable-http", url: `${APP_URL}/mcp` }],
  };
}

export function serveServerJson(req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== "GET" && req.method !== "HEAD") {
    return sendRaw(res, 405, { allow: "GET, HEAD", "content-type": "text/plain; charset=utf-8" }, "GET only.");
  }
  const body = JSON.stringify(serverJson(), null, 2);
  sendRaw(res, 200, { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=300", "access-control-allow-origin": "*" }, req.method === "HEAD" ? null : body);
}
