import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { cliJson, runCli } from "../helpers/cli";
import { query } from "../helpers/db";
import { clientCredentialsToken, createTestApp } from "../helpers/oidc";
import { pointAppAt, startServer, type TestServer } from "../helpers/server";

/**
 * Re-review of widened apps, through real HTTP and the CLI: on an approved app, a change
 * that widens what it may do or how it presents itself waits for review while the app keeps
 * running on its approved configuration; narrowing applies at once; a pending app is edited
 * freely; an admin approves (new tokens carry the added scope) or refuses (with a reason).
 */
vi.setConfig({ testTimeout: 120_000 });

let server: TestServer;
let closeDb: () => Promise<void>;
let apps: typeof import("../../lib/services/apps") & typeof import("../../lib/services/app-review");
const operator = { kind: "system", name: "test" } as const;

beforeAll(async () => {
  server = await startServer({ seed: false });
  closeDb = await pointAppAt(server.databaseUrl, { LOG_LEVEL: "silent" });
  apps = { ...(await import("../../lib/services/apps")), ...(await import("../../lib/services/app-review")) };
});

afterAll(async () => {
  await closeDb?.();
  await server?.stop();
});

interface AppJson {
  client_id: string;
  name: string;
  scopes: string[];
  redirect_uris: string[];
  pending_change: null | { name?: string; scopes?: string[]; redirect_uris?: string[]; requested_at: number; requested_by: string };
}

const scopesOf = async (clientId: string, secret: string) =>
  (await clientCredentialsToken(server, clientId, secret)).scope?.split(" ").sort() ?? [];

describe("changes of an approved app", () => {
  it("a scope added waits for `apps changes approve`: tokens carry only the approved scopes until then", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "api", scopes: ["svc:chat.read"] });
    const updated = await cliJson<AppJson>(server.databaseUrl, [
      "apps", "update", app.clientId, "--scope", "svc:chat.read", "--scope", "svc:directory.read",
    ]);
    expect(updated.scopes).toEqual(["svc:chat.read"]);
    expect(updated.pending_change).toMatchObject({ scopes: ["svc:chat.read", "svc:directory.read"], requested_by: "system:cli" });
    expect(await scopesOf(app.clientId, app.clientSecret!)).toEqual(["svc:chat.read"]);

    const approved = await cliJson<AppJson>(server.databaseUrl, ["apps", "changes", "approve", app.clientId]);
    expect(approved).toMatchObject({ scopes: ["svc:chat.read", "svc:directory.read"], pending_change: null });
    // The change channel reaches the server's client cache at once.
    let scopes: string[] = [];
    for (let i = 0; i < 50 && scopes.length < 2; i++) {
      scopes = await scopesOf(app.clientId, app.clientSecret!);
      if (scopes.length < 2) await new Promise((r) => setTimeout(r, 20));
    }
    expect(scopes).toEqual(["svc:chat.read", "svc:directory.read"]);
  });

  it("a rename and a new redirect URI wait; removing a redirect URI applies at once; the owner is told the outcome", async () => {
    const app = await createTestApp(server.databaseUrl, {
      type: "login",
      name: "Original Name",
      redirectUris: ["https://one.example/cb", "https://two.example/cb"],
    });
    const updated = await cliJson<AppJson>(server.databaseUrl, [
      "apps", "update", app.clientId, "--name", "Official Platform Login",
      "--redirect-uri", "https://one.example/cb", "--redirect-uri", "https://evil.example/cb",
    ]);
    // two.example is gone at once (narrowing); evil.example and the name wait.
    expect(updated.redirect_uris).toEqual(["https://one.example/cb"]);
    expect(updated.name).toBe("Original Name");
    expect(updated.pending_change).toMatchObject({
      name: "Official Platform Login",
      redirect_uris: ["https://one.example/cb", "https://evil.example/cb"],
    });
    const view = await apps.getAppForViewer(app.clientId, operator);
    expect(view.name).toBe("Original Name");

    const missing = await runCli(server.databaseUrl, ["apps", "changes", "reject", app.clientId, "--json"]);
    expect(missing.code).toBe(2);
    const refused = await cliJson<AppJson>(server.databaseUrl, [
      "apps", "changes", "reject", app.clientId, "--reason", "The name impersonates the platform",
    ]);
    expect(refused).toMatchObject({ name: "Original Name", redirect_uris: ["https://one.example/cb"], pending_change: null });
    expect((await apps.getAppForViewer(app.clientId, operator)).pendingChangeRejection).toBe("The name impersonates the platform");
    const notices = await query<{ message: string }>(
      server.databaseUrl,
      `SELECT n.message FROM "Notification" n JOIN "Application" a ON a."ownerId" = n."userId" WHERE a."clientId" = $1 ORDER BY n.id`,
      [app.clientId],
    );
    expect(notices.map((n) => n.message)).toContain(
      'The changes to your app "Original Name" were not approved: The name impersonates the platform.',
    );
    const nothing = await runCli(server.databaseUrl, ["apps", "changes", "approve", app.clientId, "--json"]);
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toMatch(/no change waiting/);
  });

  it("editing a field back to its approved value withdraws it; a pending app (never approved) is edited freely", async () => {
    const approved = await createTestApp(server.databaseUrl, { type: "api", name: "Stays", scopes: ["svc:chat.read"] });
    await apps.updateApp(approved.clientId, { name: "Renamed" }, operator);
    const back = await apps.updateApp(approved.clientId, { name: "Stays" }, operator);
    expect(back.pendingChange).toBeNull();

    const pending = await createTestApp(server.databaseUrl, { type: "api", name: "Draft", status: "pending", scopes: [] });
    const edited = await apps.updateApp(pending.clientId, { name: "Draft 2", scopes: ["svc:chat.read"] }, operator);
    expect(edited).toMatchObject({ name: "Draft 2", scopes: ["svc:chat.read"], pendingChange: null });
    const audit = await query<{ action: string }>(server.databaseUrl, `SELECT action FROM "AuditLog" WHERE "targetId" = $1`, [
      approved.clientId,
    ]);
    expect(audit.map((a) => a.action)).toContain("app.change.request");
  });
});
