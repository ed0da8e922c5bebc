import type { IncomingMessage, ServerResponse } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { env } from "../../env";
import { isAppError } from "../../errors";
import { countMcpToolCall } from "../../metrics";
import { BodyError, readBody } from "../../http/body";
import { requestIdFrom } from "../../http/request-id";
import { sendRaw } from "../../http/reply";
import { serverSecurityHeaders } from "../../http/security-headers";
import { authorize, identify, type ApiCaller } from "../auth";
import { toErrorReply } from "../errors";
import type { ApiReply, ApiRequest } from "../request-reply";
import { mcpTools, runToolCall, SEARCH_DOCS_TOOL, searchDocs, searchDocsTool, toolsFor } from "./tools";

/**
 * `{APP_URL}/mcp`: the API as a remote MCP server (Streamable HTTP, issue 41), with the official
 * SDK's server and transport. Stateless: every POST is answered on its own (no session, nothing kept
 * between requests), so any process of any machine answers any request. Before the SDK sees a
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
  "access-control-allow-headers": "Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID",
  "access-control-expose-headers": "WWW-Authenticate, Mcp-Session-Id, X-Request-Id",
  "access-control-allow-methods": "POST, OPTIONS",
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

function toApiRequest(req: IncomingMessage, origin: string): ApiRequest {
  return {
    method: req.method ?? "POST",
    url: `${origin}${req.url ?? "/mcp"}`,
    headers: {
      get(name) {
        const value = req.headers[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
      },
    },
    readBody: () => Promise.resolve(Buffer.alloc(0)),
    route: undefined,
    clientId: undefined,
    userId: undefined,
    resource: "mcp",
  };
}

/** The MCP result of a tool call from the API's reply: its JSON as structuredContent, or an error result. */
function toolResult(reply: ApiReply, requestId: string): CallToolResult {
  const text = reply.body ?? "";
  const json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  // The reply's headers as given (an error's own, such as Retry-After, keep their case).
  const header = (name: string) => Object.entries(reply.headers).find(([key]) => key.toLowerCase() === name)?.[1];
  const rateLimit = header("ratelimit");
  const meta = () => ({
    "social-platform/request-id": requestId,
    "social-platform/status": reply.status,
    ...(rateLimit ? { "social-platform/ratelimit": rateLimit, "social-platform/ratelimit-policy": header("ratelimit-policy") } : {}),
    ...(header("retry-after") ? { "social-platform/retry-after": Number(header("retry-after")) } : {}),
  });
  if (reply.status < 400) return { content: [{ type: "text", text }], structuredContent: json, _meta: meta() };
  // No structuredContent on an error (clients check it against the tool's output schema): the SPEC's
  // error object is in the text and, whole, in _meta.
  const error = (json.error ?? {}) as { code?: string; message?: string };
  return { isError: true, content: [{ type: "text", text: `${error.code ?? "error"}: ${error.message ?? text}` }], _meta: { ...meta(), "social-platform/error": error } };
}

/** One stateless MCP server for one HTTP request, for `caller` (whose token `authorization` carries). */
function mcpServer(caller: Exclude<ApiCaller, { kind: "anonymous" }>, authorization: string, origin: string): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS });
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
      if ("error" in found) return { isError: true, content: [{ type: "text", text: `invalid_request: ${found.error}` }], _meta: { "social-platform/error": { code: "invalid_request", message: found.error } } };
      return { content: [{ type: "text", text: JSON.stringify(found) }], structuredContent: found };
    }
    const tool = mcpTools().get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const { reply, requestId } = await runToolCall({ tool, args: request.params.arguments ?? {}, authorization, callId: extra.requestId, origin });
    countMcpToolCall(tool.name, reply.status < 400 ? "success" : (reply.errorCode ?? "error"));
    return toolResult(reply, requestId);
  });
  return server;
}

/** A tools/call among the messages, with its id: the one kind of request the scope gate is asked about here. */
function toolCallsOf(body: unknown): { id: unknown; name: unknown }[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((m) =>
    m && typeof m === "object" && (m as { method?: unknown }).method === "tools/call"
      ? [{ id: (m as { id?: unknown }).id ?? null, name: (m as { params?: { name?: unknown } }).params?.name }]
      : [],
  );
}

/** Answers one request to /mcp. */
export async function serveMcpRequest(req: IncomingMessage, res: ServerResponse, origin: string): Promise<void> {
  const requestOrigin = req.headers.origin;
  if (!allowedOrigin(requestOrigin)) return rpcError(res, 403, -32000, `Origin ${requestOrigin} may not call this MCP server.`);
  const cors: Record<string, string> = requestOrigin ? { ...CORS, "access-control-allow-origin": requestOrigin } : {};
  if (req.method === "OPTIONS") return sendRaw(res, 204, { ...cors, allow: "POST, OPTIONS" }, null);
  const request = toApiRequest(req, origin);
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
  // Stateless: no stream for server-initiated messages (GET) and no session to end (DELETE).
  if (req.method !== "POST") return rpcError(res, 405, -32000, "Method not allowed: this MCP server is stateless; send JSON-RPC with POST.", { ...cors, allow: "POST, OPTIONS" });
  let body: unknown;
  try {
    body = JSON.parse((await readBody(req, { limit: MAX_BODY_BYTES, headers: req.headers })).toString("utf8"));
  } catch (error) {
    if (error instanceof BodyError) return rpcError(res, error.status, -32600, error.message, error.status === 413 ? { ...cors, connection: "close" } : cors);
    return rpcError(res, 400, ErrorCode.ParseError, "Parse error: the body is not JSON.", cors);
  }
  // A tool whose scope the token lacks: the gate's 403, at the HTTP level, so the client can ask for it.
  for (const call of toolCallsOf(body)) {
    const tool = typeof call.name === "string" ? mcpTools().get(call.name) : undefined;
    if (!tool) continue;
    try {
      authorize(identified, tool.route.config.auth, tool.scope, "mcp");
    } catch (error) {
      if (!isAppError(error)) throw error;
      const reply = toErrorReply(error, info);
      countMcpToolCall(tool.name, reply.errorCode ?? "error");
      return refuse(res, reply, cors, call.id);
    }
  }
  for (const [name, value] of Object.entries({ ...serverSecurityHeaders(), ...cors, "cache-control": "no-store" })) res.setHeader(name, value);
  const server = mcpServer(caller, req.headers.authorization!, origin);
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
    websiteUrl: `${APP_URL}/docs/agents`,
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
