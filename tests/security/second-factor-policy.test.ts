import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_ACCOUNTS } from "../../lib/seed/demo-accounts";
import { SECOND_FACTOR_REQUIRED_MESSAGE } from "../../lib/services/mfa-policy";
import { query } from "../helpers/db";
import { startServer, type TestServer } from "../helpers/server";
import { callServerAction, portalSignIn, serverActions, type PortalSession, type ServerAction } from "./portal-client";

/**
 * REQUIRE_MFA=developers (PRODUCT.md, lib/services/mfa-policy.ts): an app's owner must have a second
 * factor before changing the app. Every server action that changes an app passes the one gate
 * (lib/actions/gate.ts), called here over HTTP the way a script would, bypassing the UI: with a
 * second factor the owner's calls work; without one, every one is refused with the policy's
 * message and changes nothing, while setting a factor up stays open.
 */
const ROOT = path.resolve(import.meta.dirname, "..", "..");
let server: TestServer;
let actions: Record<string, ServerAction>;
let bob: PortalSession;
let bobId: number;
let clientId: string;
let webhookId: string;
let secretId: string;

const password = (handle: string) => DEMO_ACCOUNTS.find((a) => a.handle === handle)!.password;

function action(name: string): ServerAction {
  const found = actions[name];
  if (!found) throw new Error(`no server action named ${name} in the build`);
  return found;
}

