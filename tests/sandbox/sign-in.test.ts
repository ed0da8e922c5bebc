import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "../../lib/crypto/passwords";
import { PORTAL_CLIENT_ID } from "../../lib/services/apps";
import { cliJson, runCli } from "../helpers/cli";
import { query } from "../helpers/db";
import {
  authorize,
  completeDeviceSignIn,
  createTestApp,
  exchangeCode,
  pollDeviceToken,
  signInAndGetTokens,
  startDeviceSignIn,
  type TestApp,
} from "../helpers/oidc";
import { startServer, type TestServer } from "../helpers/server";

/**
 * A sandbox's test users. The team adds them (CLI `apps sandbox users add`), each
 * with a generated password shown once; they sign in on the hosted login page through the sandbox's
 * client only (code + PKCE, device sign-in), which shows a "Sandbox" banner. A real account cannot
 * sign in to a sandbox client, and a test user cannot sign in to a live client or the portal.
 */
const REDIRECT = "http://localhost:9/callback";
const DEMO = { handle: "alice", password: "alice-demo-pass" };

let server: TestServer;
/** A pending login app (no review yet): only its sandbox signs anyone in. */
let pending: TestApp;
/** An approved login app: its live client. */
let live: TestApp;
let sandboxClientId: string;
let tester: { handle: string; password: string };

function cli(args: string[]) {
  return runCli(server.databaseUrl, args);
}

