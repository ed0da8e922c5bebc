import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { verifyClientSecret } from "../../lib/crypto/secrets";
import { query } from "../helpers/db";
import { newDatabase, pointAppAt } from "../helpers/server";

/**
 * The application lifecycle through the services the portal, admin area and CLI share: review
 * transitions, the reveal-once secret, rotation (add, retire, roll), permission checks and their
 * audit trail.
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
  return { kind: "user", id: user.id, handle: user.handle, role: user.role, ip: "203.0.113.7" };
}

const apiInput = {
  name: "Stats dashboard",
  description: "",
  type: "api" as const,
  scopes: ["svc:chat.read" as const],
  redirectUris: [],
  postLogoutRedirectUris: [],
};

/** The stored hashes of the app's active secrets, oldest first. */
async function storedSecretHashes(clientId: string): Promise<string[]> {
  const rows = await query<{ hash: string }>(
    databaseUrl,
    `SELECT s.hash FROM "ClientSecret" s JOIN "Application" a ON a.id = s."applicationId" WHERE a."clientId" = $1 ORDER BY s."createdAt", s.id`,
    [clientId],
  );
  return rows.map((r) => r.hash);
}

async function storedSecretHash(clientId: string): Promise<string | null> {
  const hashes = await storedSecretHashes(clientId);
  return hashes.length === 1 ? hashes[0]! : null;
}