/** The names of the actions whose gate kind is "app", read from lib/actions (the source of truth). */
function appActionNames(): string[] {
  const dir = path.join(ROOT, "lib", "actions");
  const names: string[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))) {
    const code = readFileSync(path.join(dir, file), "utf8");
    for (const m of code.matchAll(/export async function (\w+)\([\s\S]*?runGuardedAction\("[^"]+", ("app"|"account"|\{)/g)) {
      if (m[2] === '"app"') names.push(m[1]!);
    }
  }
  return names.sort();
}

async function setBobFactor(on: boolean): Promise<void> {
  // A confirmed factor row is what the policy counts (hasSecondFactor); its kind does not matter here.
  if (on) await query(server.databaseUrl, `INSERT INTO "SecondFactor" ("userId", kind, "confirmedAt") VALUES ($1, 'totp', now())`, [bobId]);
  else await query(server.databaseUrl, `DELETE FROM "SecondFactor" WHERE "userId" = $1`, [bobId]);
}

/** Everything an app action could change, for "nothing changed". */
async function snapshot(): Promise<unknown> {
  const one = async (sql: string) => (await query(server.databaseUrl, sql, [clientId])).map((r) => JSON.stringify(r));
  return {
    app: await one(`SELECT name, description, status::text, "ownerId", "transferToId", scopes FROM "Application" WHERE "clientId" = $1`),
    secrets: await one(`SELECT s.id, s.hash FROM "ClientSecret" s JOIN "Application" a ON a.id = s."applicationId" WHERE a."clientId" = $1 ORDER BY s.id`),
    members: await one(`SELECT m."userId", m.role::text FROM "AppMember" m JOIN "Application" a ON a.id = m."applicationId" WHERE a."clientId" = $1 ORDER BY 1`),
    sandbox: await one(`SELECT s."secretHash", s."generatedAt" FROM "Sandbox" s JOIN "Application" a ON a.id = s."applicationId" WHERE a."clientId" = $1`),
    webhooks: await one(`SELECT id, url, enabled, secrets FROM "WebhookEndpoint" WHERE "clientId" IN ($1, 'sbx_' || $1) ORDER BY id`),
    apps: await one(`SELECT count(*)::int AS n FROM "Application" WHERE $1 <> ''`),
    users: await one(`SELECT count(*)::int AS n FROM "User" WHERE $1 <> ''`),
    events: await one(`SELECT count(*)::int AS n FROM "Event" WHERE $1 <> ''`),
  };
}

beforeAll(async () => {
  server = await startServer({ next: true, seed: true, env: { REQUIRE_MFA: "developers" } });
  actions = serverActions();
  bobId = (await query<{ id: number }>(server.databaseUrl, `SELECT id FROM "User" WHERE handle = 'bob'`))[0]!.id;
  bob = await portalSignIn(server, "bob", password("bob"));
}, 600_000);

afterAll(async () => {
  await server?.stop();
});

describe("REQUIRE_MFA=developers and an app's owner", () => {
  it("the positive control: with a second factor, the owner's app actions work", async () => {
    await setBobFactor(true);
    const created = await callServerAction(server, bob.jar, action("createAppAction"), [
      { name: "Policy bot", description: "", type: "api", scopes: [], redirectUris: [], postLogoutRedirectUris: [] },
    ]);
    expect(created.result?.ok, created.text.slice(0, 300)).toBe(true);
    clientId = (created.result!.data as { clientId: string }).clientId;
    const hook = await callServerAction(server, bob.jar, action("addWebhookAction"), [clientId, { url: "https://hooks.example.com/platform" }, true]);
    expect(hook.result?.ok, hook.text.slice(0, 300)).toBe(true);
    webhookId = (hook.result!.data as { id: string }).id;
    const rotated = await callServerAction(server, bob.jar, action("rotateWebhookSecretAction"), [clientId, webhookId, true]);
    expect(rotated.result?.ok, rotated.text.slice(0, 300)).toBe(true);
    const rolled = await callServerAction(server, bob.jar, action("rollSandboxSecretAction"), [clientId]);
    expect(rolled.result?.ok, rolled.text.slice(0, 300)).toBe(true);
    // Client secrets come with approval: approved here as an admin would, then the owner adds one.
    await query(server.databaseUrl, `UPDATE "Application" SET status = 'approved' WHERE "clientId" = $1`, [clientId]);
    const secret = await callServerAction(server, bob.jar, action("addSecretAction"), [clientId]);
    expect(secret.result?.ok, secret.text.slice(0, 300)).toBe(true);
    secretId = (secret.result!.data as { secretId: string }).secretId;
  });

  it("without one, every action that changes an app is refused before it runs, and nothing changes", async () => {
    await setBobFactor(false);
    const before = await snapshot();
    const calls: Record<string, unknown[]> = {
      createAppAction: [{ name: "Second bot", description: "", type: "api", scopes: [], redirectUris: [], postLogoutRedirectUris: [] }],
      updateAppAction: [clientId, { name: "Renamed bot", description: "changed" }],
      resubmitAppAction: [clientId, { name: "Renamed bot", description: "changed" }],
      deleteAppAction: [clientId],
      addSecretAction: [clientId],
      retireSecretAction: [clientId, secretId],
      rollSecretAction: [clientId],
      setAppKeysAction: [clientId, { jwksUri: "https://keys.example.com/jwks.json" }],
      clearAppKeysAction: [clientId],
      setMemberAction: [clientId, { handle: "carol", role: "admin" }],
      removeMemberAction: [clientId, "carol"],
      transferAppAction: [clientId, "carol"],
      answerTransferAction: [clientId, true],
      cancelTransferAction: [clientId],
      rollSandboxSecretAction: [clientId],
      resetSandboxAction: [clientId],
      addSandboxTestUserAction: [clientId, { handle: "policy_tester" }],
      removeSandboxTestUserAction: [clientId, "policy_tester"],
      triggerSandboxEventAction: [clientId, "chat.message.created"],
      addWebhookAction: [clientId, { url: "https://hooks.example.com/second" }, true],
      removeWebhookAction: [clientId, webhookId, true],
      setWebhookEnabledAction: [clientId, webhookId, false, true],
      rotateWebhookSecretAction: [clientId, webhookId, true],
      sendTestEventAction: [clientId, webhookId, true],
      redeliverAction: [clientId, "dlv_aaaaaaaaaaaaaaaaaaaaaaaa", true],
    };
    // Every action of kind "app" is called here: a new one fails this line until it is added.
    expect(Object.keys(calls).sort()).toEqual(appActionNames());
    for (const [name, args] of Object.entries(calls)) {
      const call = await callServerAction(server, bob.jar, action(name), args);
      expect(call.result, `${name}: ${call.status} ${call.text.slice(0, 300)}`).toEqual({
        ok: false,
        error: { code: "forbidden", message: SECOND_FACTOR_REQUIRED_MESSAGE },
      });
      expect(call.text, name).not.toMatch(/whsec_|client_?secret/i);
    }
    expect(await snapshot()).toEqual(before);
    const denied = await query<{ n: number }>(
      server.databaseUrl,
      `SELECT count(*)::int AS n FROM "AuditLog" WHERE "actorHandle" = 'bob' AND outcome = 'denied' AND detail->>'reason' = 'second_factor_required'`,
    );
    expect(denied[0]!.n).toBe(Object.keys(calls).length);
  });

  it("setting up a second factor stays open to them, with their password (the session alone is not enough)", async () => {
    for (const name of ["startTotpEnrolmentAction", "startPasskeyRegistrationAction"]) {
      const bare = await callServerAction(server, bob.jar, action(name), [{}]);
      expect(bare.result, `${name}: ${bare.text.slice(0, 300)}`).toMatchObject({ ok: false, error: { code: "invalid_request" } });
      const proved = await callServerAction(server, bob.jar, action(name), [{ password: password("bob") }]);
      expect(proved.result?.ok, `${name}: ${proved.text.slice(0, 300)}`).toBe(true);
    }
  });
});
