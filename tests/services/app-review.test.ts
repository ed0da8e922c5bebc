import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../helpers/db";
import { newDatabase, pointAppAt } from "../helpers/server";

/**
 * The admin area's review work through the services: resubmission of a rejected app,
 * the queue's search and filters, bulk approval, undoing an approval (and what it takes back), the
 * reason of a disabled account, and the audit log's filters, names and keyset pages.
 */
let databaseUrl: string;
let apps: typeof import("../../lib/services/apps") & typeof import("../../lib/services/app-review");
let secrets: typeof import("../../lib/services/app-secrets");
let users: typeof import("../../lib/services/users");
let audit: typeof import("../../lib/services/audit");
let closeDb: () => Promise<void>;

type UserActor = { kind: "user"; id: number; handle: string; role: "user" | "admin"; ip?: string };
let alice: UserActor;
let bob: UserActor;
let admin: UserActor;

async function actorFor(handle: string): Promise<UserActor> {
  const user = await users.getUserByHandle(handle);
  return { kind: "user", id: user.id, handle: user.handle, role: user.role };
}

const PREFIX = `Review ${Date.now().toString(36)}`;
const apiInput = (name: string, description = "") => ({
  name: `${PREFIX} ${name}`,
  description,
  type: "api" as const,
  scopes: ["svc:chat.read" as const],
  redirectUris: [],
  postLogoutRedirectUris: [],
});

async function auditActions(clientId: string): Promise<string[]> {
  const rows = await query<{ action: string; outcome: string }>(
    databaseUrl,
    `SELECT action, outcome FROM "AuditLog" WHERE "targetId" = $1 ORDER BY id`,
    [clientId],
  );
  return rows.map((r) => `${r.action}:${r.outcome}`);
}

beforeAll(async () => {
  databaseUrl = await newDatabase({ seed: true });
  closeDb = await pointAppAt(databaseUrl);
  apps = { ...(await import("../../lib/services/apps")), ...(await import("../../lib/services/app-review")) };
  secrets = await import("../../lib/services/app-secrets");
  users = await import("../../lib/services/users");
  audit = await import("../../lib/services/audit");
  alice = await actorFor("alice");
  bob = await actorFor("bob");
  admin = await actorFor("admin");
});

afterAll(async () => {
  await closeDb?.();
});

describe("resubmission", () => {
  it("sends an edited rejected app back to the queue, marked, with the reason it answers", async () => {
    const app = await apps.createApp(apiInput("Vague"), { id: alice.id }, alice);
    await apps.rejectApp(app.clientId, "Say what the app does.", admin);

    // A plain edit keeps the admin's decision.
    expect(await apps.updateApp(app.clientId, { description: "still vague" }, alice)).toMatchObject({ status: "rejected" });

    const resubmitted = await apps.resubmitApp(app.clientId, { description: "Posts a daily digest of the chat." }, alice);
    expect(resubmitted).toMatchObject({
      status: "pending",
      statusReason: null,
      description: "Posts a daily digest of the chat.",
      previousRejectionReason: "Say what the app does.",
    });
    expect(resubmitted.resubmittedAt).toBeInstanceOf(Date);
    const queue = await apps.listApps({ status: "pending", resubmitted: true, search: PREFIX });
    expect(queue.apps.map((a) => a.clientId)).toEqual([app.clientId]);

    // A second resubmission while it waits is refused; a review clears the mark.
    await expect(apps.resubmitApp(app.clientId, {}, alice)).rejects.toMatchObject({ code: "conflict" });
    expect(await apps.approveApp(app.clientId, admin)).toMatchObject({ resubmittedAt: null, previousRejectionReason: null });
    expect(await auditActions(app.clientId)).toEqual([
      "app.create:ok",
      "app.reject:ok",
      "app.update:ok",
      "app.resubmit:ok",
      "app.approve:ok",
    ]);
  });

  it("is the owner's: another developer and an admin are refused (audited), a pending app cannot be resubmitted", async () => {
    const app = await apps.createApp(apiInput("Owned"), { id: alice.id }, alice);
    await expect(apps.resubmitApp(app.clientId, {}, alice)).rejects.toMatchObject({ code: "conflict" });
    await apps.rejectApp(app.clientId, "No.", admin);
    await expect(apps.resubmitApp(app.clientId, {}, bob)).rejects.toMatchObject({ code: "not_found" });
    await expect(apps.resubmitApp(app.clientId, {}, admin)).rejects.toMatchObject({ code: "forbidden" });
    expect((await apps.getAppForViewer(app.clientId, alice)).status).toBe("rejected");
    expect(await auditActions(app.clientId)).toEqual(
      expect.arrayContaining(["app.resubmit:denied", "app.resubmit:denied"]),
    );
  });
});

