import { isSvcScope, OIDC_SCOPES } from "../scopes";
import { UsageError, type Command } from "./command";

/**
 * `mcp tools`: the tools the MCP server at {APP_URL}/mcp (issue 41) offers a token with the given
 * scopes, exactly as its tools/list answers (lib/api/mcp/tools.ts, generated from the API's route
 * table), so an operator or an agent's developer sees what a grant unlocks without signing anyone in.
 */
export const mcpTools: Command = {
  usage: "mcp tools [--scope SCOPE]... [--json]",
  summary: "The MCP server's tools for a token with these scopes (repeat --scope; none: the tools that need no scope)",
  options: { scope: { type: "string", multiple: true } },
  positionals: [],
  helpDetails: ["Example: npm run platform -- mcp tools --scope svc:chat.read --scope svc:chat.write"],
  async run({ values }) {
    const scopes = (values.scope as string[] | undefined) ?? [];
    const unknown = scopes.find((scope) => !isSvcScope(scope) && !(scope in OIDC_SCOPES));
    if (unknown !== undefined) throw new UsageError(`Unknown scope ${unknown}: an svc: scope or one of ${Object.keys(OIDC_SCOPES).join(", ")}.`);
    const { searchDocsTool, toolsFor } = await import("../api/mcp/tools");
    const tools = [
      ...toolsFor(scopes, true).map((tool) => ({ name: tool.name, title: tool.title, scope: tool.scope ?? null, read_only: tool.annotations.readOnlyHint })),
      { name: searchDocsTool.name, title: searchDocsTool.title, scope: null, read_only: true },
    ];
    const width = Math.max(...tools.map((tool) => tool.name.length));
    return {
      json: tools,
      text: tools.map((tool) => `${tool.name.padEnd(width)}  ${tool.read_only ? "read " : "write"}  ${tool.scope ?? "(no scope)"}  ${tool.title}`).join("\n"),
    };
  },
};
