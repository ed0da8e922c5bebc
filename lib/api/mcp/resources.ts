import type { IncomingMessage, ServerResponse } from "node:http";
import { openEventStream, type StreamFrame } from "../../events/stream";
import { logger } from "../../logger";
import type { EventType } from "../../schemas/events";
import { mcpSessionFor, touchMcpSession, watchMcpSession, type McpSessionOwner } from "../../services/mcp-sessions";
import { tokenLifetimeOf, type ApiCaller } from "../auth";
import { EVENT_STREAM_HEADERS } from "../handler";
import { writeReplyStream } from "../node";
import type { ApiReply, ApiRequest } from "../request-reply";
import { mcpTools, runToolCall, toolsFor, type McpTool, type ToolCall } from "./tools";

/**
 * The MCP server's resources (issue 41): the person's notifications and the global chat, each the
 * JSON of the API list it stands for (read through the same tool call, so the same scope, quotas and
 * request log, as `MCP resources/read <uri>`), and live: a session subscribed to one gets
 * `notifications/resources/updated` on its stream (GET /mcp with its Mcp-Session-Id) when an event of
 * the resource's type arrives. That stream is the event stream's own hub (lib/events/stream.ts): the
 * same audience rule as webhooks and GET /api/v1/events (a person's notifications only for their own
 * token, with the scope and their grant), the same per-app and per-person stream limits, and it ends
 * with its token (expiry, revocation, secret roll, suspension). Its frames carry the event's id, so a
 * client that reconnects with Last-Event-ID misses no update.
 */

export interface McpResource {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: "application/json";
  /** The tool whose result the resource is, and whose scope it needs. */
  tool: string;
  /** The event that updates it. */
  event: EventType;
}

export const MCP_RESOURCES: readonly McpResource[] = [
  {
    uri: "platform://me/notifications",
    name: "my_notifications",
    title: "My notifications",
    description:
      "The signed-in person's newest notifications (pokes, mentions), as list_my_notifications returns them. Subscribe to hear of each new one.",
    mimeType: "application/json",
    tool: "list_my_notifications",
    event: "notification.created",
  },
  {
    uri: "platform://global-chat/messages",
    name: "global_chat_messages",
    title: "Global chat",
    description: "The newest messages of the global chat, as list_chat_messages returns them. Subscribe to hear of each new message.",
    mimeType: "application/json",
    tool: "list_chat_messages",
    event: "chat.message.created",
  },
];

const BY_URI = new Map(MCP_RESOURCES.map((r) => [r.uri, r]));
const BY_EVENT = new Map(MCP_RESOURCES.map((r) => [r.event, r]));

export function mcpResource(uri: string): McpResource | undefined {
  return BY_URI.get(uri);
}

/** The tool a resource is read through (the scope it needs is the tool's). */
export function toolOfResource(resource: McpResource): McpTool {
  return mcpTools().get(resource.tool)!;
}

/** The resources a token may read: those whose tool it may call. */
export function resourcesFor(scopes: readonly string[], hasUser: boolean): McpResource[] {
  const tools = new Set(toolsFor(scopes, hasUser).map((t) => t.name));
  return MCP_RESOURCES.filter((r) => tools.has(r.tool));
}

/** Reads a resource: the API's reply to its tool's call without arguments. */
export function readResource(resource: McpResource, call: Pick<ToolCall, "authorization" | "dpopKey" | "callId" | "origin">): Promise<{ reply: ApiReply; requestId: string }> {
  return runToolCall({ tool: toolOfResource(resource), args: {}, ...call, loggedAs: `MCP resources/read ${resource.uri}` });
}

/** Whose session a caller's is: its app and, for a user token, its person. */
export function sessionOwner(caller: Exclude<ApiCaller, { kind: "anonymous" }>): McpSessionOwner {
  return { clientId: caller.clientId, userId: caller.kind === "user" ? caller.userId : null };
}

/** What the session's stream sends for an event: the update of a resource it subscribes to, or nothing. */
function updatedFrame(subscribed: () => ReadonlySet<string>): StreamFrame {
  return (event) => {
    const resource = BY_EVENT.get(event.type);
    if (!resource || !subscribed().has(resource.uri)) return null;
    const message = { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: resource.uri } };
    return `id: ${event.id}\nevent: message\ndata: ${JSON.stringify(message)}\n\n`;
  };
}

/**
 * Opens the stream of session `sessionId` for `caller` (whose token opened it; the API's gate
 * accepted it for the MCP server): 404 when the session is another token's, the event stream's
 * 429 and 400 (Last-Event-ID) otherwise.
 */
export async function serveSessionStream(
  req: IncomingMessage,
  res: ServerResponse,
  request: ApiRequest,
  caller: Exclude<ApiCaller, { kind: "anonymous" }>,
  sessionId: string,
  headers: Record<string, string>,
): Promise<void> {
  const owner = sessionOwner(caller);
  let uris: ReadonlySet<string> = new Set();
  let heard = false;
  let stop: (() => void) | null = null;
  // Watched before the session is read: a subscribe committed meanwhile, through any process, is heard.
  const unwatch = watchMcpSession(sessionId, (now) => {
    heard = true;
    // The client's DELETE ends the stream.
    if (now === null) stop?.();
    else uris = new Set(now);
  });
  let opened;
  try {
    const stored = await mcpSessionFor(sessionId, owner);
    if (!heard) uris = new Set(stored);
    opened = await openEventStream(
      { ...owner, scopes: caller.scopes, worldId: caller.worldId },
      await tokenLifetimeOf(request),
      { types: null, lastEventId: request.headers.get("last-event-id"), frame: updatedFrame(() => uris) },
    );
  } catch (error) {
    unwatch();
    throw error;
  }
  const seen = () => void touchMcpSession(sessionId).catch((error: Error) => logger.warn("mcp: session touch failed", { error: error.message }));
  seen();
  writeReplyStream(req, res, 200, { ...headers, ...EVENT_STREAM_HEADERS }, {
    start(sink) {
      stop = opened.start(sink);
      return () => {
        stop!();
        unwatch();
        seen();
      };
    },
  });
}