describe("the queue", () => {
  it("searches name, client id, description and owner handle, and filters by type and status", async () => {
    const tagged = await apps.createApp(apiInput("Searchable", "see https://very.example/needle-xyz"), { id: bob.id }, bob);
    const login = await apps.createApp(
      { ...apiInput("Login one"), type: "login", scopes: [], redirectUris: ["https://l.example/cb"] },
      { id: bob.id },
      bob,
    );
    const ids = async (filters: Parameters<typeof apps.listApps>[0]) =>
      (await apps.listApps({ ...filters, limit: 200 })).apps.map((a) => a.clientId);
    expect(await ids({ search: "NEEDLE-xyz" })).toEqual([tagged.clientId]);
    expect(await ids({ search: tagged.clientId.slice(4, 16) })).toEqual([tagged.clientId]);
    expect(await ids({ search: `${PREFIX} searchable` })).toEqual([tagged.clientId]);
    expect(await ids({ search: "@BOB" })).toEqual(expect.arrayContaining([tagged.clientId, login.clientId]));
    expect(await ids({ search: PREFIX, type: "login" })).toEqual([login.clientId]);
    expect(await ids({ search: PREFIX, type: "api", status: "pending" })).toContain(tagged.clientId);
    expect(await ids({ search: PREFIX, status: "approved" })).not.toContain(tagged.clientId);
    const counts = await apps.countApps({ search: `${PREFIX} Searchable` });
    expect(counts).toMatchObject({ total: 1, byStatus: { pending: 1, approved: 0 } });
  });

  it("approves in bulk, each app on its own: one that is not pending fails without blocking the rest", async () => {
    const a = await apps.createApp(apiInput("Bulk A"), { id: alice.id }, alice);
    const b = await apps.createApp(apiInput("Bulk B"), { id: alice.id }, alice);
    const c = await apps.createApp(apiInput("Bulk C"), { id: alice.id }, alice);
    await apps.approveApp(b.clientId, admin);
    await expect(apps.approveApps([a.clientId], alice)).rejects.toMatchObject({ code: "forbidden" });
    const result = await apps.approveApps([a.clientId, b.clientId, c.clientId], admin);
    expect(result.approved.map((x) => x.clientId)).toEqual([a.clientId, c.clientId]);
    expect(result.failed).toEqual([{ clientId: b.clientId, message: expect.stringContaining("already approved") }]);
  });
});

