import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import MiniSearch from "minisearch";
import { z } from "zod";
import { DOCS_SEARCH_OPTIONS, type DocsSearchDocument, type DocsSearchResult } from "../../schemas/docs-search";
import { requestIdFrom } from "../../http/request-id";
import type { SvcScope } from "../../scopes";
import { errorReply } from "../errors";
import type { Route } from "../handler";
import type { ApiReply, ApiRequest } from "../request-reply";
import { dispatchApiRequest } from "../router";
import { API_ROUTES } from "../routes";

/**
 * The API's endpoints as MCP tools (issue 41), generated from the route table (lib/api/routes):
 * each route that names a tool (`mcp: { tool }` in its declaration) is one tool whose input schema
 * is its path, query and body schemas together, whose output schema is the API's JSON for it (the
 * profile bare, the others in `{ data }`), and whose call is an API request run by the same router
 * as HTTP (lib/api/router.ts): the same token check, for the MCP server's audience, the same scope,
 * quotas, metering and request log (as `MCP tools/call <tool>`), and idempotency for writes.
 */

type JsonSchema = Record<string, unknown> & { type: "object" };

export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: false; idempotentHint: boolean; openWorldHint: false };
  /** The scope the call needs (none: any token for the MCP server). */
  scope: SvcScope | undefined;
  /** Acts for a person: an app-only token cannot call it. */
  userOnly: boolean;
  route: Route;
  /** Where each argument goes in the API request, by the route's schemas (read once, not per call). */
  argumentsOf: { path: readonly string[]; query: ReadonlySet<string>; known: ReadonlySet<string> };
}

/** The argument a write takes to make a retry safe (the API's Idempotency-Key header). */
const IDEMPOTENCY_ARGUMENT = "idempotency_key";

type Shape = Record<string, z.ZodType>;

function shapeOf(schema: unknown): Shape {
  return schema instanceof z.ZodObject ? (schema.shape as Shape) : {};
}

/** A JSON Schema whose top level is an object (MCP's rule): a top-level `$ref` is inlined. */
function objectSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
  const ref = typeof json.$ref === "string" ? /^#\/\$defs\/(.+)$/.exec(json.$ref)?.[1] : undefined;
  if (ref === undefined) return json as JsonSchema;
  const { $ref: _ref, $defs, ...rest } = json as { $ref: string; $defs: Record<string, Record<string, unknown>> };
  const { [ref]: top, ...others } = $defs;
  return { ...rest, ...top, ...(Object.keys(others).length ? { $defs: others } : {}) } as JsonSchema;
}

function toTool(route: Route): McpTool | null {
  const { config } = route;
  if (!config.mcp) return null;
  const readOnly = config.mcp.readOnly ?? config.method === "GET";
  const pathNames = Object.keys(shapeOf(config.params));
  const queryNames = Object.keys(shapeOf(config.query));
  const input: Shape = { ...shapeOf(config.params), ...shapeOf(config.query), ...shapeOf(config.body) };
  if (config.idempotent) {
    input[IDEMPOTENCY_ARGUMENT] = z.string().min(1).max(255).optional().meta({
      description:
        "Makes a retry safe: a second call with the same key and arguments within 24 hours returns the first call's result and does nothing again. " +
        "Without one, a call repeated with the same JSON-RPC id, arguments and access token counts as a retry.",
    });
  }
  const output = config.response.bare ? config.response.schema : z.object({ data: config.response.schema });
  const scopeNote = config.scope ? ` Needs the ${config.scope} scope.` : "";
  return {
    name: config.mcp.tool,
    title: config.summary,
    description: `${config.summary}. ${config.description}${scopeNote} The same as ${config.method} /api/v1${config.path}.`,
    inputSchema: objectSchema(z.object(input), "input"),
    outputSchema: objectSchema(output, "output"),
    annotations: { title: config.summary, readOnlyHint: readOnly, destructiveHint: false, idempotentHint: readOnly, openWorldHint: false },
    scope: config.scope,
    userOnly: config.auth === "user",
    route,
    argumentsOf: { path: pathNames, query: new Set(queryNames), known: new Set(Object.keys(input)) },
  };
}

let catalog: Map<string, McpTool> | undefined;

/** Every tool, by name, in the route table's order. */
export function mcpTools(): Map<string, McpTool> {
  catalog ??= new Map(API_ROUTES.map(toTool).flatMap((tool) => (tool ? [[tool.name, tool] as const] : [])));
  return catalog;
}

/** The tools a token with `scopes` (and a person behind it, or not) may call: what tools/list shows it. */
export function toolsFor(scopes: readonly string[], hasUser: boolean): McpTool[] {
  return [...mcpTools().values()].filter((tool) => (tool.scope === undefined || scopes.includes(tool.scope)) && (hasUser || !tool.userOnly));
}

/**
 * `search_docs`: the portal's docs search (the same MiniSearch index the docs' search box loads,
 * public/docs-search-index.json) for agents that write code against the platform. Public reading:
 * any token for the MCP server may call it, and it makes no API request.
 */
export const SEARCH_DOCS_TOOL = "search_docs";
const SEARCH_DOCS_MAX_RESULTS = 10;

/** Its arguments: what tools/list shows and what a call is parsed with. */
const searchDocsArguments = z
  .object({
    query: z.string().trim().min(1).max(200).meta({ description: "Words to look for, e.g. \"refresh token rotation\" or \"rate limit headers\"." }),
    limit: z.number().int().min(1).max(SEARCH_DOCS_MAX_RESULTS).default(5).meta({ description: `How many results, 1 to ${SEARCH_DOCS_MAX_RESULTS} (default 5).` }),
  })
  .strict();

