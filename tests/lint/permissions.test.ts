import path from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

/**
 * `capabilities(app, actor)` in lib/services/app-access.ts is the one place that
 * decides who may do what with an app. `npm run lint` (eslint.config.mjs, `permissionChecks`) must
 * refuse a permission check written anywhere else that acts on apps, and let app-access.ts do it.
 */
const ROOT = path.resolve(import.meta.dirname, "..", "..");
const eslint = new ESLint({ cwd: ROOT });

async function permissionErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, filePath) });
  return result!.messages.filter((m) => m.ruleId === "no-restricted-syntax").map((m) => m.message);
}

const ROLE_COMPARISON = `export function canEdit(role: string | null): boolean {\n  return role === "owner" || "admin" === role;\n}\n`;

describe("permission checks live in app-access.ts", () => {
  it.each([
    ["a service", "lib/services/app-secrets.ts", ROLE_COMPARISON],
    ["a server action", "lib/actions/apps.ts", ROLE_COMPARISON],
    ["the CLI", "bin/platform.ts", `export const isViewer = (m: { role: string }) => m.role !== "viewer";\n`],
    ["an app page", "app/(portal)/apps/[clientId]/page.tsx", `export const canDelete = (role: string) => role == "owner";\n`],
    ["a switch on roles", "lib/services/apps.ts", `export function f(role: string) {\n  switch (role) {\n    case "admin":\n      return true;\n  }\n  return false;\n}\n`],
    ["a role rank", "lib/services/usage.ts", `const ROLE_RANK = { viewer: 1, admin: 2, owner: 3 };\nexport const x = ROLE_RANK.admin;\n`],
    ["asking for a team role", "lib/services/app-members.ts", `declare function teamRole(a: unknown, b: unknown): string;\nexport const x = teamRole(1, 2);\n`],
  ])("refuses one in %s", async (_name, file, code) => {
    const errors = await permissionErrors(file, code);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.join("\n")).toMatch(/app-access\.ts/);
  });

  it("allows it in lib/services/app-access.ts, and allows reading capabilities elsewhere", async () => {
    expect(await permissionErrors("lib/services/app-access.ts", ROLE_COMPARISON)).toEqual([]);
    expect(
      await permissionErrors(
        "lib/services/app-secrets.ts",
        `declare function capabilities(a: unknown, b: unknown): { manage: boolean };\nexport const x = capabilities(1, 2).manage;\n`,
      ),
    ).toEqual([]);
  });
});