async function auditRows(clientId: string) {
  return query<{ action: string; outcome: string; actorHandle: string; ip: string | null }>(
    databaseUrl,
    `SELECT action, outcome, "actorHandle", ip FROM "AuditLog" WHERE "targetId" = $1 ORDER BY id`,
    [clientId],
  );
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

describe("create", () => {
  it("creates a pending app with a typed, random client id and audits it", async () => {
    const app = await apps.createApp(apiInput, { id: alice.id }, alice);
    expect(app.clientId).toMatch(/^api_[0-9A-Za-z]{20}$/);
    expect(app).toMatchObject({ status: "pending", type: "api", hasSecret: false, owner: { handle: "alice" } });
    const login = await apps.createApp(
      { ...apiInput, type: "login", redirectUris: ["https://app.example/cb"], postLogoutRedirectUris: [] },
      { id: alice.id },
      alice,
    );
    expect(login.clientId).toMatch(/^app_[0-9A-Za-z]{20}$/);
    expect(await auditRows(app.clientId)).toEqual([{ action: "app.create", outcome: "ok", actorHandle: "alice", ip: "203.0.113.7" }]);
  });

  it("refuses redirect URIs on an API client and a login client without one", async () => {
    await expect(
      apps.createApp({ ...apiInput, redirectUris: ["https://x.example/cb"] }, { id: alice.id }, alice),
    ).rejects.toMatchObject({ code: "invalid_request" });
    await expect(apps.createApp({ ...apiInput, type: "login" }, { id: alice.id }, alice)).rejects.toMatchObject({
      code: "invalid_request",
    });
  });

  it("refuses user-only scopes for an API client on create and on update (the CLI's and the portal's rule)", async () => {
    const message = "An API client cannot use svc:stats.read: it needs a signed-in person (login clients only)";
    await expect(
      apps.createApp({ ...apiInput, scopes: ["svc:chat.read", "svc:stats.read"] }, { id: alice.id }, alice),
    ).rejects.toMatchObject({ code: "invalid_request", message, fields: { scopes: message } });
    const app = await apps.createApp(apiInput, { id: alice.id }, alice);
    await expect(apps.updateApp(app.clientId, { scopes: ["svc:chat.read", "svc:stats.read"] }, alice)).rejects.toMatchObject({
      code: "invalid_request",
      fields: { scopes: message },
    });
    expect((await apps.updateApp(app.clientId, { scopes: ["svc:directory.read"] }, alice)).scopes).toEqual(["svc:directory.read"]);
  });

  it("does not let a user register an app for someone else", async () => {
    await expect(apps.createApp(apiInput, { id: bob.id }, alice)).rejects.toMatchObject({ code: "forbidden" });
  });
});

describe("review", () => {
  it("denies a non-admin approval, audits the attempt and leaves the app pending", async () => {
    const app = await apps.createApp(apiInput, { id: alice.id }, alice);
    await expect(apps.approveApp(app.clientId, alice)).rejects.toMatchObject({ code: "forbidden", status: 403 });
    await expect(apps.rejectApp(app.clientId, "no", bob)).rejects.toMatchObject({ code: "forbidden" });
    expect((await apps.getAppForViewer(app.clientId, alice)).status).toBe("pending");
    const rows = await auditRows(app.clientId);
    expect(rows.filter((r) => r.outcome === "denied").map((r) => [r.action, r.actorHandle])).toEqual([
      ["app.approve", "alice"],
      ["app.reject", "bob"],
    ]);
  });

  it("moves through reject, approve, suspend and reinstate, keeping the reason only while it applies", async () => {
    const app = await apps.createApp(apiInput, { id: alice.id }, alice);
    const rejected = await apps.rejectApp(app.clientId, "Describe what the app does", admin);
    expect(rejected).toMatchObject({ status: "rejected", statusReason: "Describe what the app does" });
    expect(rejected.reviewedAt).toBeInstanceOf(Date);
    await expect(apps.suspendApp(app.clientId, "x", admin)).rejects.toMatchObject({ code: "conflict" });
    expect(await apps.approveApp(app.clientId, admin)).toMatchObject({ status: "approved", statusReason: null });
    await expect(apps.approveApp(app.clientId, admin)).rejects.toMatchObject({ code: "conflict" });
    await expect(apps.rejectApp(app.clientId, "late", admin)).rejects.toMatchObject({ code: "conflict" });
    expect(await apps.suspendApp(app.clientId, "Abuse report", admin)).toMatchObject({
      status: "suspended",
      statusReason: "Abuse report",
    });
    expect(await apps.reinstateApp(app.clientId, admin)).toMatchObject({ status: "approved", statusReason: null });
    const actions = (await auditRows(app.clientId)).map((r) => `${r.action}:${r.outcome}`);
    expect(actions).toEqual(["app.create:ok", "app.reject:ok", "app.approve:ok", "app.suspend:ok", "app.reinstate:ok"]);
  });

  it("lists the pending queue oldest first with a working cursor", async () => {
    const first = await apps.listApps({ status: "pending", limit: 1 });
    expect(first.apps).toHaveLength(1);
    expect(first.nextCursor).not.toBeNull();
    const second = await apps.listApps({ status: "pending", limit: 1, cursor: first.nextCursor! });
    expect(second.apps[0]!.createdAt.getTime()).toBeGreaterThanOrEqual(first.apps[0]!.createdAt.getTime());
    expect(second.apps[0]!.clientId).not.toBe(first.apps[0]!.clientId);
    await expect(apps.listApps({ cursor: "garbage!" })).rejects.toMatchObject({ code: "invalid_request" });
  });
});

describe("viewing", () => {
  it("shows an app to its owner and admins only; others get not_found and an audit entry", async () => {
    const app = await apps.createApp(apiInput, { id: alice.id }, alice);
    await expect(apps.getAppForViewer(app.clientId, alice)).resolves.toMatchObject({ clientId: app.clientId });
    await expect(apps.getAppForViewer(app.clientId, admin)).resolves.toMatchObject({ clientId: app.clientId });
    await expect(apps.getAppForViewer(app.clientId, bob)).rejects.toMatchObject({ code: "not_found" });
    await expect(apps.getAppForViewer("api_doesnotexist", alice)).rejects.toMatchObject({ code: "not_found" });
    expect(await auditRows(app.clientId)).toContainEqual(expect.objectContaining({ action: "app.view", outcome: "denied", actorHandle: "bob" }));
  });
});

describe("secrets", () => {
  it("reveals an approved API client's secret exactly once, storing only its hash", async () => {
    const app = await apps.createApp(apiInput, { id: alice.id }, alice);
    expect(await secrets.revealSecretOnce(app.clientId, alice)).toBeNull(); // pending: nothing to reveal
    await apps.approveApp(app.clientId, admin);
    expect(await secrets.revealSecretOnce(app.clientId, admin)).toBeNull(); // an admin's view does not consume it
    const revealed = await secrets.revealSecretOnce(app.clientId, alice);
    expect(revealed?.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(revealed?.secretId).toMatch(/^sec_[A-Za-z0-9]{16}$/);
    const hash = await storedSecretHash(app.clientId);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain(revealed!.clientSecret);
    expect(verifyClientSecret(revealed!.clientSecret, hash!)).toBe(true);
    expect(await secrets.revealSecretOnce(app.clientId, alice)).toBeNull(); // a reload never shows it again
    const view = await apps.getAppForViewer(app.clientId, alice);
    expect(view).toMatchObject({ hasSecret: true, secrets: [{ id: revealed!.secretId, hint: revealed!.clientSecret.slice(-4), lastUsedAt: null }] });
    expect(JSON.stringify(view)).not.toContain(revealed!.clientSecret);
  });

  it("gives one secret to two concurrent first views", async () => {
    const app = await apps.createApp(apiInput, { id: alice.id }, alice);
    await apps.approveApp(app.clientId, admin);
    const results = await Promise.all([1, 2, 3, 4].map(() => secrets.revealSecretOnce(app.clientId, alice)));
    const shown = results.filter((r) => r !== null);
    expect(shown).toHaveLength(1);
    expect(verifyClientSecret(shown[0]!.clientSecret, (await storedSecretHash(app.clientId))!)).toBe(true);
  });

  it("never reveals a secret for a login client", async () => {
    const app = await apps.createApp(
      { ...apiInput, type: "login", redirectUris: ["http://localhost:5173/cb"], postLogoutRedirectUris: [] },
      { id: alice.id },
      alice,
    );
    await apps.approveApp(app.clientId, admin);
    expect(await secrets.revealSecretOnce(app.clientId, alice)).toBeNull();
    await expect(secrets.rollSecret(app.clientId, alice)).rejects.toMatchObject({ code: "invalid_request" });
    await expect(secrets.addSecret(app.clientId, alice)).rejects.toMatchObject({ code: "invalid_request" });
  });

  it("adds a second secret (both work), refuses a third, retires one but never the last", async () => {
    const app = await apps.createApp(apiInput, { id: alice.id }, alice);
    await apps.approveApp(app.clientId, admin);
    const first = (await secrets.revealSecretOnce(app.clientId, alice))!;
    await expect(secrets.addSecret(app.clientId, admin)).rejects.toMatchObject({ code: "forbidden" });
    await expect(secrets.addSecret(app.clientId, bob)).rejects.toMatchObject({ code: "not_found" });
    const second = await secrets.addSecret(app.clientId, alice);
    expect(second.secretId).not.toBe(first.secretId);
    const hashes = await storedSecretHashes(app.clientId);
    expect(hashes).toHaveLength(2);
    expect((await secrets.verifyClientCredentials(app.clientId, first.clientSecret)) !== null).toBe(true);
    expect((await secrets.verifyClientCredentials(app.clientId, second.clientSecret)) !== null).toBe(true);
    expect(await secrets.verifyClientCredentials(app.clientId, "not-the-secret")).toBeNull();

    // Two at once is the limit; concurrent adds cannot get past it either.
    const third = await Promise.allSettled([secrets.addSecret(app.clientId, alice), secrets.addSecret(app.clientId, alice)]);
    expect(third.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    await expect(secrets.addSecret(app.clientId, alice)).rejects.toMatchObject({ code: "conflict", message: expect.stringMatching(/Retire one/) });

    const listed = await secrets.listSecrets(app.clientId, admin); // admins see hints, never values
    expect(listed.map((s) => s.id)).toEqual([first.secretId, second.secretId]);
    expect(JSON.stringify(listed)).not.toContain(first.clientSecret);

    await expect(secrets.retireSecret(app.clientId, first.secretId, admin)).rejects.toMatchObject({ code: "forbidden" });
    await secrets.retireSecret(app.clientId, first.secretId, alice);
    expect(await secrets.verifyClientCredentials(app.clientId, first.clientSecret)).toBeNull();
    expect(await secrets.verifyClientCredentials(app.clientId, second.clientSecret)).not.toBeNull();
    await expect(secrets.retireSecret(app.clientId, second.secretId, alice)).rejects.toMatchObject({ code: "conflict" });
    await expect(secrets.retireSecret(app.clientId, "sec_unknown", alice)).rejects.toMatchObject({ code: "not_found" });
    // A plain retire voids no token.
    const [row] = await query<{ tokensRevokedAt: Date | null }>(databaseUrl, `SELECT "tokensRevokedAt" FROM "Application" WHERE "clientId" = $1`, [app.clientId]);
    expect(row!.tokensRevokedAt).toBeNull();
    const actions = (await auditRows(app.clientId)).map((r) => `${r.action}:${r.outcome}`);
    expect(actions).toEqual(expect.arrayContaining(["app.secret.add:ok", "app.secret.add:denied", "app.secret.retire:ok", "app.secret.retire:denied"]));
  });

  it("rolls: one new secret, every other retired, grants revoked and the app's tokens voided", async () => {
    const app = await apps.createApp(apiInput, { id: alice.id }, alice);
    await apps.approveApp(app.clientId, admin);
    const first = (await secrets.revealSecretOnce(app.clientId, alice))!;
    const extra = await secrets.addSecret(app.clientId, alice);
    await query(
      databaseUrl,
      `INSERT INTO "OidcModel" (kind, id, payload, "clientId") VALUES ('Grant', 'g-' || $1, '{}', $1)`,
      [app.clientId],
    );
    await expect(secrets.rollSecret(app.clientId, admin)).rejects.toMatchObject({ code: "forbidden" });
    await expect(secrets.rollSecret(app.clientId, bob)).rejects.toMatchObject({ code: "not_found" });
    const rolled = await secrets.rollSecret(app.clientId, alice);
    const hash = (await storedSecretHash(app.clientId))!;
    expect(verifyClientSecret(rolled.clientSecret, hash)).toBe(true);
    expect(await secrets.verifyClientCredentials(app.clientId, first.clientSecret)).toBeNull();
    expect(await secrets.verifyClientCredentials(app.clientId, extra.clientSecret)).toBeNull();
    expect(await query(databaseUrl, `SELECT 1 FROM "OidcModel" WHERE "clientId" = $1`, [app.clientId])).toHaveLength(0);
    const [row] = await query<{ tokensRevokedAt: Date | null }>(databaseUrl, `SELECT "tokensRevokedAt" FROM "Application" WHERE "clientId" = $1`, [app.clientId]);
    expect(row!.tokensRevokedAt).not.toBeNull();
    expect(await secrets.revealSecretOnce(app.clientId, alice)).toBeNull();
  });

  it("no audit entry or log line ever holds a secret", async () => {
    // Everything the process writes (lib/logger.ts writes JSON lines to stdout and stderr) while
    // secrets are minted, used, refused, retired and rolled, at the most talkative level.
    const { logger } = await import("../../lib/logger");
    const captured: string[] = [];
    const spies = [process.stdout, process.stderr].map((stream) =>
      vi.spyOn(stream, "write").mockImplementation((chunk: string | Uint8Array) => {
        captured.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
        return true;
      }),
    );
    const shown: string[] = [];
    let clientId = "";
    const level = process.env.LOG_LEVEL;
    process.env.LOG_LEVEL = "debug";
    (await import("../../lib/env")).resetEnv();
    try {
      logger.debug("capture check"); // the capture itself works
      const app = await apps.createApp({ ...apiInput, name: "Leak check" }, { id: alice.id }, alice);
      clientId = app.clientId;
      await apps.approveApp(clientId, admin);
      const first = (await secrets.revealSecretOnce(clientId, alice))!;
      const second = await secrets.addSecret(clientId, alice);
      shown.push(first.clientSecret, second.clientSecret);
      expect(await secrets.verifyClientCredentials(clientId, first.clientSecret)).not.toBeNull();
      expect(await secrets.verifyClientCredentials(clientId, `${second.clientSecret}x`)).toBeNull();
      await expect(secrets.addSecret(clientId, alice)).rejects.toMatchObject({ code: "conflict" });
      await expect(secrets.rollSecret(clientId, admin)).rejects.toMatchObject({ code: "forbidden" });
      await secrets.retireSecret(clientId, first.secretId, alice);
      const rolled = await secrets.rollSecret(clientId, alice);
      shown.push(rolled.clientSecret);
      await apps.suspendApp(clientId, "Leak check done", admin);
    } finally {
      for (const spy of spies) spy.mockRestore();
      if (level === undefined) delete process.env.LOG_LEVEL;
      else process.env.LOG_LEVEL = level;
      (await import("../../lib/env")).resetEnv();
    }
    expect(captured.join("")).toContain("capture check");
    expect(shown).toHaveLength(3);
    const output = captured.join("");
    for (const secret of shown) {
      expect(output.includes(secret), "a client secret in the process's log output").toBe(false);
      // Nor a tell-tale part of one (anything past the four-character hint the views show).
      expect(output.includes(secret.slice(0, 16)), "part of a client secret in the log output").toBe(false);
    }

    // The audit trail of those operations, whole rows as text, holds no secret either.
    const rows = await query<{ action: string; row: string }>(databaseUrl, `SELECT action, l::text AS row FROM "AuditLog" l WHERE "targetId" = $1`, [clientId]);
    expect(rows.map((r) => r.action)).toEqual(
      expect.arrayContaining(["app.secret.reveal", "app.secret.add", "app.secret.retire", "app.secret.roll", "app.suspend"]),
    );
    for (const row of rows) for (const secret of shown) expect(row.row, row.action).not.toContain(secret);
  });
});

describe("delete", () => {
  it("deletes the app with its grants and consents; only the owner or an admin may", async () => {
    const app = await apps.createApp(
      { ...apiInput, type: "login", redirectUris: ["https://app.example/cb"], postLogoutRedirectUris: [] },
      { id: alice.id },
      alice,
    );
    await query(databaseUrl, `INSERT INTO "OidcModel" (kind, id, payload, "clientId") VALUES ('RefreshToken', 'r-' || $1, '{}', $1)`, [app.clientId]);
    await query(databaseUrl, `INSERT INTO "Consent" ("userId", "clientId", scopes, "updatedAt") VALUES ($1, $2, '{openid}', now())`, [bob.id, app.clientId]);
    await expect(apps.deleteApp(app.clientId, bob)).rejects.toMatchObject({ code: "not_found" });
    await apps.deleteApp(app.clientId, alice);
    await expect(apps.getAppForViewer(app.clientId, alice)).rejects.toMatchObject({ code: "not_found" });
    expect(await query(databaseUrl, `SELECT 1 FROM "OidcModel" WHERE "clientId" = $1`, [app.clientId])).toHaveLength(0);
    expect(await query(databaseUrl, `SELECT 1 FROM "Consent" WHERE "clientId" = $1`, [app.clientId])).toHaveLength(0);
  });
});

describe("portal client", () => {
  it("is created once, approved and first-party, and follows APP_URL changes", async () => {
    const a = await apps.ensurePortalClient({ redirectUri: "http://localhost:3000/api/auth/callback/platform", postLogoutRedirectUri: "http://localhost:3000/" });
    const b = await apps.ensurePortalClient({ redirectUri: "http://localhost:3000/api/auth/callback/platform", postLogoutRedirectUri: "http://localhost:3000/" });
    expect(a).toMatchObject({ clientId: apps.PORTAL_CLIENT_ID, type: "login", status: "approved", firstParty: true });
    expect(b.updatedAt.getTime()).toBe(a.updatedAt.getTime());
    const moved = await apps.ensurePortalClient({ redirectUri: "https://dev.example/api/auth/callback/platform", postLogoutRedirectUri: "https://dev.example/" });
    expect(moved.redirectUris).toEqual(["https://dev.example/api/auth/callback/platform"]);
    await expect(apps.suspendApp(apps.PORTAL_CLIENT_ID, "x", admin)).rejects.toMatchObject({ code: "forbidden" });
    await expect(apps.deleteApp(apps.PORTAL_CLIENT_ID, admin)).rejects.toMatchObject({ code: "forbidden" });
    const owner = await users.findUserByHandle(users.SYSTEM_USER_HANDLE);
    expect(owner).toMatchObject({ directoryVisible: false });
  });
});

describe("audit log", () => {
  it("pages newest first by id", async () => {
    const first = await audit.listAuditLog({ limit: 3 });
    expect(first.entries).toHaveLength(3);
    const second = await audit.listAuditLog({ limit: 3, cursor: first.nextCursor! });
    expect(BigInt(second.entries[0]!.id)).toBeLessThan(BigInt(first.entries[2]!.id));
  });
});