describe("undoing an approval", () => {
  it("returns the app to pending and takes back the secret revealed since, the grants and the tokens", async () => {
    const app = await apps.createApp(apiInput("Undo me"), { id: alice.id }, alice);
    await apps.approveApp(app.clientId, admin);
    const revealed = await secrets.revealSecretOnce(app.clientId, alice);
    expect(revealed).not.toBeNull();
    await query(databaseUrl, `INSERT INTO "OidcModel" (kind, id, payload, "clientId") VALUES ('Grant', $1, '{}', $2)`, [
      `undo-${app.clientId}`,
      app.clientId,
    ]);

    await expect(apps.undoApproval(app.clientId, alice)).rejects.toMatchObject({ code: "forbidden" });
    const undone = await apps.undoApproval(app.clientId, admin);
    expect(undone).toMatchObject({ status: "pending", hasSecret: false, secrets: [] });
    const [row] = await query<{ tokensRevokedAt: Date | null }>(
      databaseUrl,
      `SELECT "tokensRevokedAt" FROM "Application" WHERE "clientId" = $1`,
      [app.clientId],
    );
    expect(row!.tokensRevokedAt).toBeInstanceOf(Date);
    expect(await query(databaseUrl, `SELECT 1 FROM "OidcModel" WHERE "clientId" = $1`, [app.clientId])).toEqual([]);
    expect(await query(databaseUrl, `SELECT 1 FROM "ClientSecret" WHERE hash IS NOT NULL AND id = $1`, [revealed!.secretId])).toEqual([]);
    const entries = await audit.listAuditLog({ target: app.clientId, action: "app.approve.undo" });
    expect(entries.entries[0]!.detail).toMatchObject({ to: "pending", secretsRemoved: 1, revoked: 1 });

    // Only once: the last change is now the undo, and a pending app has no approval to take back.
    await expect(apps.undoApproval(app.clientId, admin)).rejects.toMatchObject({ code: "conflict" });
    // Approved again later, the owner gets a new one-time secret.
    await apps.approveApp(app.clientId, admin);
    expect(await secrets.revealSecretOnce(app.clientId, alice)).not.toBeNull();
  });

  it("puts back a resubmitted app's mark and old reason, and a suspended app's reason and secrets", async () => {
    const app = await apps.createApp(apiInput("Resubmitted undo"), { id: alice.id }, alice);
    await apps.rejectApp(app.clientId, "Too vague.", admin);
    await apps.resubmitApp(app.clientId, { description: "Clearer now." }, alice);
    await apps.approveApp(app.clientId, admin);
    const back = await apps.undoApproval(app.clientId, admin);
    expect(back).toMatchObject({ status: "pending", previousRejectionReason: "Too vague." });
    expect(back.resubmittedAt).toBeInstanceOf(Date);

    const old = await apps.createApp(apiInput("Suspended undo"), { id: alice.id }, alice);
    await apps.approveApp(old.clientId, admin);
    const kept = (await secrets.revealSecretOnce(old.clientId, alice))!;
    await apps.suspendApp(old.clientId, "Abuse.", admin);
    await apps.approveApp(old.clientId, admin); // the CLI's way to reinstate
    expect(await apps.undoApproval(old.clientId, admin)).toMatchObject({
      status: "suspended",
      statusReason: "Abuse.",
      secrets: [{ id: kept.secretId }],
    });
  });

  it("refuses when the approval is not the app's last change, or is too old", async () => {
    const app = await apps.createApp(apiInput("Suspended since"), { id: alice.id }, alice);
    await apps.approveApp(app.clientId, admin);
    await apps.suspendApp(app.clientId, "Abuse.", admin);
    await apps.reinstateApp(app.clientId, admin);
    await expect(apps.undoApproval(app.clientId, admin)).rejects.toMatchObject({ code: "conflict" });

    const stale = await apps.createApp(apiInput("Stale"), { id: alice.id }, alice);
    await apps.approveApp(stale.clientId, admin);
    await query(
      databaseUrl,
      `UPDATE "AuditLog" SET "createdAt" = "createdAt" - interval '11 minutes' WHERE "targetId" = $1 AND action = 'app.approve'`,
      [stale.clientId],
    );
    await expect(apps.undoApproval(stale.clientId, admin)).rejects.toMatchObject({ code: "conflict" });
    expect((await apps.getAppForViewer(stale.clientId, admin)).status).toBe("approved");
  });
});

describe("disabling a user", () => {
  it("keeps the admin's reason in the audit entry", async () => {
    await users.setUserDisabled("carol", true, admin, "Spam in the global chat.");
    await users.setUserDisabled("carol", false, admin);
    const { entries } = await audit.listAuditLog({ target: "@Carol", action: "user.*", limit: 5 });
    expect(entries.map((e) => [e.action, e.detail.reason])).toEqual(
      expect.arrayContaining([
        ["user.enable", undefined],
        ["user.disable", "Spam in the global chat."],
      ]),
    );
  });
});