async function me(token: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${server.apiUrl}/me`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  server = await startServer({ seed: true });
  const scopes = ["svc:chat.read"];
  pending = await createTestApp(server.databaseUrl, { type: "login", status: "pending", scopes, redirectUris: [REDIRECT], deviceFlow: true, name: "Pending Pal" });
  live = await createTestApp(server.databaseUrl, { type: "login", scopes, redirectUris: [REDIRECT], deviceFlow: true, name: "Live Pal" });
  sandboxClientId = `sbx_${pending.clientId}`;
  tester = await cliJson<{ handle: string; password: string }>(server.databaseUrl, ["apps", "sandbox", "users", "add", pending.clientId, "--handle", "Tess_Tester"]);
}, 600_000);

afterAll(async () => {
  await server?.stop();
});

describe("test users (CLI)", () => {
  it("add prints {handle, password} once; the password is stored only as an Argon2id hash, in the sandbox's world", async () => {
    expect(Object.keys(tester).sort()).toEqual(["handle", "password"]);
    expect(tester.handle).toBe("tess_tester");
    expect(tester.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    const rows = await query<{ worldId: number; isTestUser: boolean; passwordHash: string }>(
      server.databaseUrl,
      `SELECT u."worldId", u."isTestUser", u."passwordHash" FROM "User" u WHERE u.handle = $1`,
      [tester.handle],
    );
    const [sandbox] = await query<{ id: number }>(server.databaseUrl, `SELECT id FROM "Sandbox" WHERE "clientId" = $1`, [sandboxClientId]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ worldId: sandbox!.id, isTestUser: true });
    expect(rows[0]!.passwordHash).toMatch(/^\$argon2id\$/);
    expect(rows[0]!.passwordHash).not.toContain(tester.password);
  });

  it("add without --handle generates one; show lists the test users; remove takes one out", async () => {
    const generated = await cliJson<{ handle: string; password: string }>(server.databaseUrl, ["apps", "sandbox", "users", "add", pending.clientId]);
    expect(generated.handle).toMatch(/^test_[a-z0-9]{6}$/);
    const shown = await cliJson<Record<string, unknown>>(server.databaseUrl, ["apps", "sandbox", "show", pending.clientId]);
    expect(shown).toMatchObject({ client_id: sandboxClientId, quota_per_minute: 600, created_at: expect.any(Number) });
    expect(shown.users).toEqual([{ handle: tester.handle }, { handle: generated.handle }]);
    const listed = await cliJson<{ client_id: string; users: { handle: string; created_at: number }[] }>(server.databaseUrl, ["apps", "sandbox", "users", "list", pending.clientId]);
    expect(listed).toEqual({ client_id: pending.clientId, users: [{ handle: tester.handle, created_at: expect.any(Number) }, { handle: generated.handle, created_at: expect.any(Number) }] });
    const removed = await runCli(server.databaseUrl, ["apps", "sandbox", "users", "remove", pending.clientId, generated.handle, "--json"]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse(removed.stdout)).toEqual({ client_id: pending.clientId, handle: generated.handle, removed: true });
    const after = await cliJson<{ users: unknown }>(server.databaseUrl, ["apps", "sandbox", "show", pending.clientId]);
    expect(after.users).toEqual([{ handle: tester.handle }]);
    // Removing one that is not there (or a live person's handle) is a clear error.
    const again = await cli(["apps", "sandbox", "users", "remove", pending.clientId, "alice", "--json"]);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stderr)).toMatchObject({ error: { code: "user_not_found" } });
  });

  it("a handle is unique in the sandbox's world (a generated person's too), not across worlds", async () => {
    const taken = await cli(["apps", "sandbox", "users", "add", pending.clientId, "--handle", tester.handle, "--json"]);
    expect(taken.code).toBe(1);
    expect(JSON.parse(taken.stderr)).toMatchObject({ error: { code: "conflict" } });
    const [person] = await query<{ handle: string }>(
      server.databaseUrl,
      `SELECT handle FROM "User" WHERE "worldId" = (SELECT id FROM "Sandbox" WHERE "clientId" = $1) AND NOT "isTestUser" LIMIT 1`,
      [sandboxClientId],
    );
    const synthetic = await cli(["apps", "sandbox", "users", "add", pending.clientId, "--handle", person!.handle, "--json"]);
    expect(JSON.parse(synthetic.stderr)).toMatchObject({ error: { code: "conflict" } });
    // A bad handle is a usage error (exit 2), by the live rules.
    const bad = await cli(["apps", "sandbox", "users", "add", pending.clientId, "--handle", "no way!", "--json"]);
    expect(bad.code).toBe(2);
  });

  it("at most 20 test users per sandbox: the 21st is a 409 conflict", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "login", status: "pending", redirectUris: [REDIRECT] });
    await cliJson(server.databaseUrl, ["apps", "sandbox", "users", "add", app.clientId, "--handle", "first_of_many"]);
    const hash = await hashPassword("filler password 123");
    await query(
      server.databaseUrl,
      `INSERT INTO "User" ("worldId", handle, "displayName", "passwordHash", "isTestUser", "updatedAt")
       SELECT s.id, 'filler_' || n, 'filler', $2, true, now() FROM "Sandbox" s, generate_series(1, 19) n WHERE s."clientId" = $1`,
      [`sbx_${app.clientId}`, hash],
    );
    const over = await cli(["apps", "sandbox", "users", "add", app.clientId, "--json"]);
    expect(over.code, over.stdout).toBe(1);
    expect(JSON.parse(over.stderr)).toMatchObject({ error: { code: "conflict", message: expect.stringMatching(/20 test users/) } });
    const [count] = await query<{ n: number }>(
      server.databaseUrl,
      `SELECT count(*)::int AS n FROM "User" WHERE "worldId" = (SELECT id FROM "Sandbox" WHERE "clientId" = $1)  AND "isTestUser"`,
      [`sbx_${app.clientId}`],
    );
    expect(count!.n).toBe(20);
  });

  it("an unknown app has no sandbox to add to", async () => {
    const outsider = await cli(["apps", "sandbox", "users", "add", "app_nosuchapp", "--json"]);
    expect(outsider.code).toBe(1);
    expect(JSON.parse(outsider.stderr)).toMatchObject({ error: { code: "not_found" } });
  });
});

describe("sign-in through the sandbox client", () => {
  it("a test user signs in with code + PKCE through the sandbox login client and calls /me", async () => {
    const tokens = await signInAndGetTokens(server, { handle: tester.handle, password: tester.password, clientId: sandboxClientId, redirectUri: REDIRECT, scope: "openid profile" });
    const claims = decodeJwt(tokens.access_token);
    expect(claims.client_id).toBe(sandboxClientId);
    expect(claims.sandbox).toBe(true);
    const idToken = decodeJwt(tokens.id_token);
    expect(idToken.preferred_username).toBe(tester.handle);
    const res = await me(tokens.access_token);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((res.body.user as { username: string }).username).toBe(tester.handle);
    // The refresh token works the same.
    const refreshed = await fetch(`${server.issuer}/protocol/openid-connect/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", client_id: sandboxClientId, refresh_token: tokens.refresh_token }),
    });
    expect(refreshed.status).toBe(200);
  });

  it("a real account (alice) is refused by the sandbox client with the wrong-credentials answer", async () => {
    await expect(authorize(server, { ...DEMO, clientId: sandboxClientId, redirectUri: REDIRECT })).rejects.toThrow(/login refused: invalid_credentials/);
  });

  it("a test user is refused by a live client and by the portal", async () => {
    await expect(authorize(server, { handle: tester.handle, password: tester.password, clientId: live.clientId, redirectUri: REDIRECT })).rejects.toThrow(
      /login refused: invalid_credentials/,
    );
    // The portal signs in through its own live login client (lib/portal/auth.ts); its next-auth
    // round trip is tests/sandbox/banner.test.ts's (it needs Next).
    await expect(
      authorize(server, { handle: tester.handle, password: tester.password, clientId: PORTAL_CLIENT_ID, redirectUri: `${server.url}/api/auth/callback/platform` }),
    ).rejects.toThrow(/login refused: invalid_credentials/);
  });

  // A browser submits oidc-provider's auto-submitting form that ends the first person's session
  // (tests/helpers/oidc.ts follows it as a browser would).
  it("a browser signed in as a test user is asked to sign in again at a live client (and the other way round)", async () => {
    const first = await authorize(server, { handle: tester.handle, password: tester.password, clientId: sandboxClientId, redirectUri: REDIRECT });
    expect(first.code).toBeTruthy();
    // Same browser, the live client: the sandbox session is nobody there.
    const second = await authorize(server, { ...DEMO, clientId: live.clientId, redirectUri: REDIRECT, jar: first.jar });
    expect(second.loginShown).toBe(true);
    const exchanged = await exchangeCode(server, { clientId: live.clientId, code: second.code!, redirectUri: REDIRECT, verifier: second.verifier });
    expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
    const [alice] = await query<{ id: number }>(server.databaseUrl, `SELECT id FROM "User" WHERE "worldId" = 0 AND handle = 'alice'`);
    expect(decodeJwt(exchanged.body.access_token as string).sub).toBe(String(alice!.id));
    // And back: alice's session is nobody at the sandbox client.
    const third = await authorize(server, { handle: tester.handle, password: tester.password, clientId: sandboxClientId, redirectUri: REDIRECT, jar: first.jar });
    expect(third.loginShown).toBe(true);
  });

  it("device sign-in for the sandbox client with a test user", async () => {
    const device = await startDeviceSignIn(server, sandboxClientId, "openid profile");
    const person = await completeDeviceSignIn(server, { userCode: device.user_code, handle: tester.handle, password: tester.password });
    expect(person.step).toBe("success");
    expect(person.loginShown).toBe(true);
    expect(person.page.searchParams.get("client_id")).toBe(sandboxClientId);
    const polled = await pollDeviceToken(server, sandboxClientId, device.device_code);
    expect(polled.status, JSON.stringify(polled.body)).toBe(200);
    const token = polled.body.access_token as string;
    expect(decodeJwt(token).sandbox).toBe(true);
    expect((await me(token)).status).toBe(200);
    // Alice cannot finish a sandbox device sign-in.
    const other = await startDeviceSignIn(server, sandboxClientId);
    await expect(completeDeviceSignIn(server, { userCode: other.user_code, ...DEMO })).rejects.toThrow(/invalid_credentials/);
  });
});
