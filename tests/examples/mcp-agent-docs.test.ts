import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { CONNECT_SNIPPET } from "../../app/(portal)/docs/mcp/snippets";

/** The /docs/mcp page's TypeScript is examples/mcp-agent's, which tests/examples/mcp-agent.test.ts runs. */
it("the docs page's connect snippet is the example agent's code, word for word", () => {
  const source = readFileSync(path.resolve(import.meta.dirname, "../../examples/mcp-agent/src/agent.ts"), "utf8");
  const region = /\/\/ docs:connect-start\n([\s\S]*?)\n\/\/ docs:connect-end/.exec(source);
  expect(region, "the example marks its connect code with docs:connect-start/-end").not.toBeNull();
  expect(CONNECT_SNIPPET).toBe(region![1]);
});
