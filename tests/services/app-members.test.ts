import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { cliJson, runCli } from "../helpers/cli";
import { query } from "../helpers/db";
import { newDatabase, pointAppAt } from "../helpers/server";

/**
 * Teams: the owner adds team admins and viewers, changes roles, removes members and
 * transfers ownership; team admins manage everything but delete and transfer; viewers read only,
 * checked in the services (the portal's actions and the CLI call them), not by hiding buttons;
 * anyone else still gets not_found. The CLI's `apps members` and `apps transfer` print JSON.
 */
vi.setConfig({ testTimeout: 120_000 });

let databaseUrl: string;
let closeDb: () => Promise<void>;
let apps: typeof import("../../lib/services/apps") & typeof import("../../lib/services/app-review");
let members: typeof import("../../lib/services/app-members");
let secrets: typeof import("../../lib/services/app-secrets");
type Actor = import("../../lib/services/actor").Actor;
const operator: Actor = { kind: "system", name: "test" };
const ids: Record<string, number> = {};
const as = (handle: string, role: "user" | "admin" = "user"): Actor => ({ kind: "user", id: ids[handle]!, handle, role });

beforeAll(async () => {
  databaseUrl = await newDatabase({ seed: true });
  closeDb = await pointAppAt(databaseUrl);
  apps = { ...(await import("../../lib/services/apps")), ...(await import("../../lib/services/app-review")) };
  members = await import("../../lib/services/app-members");
  secrets = await import("../../lib/services/app-secrets");
  const users = await import("../../lib/services/users");
  for (const handle of ["team_owner", "team_admin", "team_viewer", "team_stranger", "team_next"]) {
    ids[handle] = (await users.createUser({ handle, password: "team passphrase 123", displayName: handle, admin: false }, operator)).id;
  }
});

afterAll(async () => {
  await closeDb?.();
});

async function newApiApp(name: string): Promise<string> {
  const app = await apps.createApp(
    { name, description: "Team test", type: "api", scopes: ["svc:chat.read"], redirectUris: [], postLogoutRedirectUris: [] },
    { id: ids.team_owner! },
    as("team_owner"),
  );
  await apps.approveApp(app.clientId, operator);
  return app.clientId;
}

