import path from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

/**
 * The layering of STYLE.md is enforced by `npm run lint` (eslint.config.mjs). This lints
 * code as if it were the content of a given (existing) file of the project, so an upward import must fail the config and
 * a downward one must pass; a config that stopped classifying files would let both through.
 */
const ROOT = path.resolve(import.meta.dirname, "..", "..");
const eslint = new ESLint({ cwd: ROOT });

async function layeringErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, filePath) });
  return result!.messages.filter((m) => m.ruleId === "boundaries/dependencies").map((m) => m.message);
}

describe("layering rules", () => {
  it.each([
    ["a service importing the API edge", "lib/services/pokes.ts", `import { authenticate } from "../api/auth";\nexport const x = authenticate;\n`],
    ["the database layer importing a service", "lib/database/batch.ts", `import { createApp } from "../services/apps";\nexport const x = createApp;\n`],
    ["a shared module importing a service", "lib/scopes.ts", `import { createApp } from "./services/apps";\nexport const x = createApp;\n`],
    ["the portal session importing the API edge", "lib/portal/session.ts", `import { authenticate } from "../api/auth";\nexport const x = authenticate;\n`],
    ["a component importing a service", "components/ui/button.tsx", `import { createApp } from "@/lib/services/apps";\nexport const x = createApp;\n`],
    ["the sign-in service importing the API edge", "lib/oidc/html.ts", `import { authenticate } from "../api/auth";\nexport const x = authenticate;\n`],
    ["a service importing a CLI command", "lib/services/pokes.ts", `import { appsCreate } from "../cli/apps";\nexport const x = appsCreate;\n`],
    ["a CLI command importing the database layer", "lib/cli/keys.ts", `import { db } from "../database/client";\nexport const x = db;\n`],
  ])("refuses %s", async (_name, file, code) => {
    expect(await layeringErrors(file, code)).toEqual([expect.stringContaining("dependencies point down")]);
  });

  it.each([
    ["a service importing the database layer", "lib/services/pokes.ts", `import { db } from "../database/client";\nexport const x = db;\n`],
    ["the API edge importing a service", "lib/api/errors.ts", `import { createApp } from "../services/apps";\nexport const x = createApp;\n`],
    ["a component importing a server action", "components/ui/button.tsx", `import { createAppAction } from "@/lib/actions/apps";\nexport const x = createAppAction;\n`],
    ["the CLI importing a service", "bin/platform.ts", `import { createApp } from "../lib/services/apps";\nexport const x = createApp;\n`],
    ["the CLI dispatcher importing a CLI command", "bin/platform.ts", `import { appsCreate } from "../lib/cli/apps";\nexport const x = appsCreate;\n`],
    ["a CLI command importing a service", "lib/cli/apps.ts", `import { createApp } from "../services/apps";\nexport const x = createApp;\n`],
  ])("allows %s", async (_name, file, code) => {
    expect(await layeringErrors(file, code)).toEqual([]);
  });
});
