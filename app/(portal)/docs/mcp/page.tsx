import type { Metadata } from "next";
import Link from "next/link";
import { DocsPage } from "@/components/docs/docs-page";
import { CodeBlock } from "@/components/ui/code-block";
import { TableScroll } from "@/components/ui/table-scroll";
import { MCP_RESOURCES } from "@/lib/api/mcp/resources";
import { mcpTools, searchDocsTool } from "@/lib/api/mcp/tools";
import { env } from "@/lib/env";
import { CONNECT_SNIPPET } from "./snippets";

export const metadata: Metadata = { title: "Use the platform from an AI agent" };

/**
 * Issue 41's guide: the API as an MCP server at {APP_URL}/mcp. The tool and resource tables are the
 * server's own catalogs (lib/api/mcp/tools.ts, generated from the API's route table, and
 * lib/api/mcp/resources.ts), so they cannot drift.
 */
export default function McpGuidePage() {
  const { APP_URL } = env();
  const mcp = `${APP_URL}/mcp`;
  const tools = [...mcpTools().values()];
  return (
    <DocsPage
      path="/docs/mcp"
      title="Use the platform from an AI agent"
      lead={`The platform's API is also an MCP server, at ${mcp}: Claude, ChatGPT, VS Code and any other MCP client can read a person's profile, notifications and the global chat, poke friends and post, within the permissions that person grants, and lose them the moment the person takes them back.`}
    >
      <h2 id="connect">Connect a client</h2>
      <p>
        The server speaks MCP&apos;s Streamable HTTP transport (protocol revisions 2025-06-18 and 2025-11-25) at{" "}
        <code>{mcp}</code>. There is nothing to register: the first call answers <code>401</code>, the client opens the
        platform&apos;s sign-in page, the person signs in and allows it, and the client carries on with a token for this server
        alone. How an agent signs in, and what the person sees, is <Link href="/docs/agents">Connect an AI agent</Link>.
      </p>
      <p>
        A client names itself by the URL of its client metadata document, or, if it has none, registers itself (RFC 7591
        dynamic client registration). Registration is off unless the platform runs with{" "}
        <code>DYNAMIC_REGISTRATION=agents</code>: if a client says it cannot register, that is the switch its operator turns on.
      </p>
      <CodeBlock title="Claude Code" language="bash" code={`claude mcp add --transport http social-platform ${mcp}`} />
      <p>
        <strong>Claude Desktop and claude.ai:</strong> Settings → Connectors → Add custom connector, with the URL{" "}
        <code>{mcp}</code>. <strong>ChatGPT:</strong> Settings → Apps &amp; Connectors → Advanced settings → Developer mode,
        then Create, with <code>{mcp}</code> as the MCP server URL and OAuth as the authentication.
      </p>
      <CodeBlock
        title=".vscode/mcp.json (VS Code)"
        language="json"
        code={`{
  "servers": {
    "social-platform": { "type": "http", "url": "${mcp}" }
  }
}`}
      />
      <p>
        <strong>MCP Inspector:</strong> run <code>npx @modelcontextprotocol/inspector</code>, choose the Streamable HTTP
        transport and the URL <code>{mcp}</code>, and use its OAuth settings to sign in. The Inspector calls the server from
        your browser, so start the platform with <code>MCP_ALLOWED_ORIGINS=http://localhost:6274</code>: a request from any
        other page&apos;s origin is refused, so a web page cannot use a person&apos;s agent against the platform.
      </p>

      <h2 id="code">From your own code</h2>
      <p>
        An agent of your own connects with the official MCP SDK&apos;s client. Its <code>authProvider</code> (an{" "}
        <code>OAuthClientProvider</code>) names the agent by the URL of the client metadata document it publishes, sends the
        person to the address the SDK gives it, and keeps the tokens; the SDK does the rest (discovery, PKCE, the token, its
        refresh). This is the connecting part of <code>examples/mcp-agent</code> in the repository, which signs a person in,
        lists tools, reads the profile, posts and follows notifications (a subscription, below):
      </p>
      <CodeBlock title="examples/mcp-agent/src/agent.ts" language="ts" code={CONNECT_SNIPPET} />

      <h2 id="tools">Tools</h2>
      <p>
        Each tool is one endpoint of the <Link href="/docs/api-reference">API</Link>, with the same input, the same scopes and
        the same answer. A client lists only the tools its grant allows; the reads are marked read-only, so clients can call
        them without asking the person each time.
      </p>
      <TableScroll label="Tools">
        <table>
          <thead>
            <tr>
              <th scope="col">Tool</th>
              <th scope="col">What it does</th>
              <th scope="col">Scope</th>
            </tr>
          </thead>
          <tbody>
            {tools.map((tool) => (
              <tr key={tool.name}>
                <th scope="row" className="align-top">
                  <code>{tool.name}</code>
                </th>
                <td>
                  {tool.title}
                  {tool.annotations.readOnlyHint ? null : <span className="text-slate-600"> (writes)</span>}
                  <br />
                  <code className="text-xs">{`${tool.route.config.method} /api/v1${tool.route.config.path}`}</code>
                </td>
                <td className="align-top">{tool.scope ? <code>{tool.scope}</code> : "none"}</td>
              </tr>
            ))}
            <tr>
              <th scope="row" className="align-top">
                <code>{searchDocsTool.name}</code>
              </th>
              <td>{searchDocsTool.title}: these pages, for an agent that writes code against the platform</td>
              <td className="align-top">none</td>
            </tr>
          </tbody>
        </table>
      </TableScroll>
      <p>
        Run <code>npm run platform -- mcp tools --scope svc:chat.read</code> (repeat <code>--scope</code>) to see what a grant
        unlocks.
      </p>

      <h2 id="live">Live updates</h2>
      <p>
        Two resources change as things happen, each the JSON of the tool it stands for. A client subscribes to one with{" "}
        <code>resources/subscribe</code> and receives <code>notifications/resources/updated</code> within a second of each
        change, then reads the resource again:
      </p>
      <TableScroll label="Resources">
        <table>
          <thead>
            <tr>
              <th scope="col">Resource</th>
              <th scope="col">What it holds</th>
              <th scope="col">Updated when</th>
            </tr>
          </thead>
          <tbody>
            {MCP_RESOURCES.map((resource) => (
              <tr key={resource.uri}>
                <th scope="row" className="align-top">
                  <code className="break-all">{resource.uri}</code>
                </th>
                <td>
                  {resource.title}: what <code>{resource.tool}</code> returns
                </td>
                <td className="align-top">
                  <code>{resource.event}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <ul>
        <li>
          Updates need a session: <code>initialize</code> answers with an <code>Mcp-Session-Id</code> header, the client sends it
          on its requests and opens the session&apos;s stream with <code>GET /mcp</code> (the SDK&apos;s client does all of this
          by itself). Any server process answers any request of the session; <code>DELETE /mcp</code> ends it.
        </li>
        <li>
          A session hears what its token may read, by the same rule as webhooks and the event stream: the person&apos;s own
          notifications with <code>svc:notifications.read</code>, the chat with <code>svc:chat.read</code>.
        </li>
        <li>
          The stream ends with its token (expiry, revocation, the person revoking the agent); the client reconnects with a
          new token and <code>Last-Event-ID</code>, and misses no update. It counts among the app&apos;s event streams.
        </li>
      </ul>

      <h2 id="results">Results, errors and limits</h2>
      <ul>
        <li>
          A tool&apos;s <code>structuredContent</code> is exactly the API&apos;s JSON for the same call (the profile bare, the
          rest in <code>{"{ data }"}</code>), and its text is that JSON.
        </li>
        <li>
          An API error comes back as a result with <code>isError: true</code>: its text is <code>code: message</code> and{" "}
          <code>_meta[&quot;social-platform/error&quot;]</code> holds the error object of <Link href="/docs/errors">Errors and limits</Link>.
        </li>
        <li>
          A call counts against the app&apos;s quota and the person&apos;s share of it like an API request:{" "}
          <code>_meta</code> carries <code>social-platform/ratelimit</code>, <code>social-platform/ratelimit-policy</code> and,
          when refused, <code>social-platform/retry-after</code>. Calls appear in the request log as{" "}
          <code>MCP tools/call get_me</code>, with the request id of <code>_meta[&quot;social-platform/request-id&quot;]</code>.
        </li>
        <li>
          A write without its scope is refused with HTTP <code>403</code> and{" "}
          <code>WWW-Authenticate: Bearer error=&quot;insufficient_scope&quot;, scope=&quot;svc:chat.write&quot;</code>, so the
          client can ask the person for more. An expired or revoked token is <code>401</code>.
        </li>
        <li>
          Posting and poking are safe to retry: the same call sent again (the same JSON-RPC id, arguments and token) returns
          the first answer instead of posting twice; pass <code>idempotency_key</code> to choose the key yourself, as the
          API&apos;s <code>Idempotency-Key</code> header does.
        </li>
      </ul>

      <h2 id="registry">Registry entry</h2>
      <p>
        The server describes itself for the MCP Registry at{" "}
        <a href="/.well-known/mcp/server.json">
          <code>{`${APP_URL}/.well-known/mcp/server.json`}</code>
        </a>
        .
      </p>
    </DocsPage>
  );
}
