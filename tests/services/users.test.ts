import { CURRENT_HASH_PATTERN } from "../../lib/crypto/passwords";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../helpers/db";
import { newDatabase, pointAppAt } from "../helpers/server";

let databaseUrl: string;
let users: typeof import("../../lib/services/users");
let closeDb: () => Promise<void>;
const cli = { kind: "system", name: "cli" } as const;

beforeAll(async () => {
  databaseUrl = await newDatabase({ seed: true });
  closeDb = await pointAppAt(databaseUrl);
  users = await import("../../lib/services/users");
});

afterAll(async () => {
  await closeDb?.();
});

describe("createUser", () => {
  it("stores a lower-case handle and an Argon2id hash, never the password", async () => {
    const user = await users.createUser({ handle: "Newcomer_1", password: "correct horse battery", admin: false }, cli);
    expect(user).toMatchObject({ handle: "newcomer_1", role: "user", disabled: false, muted: false });
    expect(user).not.toHaveProperty("passwordHash");
    const [row] = await query<{ passwordHash: string }>(databaseUrl, `SELECT "passwordHash" FROM "User" WHERE handle = 'newcomer_1'`);
    expect(row!.passwordHash).toMatch(CURRENT_HASH_PATTERN);
    expect(row!.passwordHash).not.toContain("correct horse");
  });

  it("refuses a taken handle with conflict and a malformed one with invalid_request", async () => {
    await expect(users.createUser({ handle: "alice", password: "whatever-123", admin: false }, cli)).rejects.toMatchObject({
      code: "conflict",
      status: 409,
    });
    await expect(users.createUser({ handle: "no spaces", password: "whatever-123", admin: false }, cli)).rejects.toMatchObject({
      code: "invalid_request",
    });
    await expect(users.createUser({ handle: "platform", password: "whatever-123", admin: false }, cli)).rejects.toMatchObject({
      code: "conflict",
    });
  });
});

describe("verifyUserCredentials", () => {
  it("accepts a demo account's password, case-insensitive handle", async () => {
    const result = await users.verifyUserCredentials("Alice", "alice-demo-pass");
    expect(result).toMatchObject({ ok: true, user: { handle: "alice" } });
  });

  it("gives the same answer for a wrong password, an unknown user and a password-less user", async () => {
    const [nobody] = await query<{ handle: string }>(databaseUrl, `SELECT handle FROM "User" WHERE "passwordHash" IS NULL LIMIT 1`);
    for (const [handle, password] of [["alice", "nope"], ["ghost_user", "x"], [nobody!.handle, ""]] as const) {
      expect(await users.verifyUserCredentials(handle, password)).toEqual({ ok: false, reason: "invalid_credentials" });
    }
  });

  it("reports disabled only after the right password", async () => {
    expect(await users.verifyUserCredentials("dave", "dave-demo-pass")).toEqual({ ok: false, reason: "disabled" });
    expect(await users.verifyUserCredentials("dave", "wrong")).toEqual({ ok: false, reason: "invalid_credentials" });
  });
});

describe("admin flags", () => {
  it("lets admins and the operator disable, enable, mute and unmute, with an audit trail", async () => {
    const admin = await users.getUserByHandle("admin");
    const actor = { kind: "user" as const, id: admin.id, handle: admin.handle, role: "admin" as const, ip: "198.51.100.1" };
    expect(await users.setUserMuted("carol", true, actor)).toMatchObject({ muted: true });
    expect(await users.setUserMuted("carol", false, cli)).toMatchObject({ muted: false });
    expect(await users.setUserDisabled("carol", true, cli)).toMatchObject({ disabled: true });
    expect(await users.setUserDisabled("carol", false, actor)).toMatchObject({ disabled: false });
    const rows = await query<{ action: string; actorHandle: string; ip: string | null }>(
      databaseUrl,
      `SELECT action, "actorHandle", ip FROM "AuditLog" WHERE "targetType" = 'user' AND "targetId" = 'carol' ORDER BY id`,
    );
    expect(rows).toEqual([
      { action: "user.mute", actorHandle: "admin", ip: "198.51.100.1" },
      { action: "user.unmute", actorHandle: "system:cli", ip: null },
      { action: "user.disable", actorHandle: "system:cli", ip: null },
      { action: "user.enable", actorHandle: "admin", ip: "198.51.100.1" },
    ]);
  });

  it("denies a non-admin (audited) and an admin disabling themselves", async () => {
    const bob = await users.getUserByHandle("bob");
    const admin = await users.getUserByHandle("admin");
    await expect(
      users.setUserMuted("alice", true, { kind: "user", id: bob.id, handle: "bob", role: "user" }),
    ).rejects.toMatchObject({ code: "forbidden" });
    await expect(
      users.setUserDisabled("admin", true, { kind: "user", id: admin.id, handle: "admin", role: "admin" }),
    ).rejects.toMatchObject({ code: "forbidden" });
    const denied = await query(databaseUrl, `SELECT 1 FROM "AuditLog" WHERE outcome = 'denied' AND "targetId" IN ('alice', 'admin')`);
    expect(denied).toHaveLength(2);
    expect(await users.findUserByHandle("alice")).toMatchObject({ muted: false });
  });

  it("answers user_not_found for an unknown handle", async () => {
    await expect(users.setUserMuted("ghost_user", true, cli)).rejects.toMatchObject({ code: "user_not_found" });
  });
});

describe("listUsers", () => {
  it("pages in id order and searches handles and display names", async () => {
    const first = await users.listUsers({ limit: 10 });
    expect(first.users.map((u) => u.handle).slice(0, 3)).toEqual(["alice", "bob", "carol"]);
    const second = await users.listUsers({ limit: 10, cursor: first.nextCursor! });
    expect(second.users[0]!.id).toBeGreaterThan(first.users[9]!.id);
    expect((await users.listUsers({ search: "Lindqvist" })).users.map((u) => u.handle)).toContain("carol");
    expect((await users.listUsers({ search: "@BOB" })).users.map((u) => u.handle)).toContain("bob");
    await expect(users.listUsers({ cursor: "x" })).rejects.toMatchObject({ code: "invalid_request" });
  });
});

describe("ensureSystemUser", () => {
  it("is safe when instances start at once: concurrent calls create one row and all return it", async () => {
    // This file's own database: the platform account (and the portal client it owns) can go.
    for (let round = 0; round < 10; round++) {
      // An owner cannot be deleted while it owns apps (teams): its apps go first.
      await query(databaseUrl, `DELETE FROM "Application" WHERE "ownerId" IN (SELECT id FROM "User" WHERE handle = 'platform')`);
      await query(databaseUrl, `DELETE FROM "User" WHERE handle = 'platform'`);
      const results = await Promise.all(Array.from({ length: 6 }, () => users.ensureSystemUser()));
      expect(new Set(results.map((u) => u.id)).size).toBe(1);
      expect(results[0]).toMatchObject({ handle: "platform" });
      const rows = await query(databaseUrl, `SELECT id FROM "User" WHERE handle = 'platform'`);
      expect(rows).toHaveLength(1);
    }
  });
});
