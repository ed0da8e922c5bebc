import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PRODUCTION_NODE_ENV, PRODUCTION_NODE_FLAGS, withProductionEnv } from "./node-flags";

describe("production Node flags", () => {
  it("npm start passes them (the bench starts its servers with the same)", () => {
    const pkg = JSON.parse(readFileSync(path.join(import.meta.dirname, "..", "..", "package.json"), "utf8")) as { scripts: Record<string, string> };
    const start = pkg.scripts.start!.split(" ");
    for (const flag of PRODUCTION_NODE_FLAGS) expect(start).toContain(flag);
    expect(start.at(-1)).toBe("server.mjs");
    // The environment's defaults come first, each giving way to the shell's own value.
    for (const [name, value] of Object.entries(PRODUCTION_NODE_ENV)) expect(start).toContain(`${name}=\${${name}:-${value}}`);
  });

  it("the environment's defaults give way to the shell's", () => {
    expect(withProductionEnv({ PORT: "3000" })).toEqual({ PORT: "3000", ...PRODUCTION_NODE_ENV });
    expect(withProductionEnv({ MALLOC_ARENA_MAX: "8" }).MALLOC_ARENA_MAX).toBe("8");
  });
});
