import { generate } from "otplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliJson, runCli } from "../helpers/cli";
import { query } from "../helpers/db";
import { authorize, createTestApp, createTestUser } from "../helpers/oidc";
import { pointAppAt, startServer, type TestServer } from "../helpers/server";

/**
 * Issue 29, part 5 (operators): `users mfa HANDLE` says what second factors a person has;
 * `users mfa reset HANDLE --reason` removes them all, ends the person's sign-in sessions, and is
 * audited and notified.
 */
let server: TestServer;
let closeDb: () => Promise<void>;
const PASSWORD = "correct horse battery";
const REDIRECT = "http://localhost:9/callback";

beforeAll(async () => {
  server = await startServer({ seed: false });
  closeDb = await pointAppAt(server.databaseUrl);
});

afterAll(async () => {
  await closeDb?.();
  await server?.stop();
});

describe("users mfa", () => {
  it("shows the factors, and reset removes them, ends the sign-in sessions, audits and notifies", async () => {
    const user = await createTestUser(server.databaseUrl, { handle: "lostphone", password: PASSWORD });
    expect(await cliJson(server.databaseUrl, ["users", "mfa", "lostphone"])).toEqual({ passkeys: 0, totp: false, recovery_codes_left: 0 });

    const { startTotpEnrolment, confirmTotpEnrolment } = await import("../../lib/services/second-factors");
    const actor = { kind: "user" as const, id: user.id, handle: user.handle, role: "user" as const };
    const { secret } = await startTotpEnrolment(actor, { password: PASSWORD });
    await confirmTotpEnrolment(actor, await generate({ secret }));
    expect(await cliJson(server.databaseUrl, ["users", "mfa", "lostphone"])).toEqual({ passkeys: 0, totp: true, recovery_codes_left: 10 });

    // A sign-in session at the sign-in service (password and code).
    const { clientId } = await createTestApp(server.databaseUrl, { type: "login", redirectUris: [REDIRECT], firstParty: true });
    const signedIn = await authorize(server, {
      handle: "lostphone",
      password: PASSWORD,
      clientId,
      redirectUri: REDIRECT,
      secondFactor: () => generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 }),
    });
    expect(signedIn.code).toBeTruthy();

    const missing = await runCli(server.databaseUrl, ["users", "mfa", "reset", "lostphone", "--json"]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain("--reason");

    const reset = await cliJson<Record<string, unknown>>(server.databaseUrl, ["users", "mfa", "reset", "lostphone", "--reason", "lost phone, ticket 42"]);
    expect(reset).toEqual({ handle: "lostphone", factors_removed: 1, recovery_codes_removed: 10, sessions_ended: 1 });
    expect(await cliJson(server.databaseUrl, ["users", "mfa", "lostphone"])).toEqual({ passkeys: 0, totp: false, recovery_codes_left: 0 });

    // The session is gone: the same browser is asked for its password again, and the password alone signs in now.
    const again = await authorize(server, { handle: "lostphone", password: PASSWORD, clientId, redirectUri: REDIRECT, jar: signedIn.jar });
    expect(again.loginShown).toBe(true);
    expect(again.code).toBeTruthy();

    const audit = await query<{ action: string; detail: { reason?: string } }>(
      server.databaseUrl,
      `SELECT action, detail FROM "AuditLog" WHERE "targetId" = 'lostphone' AND action = 'user.mfa.reset'`,
    );
    expect(audit).toHaveLength(1);
    expect(audit[0]!.detail.reason).toBe("lost phone, ticket 42");
    const notices = await query<{ message: string }>(server.databaseUrl, `SELECT message FROM "Notification" WHERE "userId" = $1 AND type = 'security' ORDER BY id`, [user.id]);
    expect(notices.map((n) => n.message).join("\n")).toContain("An operator removed the second factors");
  });
});
