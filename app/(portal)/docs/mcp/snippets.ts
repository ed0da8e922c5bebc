/**
 * The code the /docs/mcp page shows for connecting from TypeScript: the part of examples/mcp-agent
 * between its `docs:connect` markers, word for word (tests/examples/mcp-agent-docs.test.ts checks
 * it), so what the docs say is what the example CI runs does.
 */
export const CONNECT_SNIPPET = `const mcp = new URL(\`\${PLATFORM_URL}/mcp\`);
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
}`;