describe("the audit log", () => {
  it("names apps and users, filters by actor, action, target and date, and pages by (createdAt, id)", async () => {
    const app = await apps.createApp(apiInput("Audited"), { id: alice.id }, alice);
    await apps.rejectApp(app.clientId, "No.", admin);
    const { entries } = await audit.listAuditLog({ target: app.clientId });
    expect(entries.map((e) => [e.action, e.targetName, e.actorHandle])).toEqual([
      ["app.reject", app.name, "admin"],
      ["app.create", app.name, "alice"],
    ]);
    expect((await audit.listAuditLog({ target: app.clientId, actor: "@admin" })).entries).toHaveLength(1);
    expect((await audit.listAuditLog({ target: app.clientId, action: "app.create" })).entries).toHaveLength(1);
    const future = new Date(Date.now() + 60_000);
    expect((await audit.listAuditLog({ target: app.clientId, from: future })).entries).toEqual([]);
    expect((await audit.listAuditLog({ target: app.clientId, to: future })).entries).toHaveLength(2);

    // Walk the whole log two at a time: every entry exactly once, newest first.
    const all = (await audit.listAuditLog({ limit: 200 })).entries.map((e) => e.id);
    const walked: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await audit.listAuditLog({ limit: 7, cursor });
      walked.push(...page.entries.map((e) => e.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor && walked.length < 400);
    expect(walked.slice(0, all.length)).toEqual(all);
    expect(new Set(walked).size).toBe(walked.length);
    await expect(audit.listAuditLog({ cursor: "nope!" })).rejects.toMatchObject({ code: "invalid_request" });
    expect(await audit.listAuditActions()).toEqual(expect.arrayContaining(["app.create", "app.reject"]));
  });
});

describe("owners hear about decisions (issue 15)", () => {
  async function noticesFor(userId: number, since: number): Promise<string[]> {
    const rows = await query<{ type: string; message: string }>(
      databaseUrl,
      `SELECT type, message FROM "Notification" WHERE "userId" = $1 AND id > $2 ORDER BY id`,
      [userId, since],
    );
    return rows.map((r) => `${r.type}: ${r.message}`);
  }

  it("approval, rejection with its reason, suspension, reinstatement and an undone approval each notify the owner", async () => {
    const [last] = await query<{ max: number | null }>(databaseUrl, `SELECT max(id)::int AS max FROM "Notification"`);
    const since = last?.max ?? 0;
    const rejected = await apps.createApp(apiInput("Notice rejected"), { id: alice.id }, alice);
    await apps.rejectApp(rejected.clientId, "Describe what the bot posts", admin);
    const approved = await apps.createApp(apiInput("Notice approved"), { id: alice.id }, alice);
    await apps.approveApp(approved.clientId, admin);
    await apps.suspendApp(approved.clientId, "Spam reports", admin);
    await apps.reinstateApp(approved.clientId, admin);
    const undone = await apps.createApp(apiInput("Notice undone"), { id: alice.id }, alice);
    await apps.approveApp(undone.clientId, admin);
    await apps.undoApproval(undone.clientId, admin);

    expect(await noticesFor(alice.id, since)).toEqual([
      `app_review: Your app "${PREFIX} Notice rejected" was not approved: Describe what the bot posts. Edit it and resubmit it for review.`,
      `app_review: Your app "${PREFIX} Notice approved" was approved. Its client secret is waiting on the app page.`,
      `app_review: Your app "${PREFIX} Notice approved" was suspended: Spam reports. Its tokens no longer work.`,
      `app_review: Your app "${PREFIX} Notice approved" was reinstated. Tokens issued before the suspension stay void.`,
      `app_review: Your app "${PREFIX} Notice undone" was approved. Its client secret is waiting on the app page.`,
      `app_review: The approval of your app "${PREFIX} Notice undone" was withdrawn: it is back to pending.`,
    ]);
    // The admin who decided hears nothing; nobody else does either.
    expect(await noticesFor(admin.id, since)).toEqual([]);
    expect(await noticesFor(bob.id, since)).toEqual([]);
  });

  it("reach the whole team, each notice linking to the app, and the portal counts and marks them (issue 28)", async () => {
    const notices = await import("../../lib/services/portal-notifications");
    const [last] = await query<{ max: number | null }>(databaseUrl, `SELECT max(id)::int AS max FROM "Notification"`);
    const since = last?.max ?? 0;
    const app = await apps.createApp(apiInput("Team notice"), { id: alice.id }, alice);
    await query(
      databaseUrl,
      `INSERT INTO "AppMember" ("applicationId", "userId", role) SELECT id, $2, 'viewer' FROM "Application" WHERE "clientId" = $1`,
      [app.clientId, bob.id],
    );
    const before = await notices.countUnreadNotices(bob.id);
    await apps.approveApp(app.clientId, admin);
    const message = `app_review: Your app "${PREFIX} Team notice" was approved. Its client secret is waiting on the app page.`;
    expect(await noticesFor(alice.id, since)).toEqual([message]);
    expect(await noticesFor(bob.id, since)).toEqual([message]);
    expect(await notices.countUnreadNotices(bob.id)).toBe(before + 1);
    const [newest] = await notices.listNotices(bob.id);
    expect(newest).toMatchObject({ clientId: app.clientId, read: false, message: message.replace("app_review: ", "") });
    await notices.markNoticesRead(bob.id, newest!.id);
    expect(await notices.countUnreadNotices(bob.id)).toBe(0);
    expect(await notices.countUnreadNotices(alice.id)).toBeGreaterThan(0);
  });
});
