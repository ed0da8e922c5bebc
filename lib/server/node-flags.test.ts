import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PRODUCTION_NODE_FLAGS } from "./node-flags";

describe("production Node flags", () => {
  it("npm start passes them (the bench starts its servers with the same)", () => {
    const pkg = JSON.parse(readFileSync(path.join(import.meta.dirname, "..", "..", "package.json"), "utf8")) as { scripts: Record<string, string> };
    const start = pkg.scripts.start!.split(" ");
    for (const flag of PRODUCTION_NODE_FLAGS) expect(start).toContain(flag);
    expect(start.slice(-3)).toEqual(["--import", "tsx", "server.ts"]);
  });
});