describe("teams", () => {
  it("roles: viewers read, team admins manage but cannot delete or transfer, strangers get not_found", async () => {
    const clientId = await newApiApp("Team App");
    await members.setMember(clientId, "team_admin", "admin", as("team_owner"));
    await members.setMember(clientId, "team_viewer", "viewer", as("team_owner"));

    // Everyone on the team sees the app, in My apps too.
    for (const handle of ["team_admin", "team_viewer"]) {
      expect((await apps.getAppForViewer(clientId, as(handle))).clientId).toBe(clientId);
      expect((await apps.listAppsForOwner(ids[handle]!)).map((a) => a.clientId)).toContain(clientId);
    }
    await expect(apps.getAppForViewer(clientId, as("team_stranger"))).rejects.toMatchObject({ code: "not_found" });

    // A viewer changes nothing: settings, secrets, team.
    const viewer = as("team_viewer");
    await expect(apps.updateApp(clientId, { name: "Hijacked" }, viewer)).rejects.toMatchObject({ code: "forbidden" });
    await expect(secrets.addSecret(clientId, viewer)).rejects.toMatchObject({ code: "forbidden" });
    await expect(secrets.revealSecretOnce(clientId, viewer)).resolves.toBeNull();
    await expect(apps.deleteApp(clientId, viewer)).rejects.toMatchObject({ code: "forbidden" });
    await expect(members.setMember(clientId, "team_stranger", "admin", viewer)).rejects.toMatchObject({ code: "forbidden" });
    expect((await secrets.listSecrets(clientId, viewer)).length).toBe(0);

    // A team admin manages settings and secrets (the first reveal is theirs to take), not the team, delete or transfer.
    const admin = as("team_admin");
    // (On an approved app a new description waits for review: the team admin's request is recorded.)
    expect((await apps.updateApp(clientId, { description: "Edited by the team admin" }, admin)).pendingChange).toMatchObject({
      description: "Edited by the team admin",
      requestedBy: "team_admin",
    });
    expect(await secrets.revealSecretOnce(clientId, admin)).toMatchObject({ clientId });
    await expect(apps.deleteApp(clientId, admin)).rejects.toMatchObject({ code: "forbidden" });
    await expect(members.requestTransfer(clientId, "team_admin", admin)).rejects.toMatchObject({ code: "forbidden" });
    await expect(members.setMember(clientId, "team_stranger", "viewer", admin)).rejects.toMatchObject({ code: "forbidden" });

    const denied = await query(databaseUrl, `SELECT action FROM "AuditLog" WHERE "targetId" = $1 AND outcome = 'denied'`, [clientId]);
    expect(denied.length).toBeGreaterThanOrEqual(6);
  });

  it("the owner changes roles, removes members, and a member may leave", async () => {
    const clientId = await newApiApp("Team Roles");
    expect((await members.setMember(clientId, "team_viewer", "viewer", as("team_owner"))).added).toBe(true);
    const promoted = await members.setMember(clientId, "team_viewer", "admin", as("team_owner"));
    expect(promoted).toMatchObject({ added: false, member: { handle: "team_viewer", role: "admin" } });
    await members.setMember(clientId, "team_admin", "viewer", as("team_owner"));
    expect(await members.removeMember(clientId, "team_admin", as("team_admin"))).toEqual({ removed: true, rollSecrets: false });
    await expect(apps.getAppForViewer(clientId, as("team_admin"))).rejects.toMatchObject({ code: "not_found" });
    await expect(members.removeMember(clientId, "team_owner", as("team_owner"))).rejects.toMatchObject({ code: "invalid_request" });
    await expect(members.setMember(clientId, "team_owner", "admin", as("team_owner"))).rejects.toMatchObject({ code: "invalid_request" });
    const audit = await query<{ action: string }>(databaseUrl, `SELECT action FROM "AuditLog" WHERE "targetId" = $1 ORDER BY id`, [clientId]);
    expect(audit.map((a) => a.action)).toEqual(expect.arrayContaining(["app.member.add", "app.member.role", "app.member.remove"]));
  });

  it("transfer: the new owner owns it, the old one stays as a team admin; an owner of apps cannot be deleted", async () => {
    const clientId = await newApiApp("Team Transfer");
    await members.requestTransfer(clientId, "team_next", as("team_owner"));
    expect((await members.answerTransfer(clientId, true, as("team_next"))).outcome).toBe("awaiting_review");
    const app = await apps.approvePendingChange(clientId, operator);
    expect(app.owner.handle).toBe("team_next");
    expect(app.members.map((m) => [m.handle, m.role])).toEqual([["team_owner", "admin"]]);
    await expect(apps.deleteApp(clientId, as("team_owner"))).rejects.toMatchObject({ code: "forbidden" });
    // The account owning it cannot be deleted from under the team (the database refuses).
    await expect(query(databaseUrl, `DELETE FROM "User" WHERE id = $1`, [ids.team_next])).rejects.toThrow(/foreign key/);
  });

  it("removing a team admin who could see the app's secrets advises rolling them (issue 24 point 4)", async () => {
    const clientId = await newApiApp("Team Secrets");
    await members.setMember(clientId, "team_admin", "admin", as("team_owner"));
    await members.setMember(clientId, "team_viewer", "viewer", as("team_owner"));
    // Before any secret exists there is nothing to roll.
    expect(await members.removeMember(clientId, "team_viewer", as("team_owner"))).toEqual({ removed: true, rollSecrets: false });
    await secrets.revealSecretOnce(clientId, as("team_owner"));
    await members.setMember(clientId, "team_viewer", "viewer", as("team_owner"));
    // A viewer never saw a secret; a team admin could have.
    expect(await members.removeMember(clientId, "team_viewer", as("team_owner"))).toEqual({ removed: true, rollSecrets: false });
    expect(await members.removeMember(clientId, "team_admin", as("team_owner"))).toEqual({ removed: true, rollSecrets: true });
    // The CLI prints the advice.
    await members.setMember(clientId, "team_admin", "admin", as("team_owner"));
    expect(await cliJson(databaseUrl, ["apps", "members", "remove", clientId, "team_admin"])).toEqual({
      client_id: clientId,
      handle: "team_admin",
      removed: true,
      roll_secrets: true,
      advice: `@team_admin could see this app's client secrets: roll them (platform apps secrets roll ${clientId}).`,
    });
  });

  it("CLI: apps members list|add|remove and apps transfer, with --json", async () => {
    const clientId = await newApiApp("Team CLI");
    expect(await cliJson(databaseUrl, ["apps", "members", "add", clientId, "team_viewer"])).toEqual({
      client_id: clientId,
      handle: "team_viewer",
      role: "viewer",
      added: true,
    });
    await cliJson(databaseUrl, ["apps", "members", "add", clientId, "team_admin", "--role", "admin"]);
    expect(await cliJson(databaseUrl, ["apps", "members", "list", clientId])).toEqual([
      { handle: "team_owner", role: "owner", added_at: null },
      { handle: "team_viewer", role: "viewer", added_at: expect.any(Number) },
      { handle: "team_admin", role: "admin", added_at: expect.any(Number) },
    ]);
    const bad = await runCli(databaseUrl, ["apps", "members", "add", clientId, "team_viewer", "--role", "owner", "--json"]);
    expect(bad.code).toBe(2);
    expect(await cliJson(databaseUrl, ["apps", "members", "remove", clientId, "team_viewer"])).toEqual({
      client_id: clientId,
      handle: "team_viewer",
      removed: true,
    });
    expect(await cliJson(databaseUrl, ["apps", "transfer", clientId, "team_admin"])).toEqual({
      client_id: clientId,
      transfer: "awaiting_acceptance",
      to: "team_admin",
    });
    // The operator who obtained consent elsewhere: accepted at once; an approved app then waits for review.
    expect(await cliJson(databaseUrl, ["apps", "transfer", clientId, "team_admin", "--accepted"])).toEqual({
      client_id: clientId,
      transfer: "awaiting_review",
      to: "team_admin",
    });
    expect(await cliJson(databaseUrl, ["apps", "show", clientId])).toMatchObject({ owner: "team_owner" });
    await cliJson(databaseUrl, ["apps", "changes", "approve", clientId]);
    expect(await cliJson(databaseUrl, ["apps", "show", clientId])).toMatchObject({ owner: "team_admin" });
  });
});
