import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { cliJson, runCli } from "../helpers/cli";
import { query } from "../helpers/db";
import { authorize, createTestApp, createTestUser, refreshTokens, signInAndGetTokens } from "../helpers/oidc";
import { pointAppAt, startServer, type TestServer } from "../helpers/server";

/**
 * Issue 15, Connected apps (service and CLI): the login clients a person authorized, with first
 * authorized and last used; revoking one voids the person's tokens for it at once and the next
 * sign-in asks for consent again. Only the person and admins may see or revoke.
 */
vi.setConfig({ testTimeout: 120_000 });

const REDIRECT = "http://localhost:9/callback";
const PASSWORD = "connected apps passphrase";

let server: TestServer;
let closeDb: () => Promise<void>;
let connected: typeof import("../../lib/services/connected-apps");
let chatApp: string;
let otherApp: string;
let userId: number;

beforeAll(async () => {
  server = await startServer({ seed: false });
  closeDb = await pointAppAt(server.databaseUrl, { LOG_LEVEL: "silent" });
  connected = await import("../../lib/services/connected-apps");
  ({ clientId: chatApp } = await createTestApp(server.databaseUrl, {
    type: "login",
    name: "Chat Companion",
    scopes: ["svc:chat.read"],
    redirectUris: [REDIRECT],
  }));
  ({ clientId: otherApp } = await createTestApp(server.databaseUrl, { type: "login", name: "Never Used", redirectUris: [REDIRECT] }));
  ({ id: userId } = await createTestUser(server.databaseUrl, { handle: "conn_carla", password: PASSWORD }));
  await createTestUser(server.databaseUrl, { handle: "conn_other", password: PASSWORD });
});

afterAll(async () => {
  await closeDb?.();
  await server?.stop();
});

const signIn = (clientId = chatApp) =>
  signInAndGetTokens(server, { handle: "conn_carla", password: PASSWORD, clientId, redirectUri: REDIRECT, scope: "openid svc:chat.read" });

async function me(token: string) {
  const res = await fetch(`${server.apiUrl}/me`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as { error?: { code: string } } };
}

async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface ListedApp {
  client_id: string;
  name: string;
  scopes: string[];
  authorized_at: number;
  last_used_at: number | null;
}

describe("Connected apps", () => {
  it("lists what the person authorized, with first authorized and last used; the CLI prints the issue's JSON", async () => {
    const before = Math.floor(Date.now() / 1000) - 1;
    const tokens = await signIn();
    const listed = await eventually(
      () => cliJson<ListedApp[]>(server.databaseUrl, ["users", "apps", "conn_carla"]),
      (apps) => apps[0]?.last_used_at != null,
    );
    expect(listed).toEqual([
      { client_id: chatApp, name: "Chat Companion", scopes: ["openid", "svc:chat.read"], authorized_at: expect.any(Number), last_used_at: expect.any(Number) },
    ]);
    expect(listed[0]!.authorized_at).toBeGreaterThanOrEqual(before);
    expect(listed[0]!.last_used_at!).toBeGreaterThanOrEqual(listed[0]!.authorized_at);
    // An app the person never authorized is not listed; a refresh is a use too (and keeps working).
    expect(listed.map((a) => a.client_id)).not.toContain(otherApp);
    expect((await refreshTokens(server, chatApp, tokens.refresh_token)).status).toBe(200);

    const view = await connected.listConnectedApps("conn_carla", { kind: "user", id: userId, handle: "conn_carla", role: "user" });
    expect(view[0]).toMatchObject({ clientId: chatApp, ownerHandle: "testdev" });
  });

  it("only the person and admins may see or revoke; anyone else gets not_found", async () => {
    const [other] = await query<{ id: number }>(server.databaseUrl, `SELECT id FROM "User" WHERE handle = 'conn_other'`);
    const stranger = { kind: "user", id: other!.id, handle: "conn_other", role: "user" } as const;
    await expect(connected.listConnectedApps("conn_carla", stranger)).rejects.toMatchObject({ code: "not_found" });
    await expect(connected.revokeConnectedApp("conn_carla", chatApp, stranger)).rejects.toMatchObject({ code: "not_found" });
    const admin = { kind: "user", id: other!.id, handle: "conn_other", role: "admin" } as const;
    expect((await connected.listConnectedApps("conn_carla", admin)).map((a) => a.clientId)).toContain(chatApp);
    // The stranger's refused revoke, on carla: this test's own row, not any denial of the run.
    const denied = await query(
      server.databaseUrl,
      `SELECT 1 FROM "AuditLog" WHERE action = 'consent.revoke' AND outcome = 'denied' AND "actorId" = $1 AND "targetType" = 'user' AND "targetId" = $2`,
      [other!.id, String(userId)],
    );
    expect(denied).toHaveLength(1);
  });

  it("revoke-app: access token 401 invalid_token at once, refresh token invalid_grant, consent asked again, audit-logged", async () => {
    const tokens = await signIn();
    expect((await me(tokens.access_token)).status).toBe(200);

    const run = await runCli(server.databaseUrl, ["users", "revoke-app", "conn_carla", chatApp, "--json"]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ handle: "conn_carla", client_id: chatApp, was_connected: true });

    const after = await eventually(() => me(tokens.access_token), (res) => res.status === 401);
    expect(after.status).toBe(401);
    expect(after.body.error?.code).toBe("invalid_token");
    expect((await refreshTokens(server, chatApp, tokens.refresh_token)).body.error).toBe("invalid_grant");
    expect(await cliJson<ListedApp[]>(server.databaseUrl, ["users", "apps", "conn_carla"])).toEqual([]);

    const again = await authorize(server, { handle: "conn_carla", password: PASSWORD, clientId: chatApp, redirectUri: REDIRECT, scope: "openid svc:chat.read" });
    expect(again.consentShown).toBe(true);
    // This revocation's row: carla, the chat app, the CLI as actor.
    const audit = await query<{ actorHandle: string }>(
      server.databaseUrl,
      `SELECT "actorHandle" FROM "AuditLog"
       WHERE action = 'consent.revoke' AND outcome = 'ok' AND "targetType" = 'user' AND "targetId" = $1 AND detail->>'client' = $2`,
      [String(userId), chatApp],
    );
    expect(audit.map((a) => a.actorHandle)).toEqual(["system:cli"]);
  });

  it("revoking an unknown app is a clear not_found; an unknown person too", async () => {
    const unknownApp = await runCli(server.databaseUrl, ["users", "revoke-app", "conn_carla", "app_nosuchapp0000", "--json"]);
    expect(unknownApp.code).toBe(1);
    expect(unknownApp.stderr).toMatch(/not_found/);
    const unknownUser = await runCli(server.databaseUrl, ["users", "apps", "nobody_here", "--json"]);
    expect(unknownUser.code).toBe(1);
    expect(unknownUser.stderr).toMatch(/not_found/);
  });
});