export const searchDocsTool = {
  name: SEARCH_DOCS_TOOL,
  title: "Search the platform's documentation",
  description:
    "Search the developer documentation of the platform (guides and the API reference): how sign-in, scopes, errors, webhooks, " +
    "the event stream, the sandbox and the SDK work. Returns the best sections with their address and an excerpt; read the page at `url` for the whole text.",
  inputSchema: objectSchema(searchDocsArguments, "input"),
  outputSchema: objectSchema(
    z.object({
      results: z.array(
        z.object({
          title: z.string(),
          page: z.string(),
          url: z.string().meta({ description: "Absolute URL of the section" }),
          endpoint: z.string().meta({ description: "`GET /users/{username}` for an API operation; empty for a guide" }),
          excerpt: z.string(),
        }),
      ),
    }),
    "output",
  ),
  annotations: { title: "Search the platform's documentation", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
} as const;

let docsIndex: Promise<MiniSearch<DocsSearchDocument>> | undefined;

/** The docs index, loaded once per process (built with the docs: npm run docs:index). */
function loadDocsIndex(): Promise<MiniSearch<DocsSearchDocument>> {
  docsIndex ??= readFile(path.join(process.cwd(), "public", "docs-search-index.json"), "utf8").then((json) => MiniSearch.loadJSON<DocsSearchDocument>(json, DOCS_SEARCH_OPTIONS));
  docsIndex.catch(() => (docsIndex = undefined));
  return docsIndex;
}

/** Runs search_docs: the results, or why the arguments are refused (the API's invalid_request wording). */
export async function searchDocs(args: Record<string, unknown>, origin: string): Promise<{ results: DocsSearchResultView[] } | { error: string }> {
  const parsed = searchDocsArguments.safeParse(args);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = issue.path.join(".") || (issue.code === "unrecognized_keys" ? issue.keys[0] : "arguments");
    return { error: `Invalid argument \`${name}\`: ${issue.message}.` };
  }
  const index = await loadDocsIndex();
  const hits = index.search(parsed.data.query).slice(0, parsed.data.limit) as unknown as DocsSearchResult[];
  return {
    results: hits.map((hit) => ({ title: hit.title, page: hit.page, url: `${origin}${hit.url}`, endpoint: hit.endpoint, excerpt: hit.excerpt })),
  };
}

type DocsSearchResultView = Pick<DocsSearchResult, "title" | "page" | "endpoint" | "excerpt"> & { url: string };

/** Why the arguments cannot make a request, or null. */
function argumentProblem(tool: McpTool, args: Record<string, unknown>): string | null {
  const unknown = Object.keys(args).find((name) => !tool.argumentsOf.known.has(name));
  if (unknown !== undefined) return `${tool.name} takes no argument \`${unknown}\`.`;
  const missing = tool.argumentsOf.path.find((name) => typeof args[name] !== "string" || args[name] === "");
  if (missing !== undefined) return `\`${missing}\` is required (a string).`;
  return null;
}

export interface ToolCall {
  tool: McpTool;
  args: Record<string, unknown>;
  /** The HTTP request's Authorization header (its token is checked for the MCP server's audience). */
  authorization: string;
  /** The DPoP key the HTTP request proved, when its token is bound to one (lib/api/auth.ts). */
  dpopKey?: string;
  /** The JSON-RPC id of the tools/call: with the token, a write's idempotency key when it names none. */
  callId: string | number;
  /** The platform's origin (the API's URL is built on it). */
  origin: string;
  /** How the request log names the call (`MCP tools/call <tool>` unless told). */
  loggedAs?: string;
}

/**
 * Runs a tool call as the API request it stands for, through the router: the reply is the API's
 * (status, headers, JSON), and the request id is the one the app's request log shows.
 */
export async function runToolCall(call: ToolCall): Promise<{ reply: ApiReply; requestId: string }> {
  const { tool, args } = call;
  const { config } = tool.route;
  const requestId = requestIdFrom(null);
  const problem = argumentProblem(tool, args);
  // Not a request the API could be sent: answered as its invalid_request would be.
  if (problem) return { reply: errorReply(400, { code: "invalid_request", message: problem }, {}, requestId), requestId };
  const { path: pathNames, query: queryNames } = tool.argumentsOf;
  const path = config.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(String(args[name] ?? "")));
  const query = new URLSearchParams();
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    if (name === IDEMPOTENCY_ARGUMENT || pathNames.includes(name) || value === undefined) continue;
    if (queryNames.has(name)) query.set(name, typeof value === "string" ? value : JSON.stringify(value));
    else body[name] = value;
  }
  const headers: Record<string, string> = { authorization: call.authorization, "x-request-id": requestId };
  if (config.body) headers["content-type"] = "application/json";
  if (config.idempotent) {
    const explicit = args[IDEMPOTENCY_ARGUMENT];
    headers["idempotency-key"] =
      typeof explicit === "string"
        ? explicit
        : // A retry is the same call again: the same id, token, tool and arguments. A client that numbers
          // its calls afresh after reconnecting reuses ids, but with other arguments that is another key.
          `mcp-${createHash("sha256").update(JSON.stringify([call.authorization, call.callId, tool.name, args])).digest("base64url").slice(0, 32)}`;
  }
  const payload = Buffer.from(config.body ? JSON.stringify(body) : "");
  const search = query.size ? `?${query}` : "";
  const request: ApiRequest = {
    method: config.method,
    url: `${call.origin}/api/v1${path}${search}`,
    headers: { get: (name) => headers[name.toLowerCase()] ?? null },
    readBody: async () => payload,
    route: undefined,
    clientId: undefined,
    userId: undefined,
    resource: "mcp",
    dpopKey: call.dpopKey,
    loggedAs: call.loggedAs ?? `MCP tools/call ${tool.name}`,
  };
  return { reply: await dispatchApiRequest(request), requestId };
}
