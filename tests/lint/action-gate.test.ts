import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

/**
 * STYLE.md, "Surfaces share the rules": every server action passes one gate, `runGuardedAction`
 * (lib/actions/gate.ts), which checks the session, the role and the second-factor policy before the
 * action's body runs. `npm run lint` (eslint.config.mjs, `actionGate`) must refuse an action that
 * goes around it, and the actions the portal ships must all go through it.
 */
const ROOT = path.resolve(import.meta.dirname, "..", "..");
const ACTIONS = path.join(ROOT, "lib", "actions");
const eslint = new ESLint({ cwd: ROOT });

async function gateErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, filePath) });
  return result!.messages
    .filter((m) => m.ruleId === "no-restricted-syntax" && /runGuardedAction|"account" kinds/.test(m.message))
    .map((m) => `${filePath}:${m.line} ${m.message}`);
}

/** The files holding server actions: every file of lib/actions that starts with "use server". */
function actionFiles(): string[] {
  return readdirSync(ACTIONS)
    .filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"))
    .filter((name) => /^\s*["']use server["']/.test(readFileSync(path.join(ACTIONS, name), "utf8")))
    .map((name) => `lib/actions/${name}`);
}

const HEADER = `"use server";\nimport { runGuardedAction } from "@/lib/actions/gate";\nimport { runAction } from "@/lib/actions/result";\nimport { requireUserActor } from "@/lib/portal/session";\nimport { deleteApp } from "@/lib/services/apps";\n`;

describe("every server action passes the gate", () => {
  it("the portal's action files: every export is `return runGuardedAction(…)`, nothing else", async () => {
    const files = actionFiles();
    expect(files.length).toBeGreaterThanOrEqual(9);
    const errors: string[] = [];
    let exported = 0;
    for (const file of files) {
      const code = readFileSync(path.join(ROOT, file), "utf8");
      exported += (code.match(/^export async function /gm) ?? []).length;
      errors.push(...(await gateErrors(file, code)));
    }
    expect(errors).toEqual([]);
    // The rule looked at the actions (a selector that matches nothing would pass everything).
    expect(exported).toBeGreaterThanOrEqual(40);
  });

  it.each([
    [
      "an action with a guard of its own",
      "lib/actions/webhooks.ts",
      `export async function rotateAction(id: string) {\n  return runAction("x", async () => deleteApp(id, await requireUserActor()));\n}\n`,
    ],
    [
      "work done before the gate",
      "lib/actions/apps.ts",
      `export async function deleteAction(id: string) {\n  await deleteApp(id, { kind: "system", name: "x" });\n  return runGuardedAction("apps.delete", "app", async () => null);\n}\n`,
    ],
    ["an action without any gate", "lib/actions/sandboxes.ts", `export async function rollAction(id: string) {\n  return deleteApp(id, { kind: "system", name: "x" });\n}\n`],
    ["an arrow-function export", "lib/actions/app-members.ts", `export const transferAction = async (id: string) => deleteApp(id, { kind: "system", name: "x" });\n`],
    ["a re-export", "lib/actions/apps.ts", `export { deleteApp as deleteAppNow } from "@/lib/services/apps";\n`],
    ["a kind chosen at run time", "lib/actions/apps.ts", `const kind = "account" as const;\nexport async function a(id: string) {\n  return runGuardedAction("apps.x", kind, async (actor) => deleteApp(id, actor));\n}\n`],
    ["an app action that asks for no second factor", "lib/actions/webhooks.ts", `export async function a(id: string) {\n  return runGuardedAction("apps.webhooks.add", "account", async (actor) => deleteApp(id, actor));\n}\n`],
    ["an app action as someone's account", "lib/actions/app-members.ts", `export async function a(id: string, h: string) {\n  return runGuardedAction("apps.transfer", { accountOf: h }, async (actor) => deleteApp(id, actor));\n}\n`],
    ["an admin action that asks for no second factor", "lib/actions/admin.ts", `export async function a(id: string) {\n  return runGuardedAction("admin.apps.delete", "account", async (actor) => deleteApp(id, actor));\n}\n`],
  ])("refuses %s", async (_name, file, body) => {
    expect((await gateErrors(file, HEADER + body)).length).toBeGreaterThan(0);
  });

  it("allows a gated action, and the account kind in the account's own files", async () => {
    const gated = `export async function a(id: string) {\n  return runGuardedAction("apps.delete", "app", async (actor) => deleteApp(id, actor));\n}\n`;
    const clean = HEADER.replace(/^import \{ (runAction|requireUserActor) \}.*\n/gm, "");
    expect(await gateErrors("lib/actions/apps.ts", clean + gated)).toEqual([]);
    const own = `export async function a() {\n  return runGuardedAction("account.x", "account", async (actor) => actor.id);\n}\n`;
    expect(await gateErrors("lib/actions/second-factors.ts", clean + own)).toEqual([]);
  });
});
