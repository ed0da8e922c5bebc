import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, cliJson } from "../helpers/cli";
import { query } from "../helpers/db";
import { authorize, authorizationEndpoint, createTestApp, createTestUser, jarFetch, type CookieJar } from "../helpers/oidc";
import { pointAppAt, startServer, type TestServer } from "../helpers/server";

/**
 * Issue 29, part 5 (operators): `users sessions HANDLE` lists where a person is signed in (sign-in
 * sessions at the sign-in service) and `users sign-out HANDLE [--session ID]` ends them, audited.
 */
let server: TestServer;
let closeDb: () => Promise<void>;
let clientId: string;
const PASSWORD = "correct horse battery";
const REDIRECT = "http://localhost:9/callback";
const FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";

beforeAll(async () => {
  server = await startServer({ seed: false });
  closeDb = await pointAppAt(server.databaseUrl);
  ({ clientId } = await createTestApp(server.databaseUrl, { type: "login", redirectUris: [REDIRECT], firstParty: true }));
});

afterAll(async () => {
  await closeDb?.();
  await server?.stop();
});

/** An authorization with prompt=none in this browser: a code while its session lives, login_required after. */
async function silentAuthorize(jar: CookieJar): Promise<URL> {
  const url = new URL(authorizationEndpoint(server));
  const params = { client_id: clientId, response_type: "code", redirect_uri: REDIRECT, scope: "openid", prompt: "none", state: "s1", code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGF3jgU9qQ", code_challenge_method: "S256" };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const res = await jarFetch(jar, url.href, { headers: { "user-agent": FIREFOX } });
  return new URL(res.headers.get("location") ?? "", url);
}

interface SessionJson {
  id: string;
  created_at: number;
  last_active_at: number;
  user_agent: string;
}

describe("users sessions and users sign-out", () => {
  it("list the person's sessions in the documented shape and end one, then all", async () => {
    await createTestUser(server.databaseUrl, { handle: "roamer", password: PASSWORD });
    await createTestUser(server.databaseUrl, { handle: "homebody", password: PASSWORD });
    expect(await cliJson(server.databaseUrl, ["users", "sessions", "roamer"])).toEqual([]);

    const before = Math.floor(Date.now() / 1000);
    const first = await authorize(server, { handle: "roamer", password: PASSWORD, clientId, redirectUri: REDIRECT });
    const second = await authorize(server, { handle: "roamer", password: PASSWORD, clientId, redirectUri: REDIRECT });
    const other = await authorize(server, { handle: "homebody", password: PASSWORD, clientId, redirectUri: REDIRECT });
    // The first browser comes back later with another user agent: its session is the most recent.
    expect((await silentAuthorize(first.jar)).searchParams.get("code")).toBeTruthy();

    const sessions = await cliJson<SessionJson[]>(server.databaseUrl, ["users", "sessions", "roamer"]);
    expect(sessions).toHaveLength(2);
    for (const session of sessions) {
      expect(Object.keys(session).sort()).toEqual(["created_at", "id", "last_active_at", "user_agent"]);
      expect(session.id).toMatch(/^[A-Za-z0-9_-]{16}$/);
      expect(Number.isInteger(session.created_at) && session.created_at >= before - 1).toBe(true);
      expect(session.last_active_at).toBeGreaterThanOrEqual(session.created_at);
    }
    expect(sessions[0]!.user_agent).toBe(FIREFOX);
    // Never the session's internal uid (it binds refresh tokens to the session).
    const uids = await query<{ uid: string }>(server.databaseUrl, `SELECT uid FROM "OidcModel" WHERE kind = 'Session'`);
    for (const { uid } of uids) expect(JSON.stringify(sessions)).not.toContain(uid);

    // One session, by its id: that browser is signed out at the sign-in service, the other is not.
    const ended = await cliJson(server.databaseUrl, ["users", "sign-out", "roamer", "--session", sessions[0]!.id]);
    expect(ended).toEqual({ handle: "roamer", sessions_ended: 1 });
    expect((await silentAuthorize(first.jar)).searchParams.get("error")).toBe("login_required");
    expect((await silentAuthorize(second.jar)).searchParams.get("code")).toBeTruthy();
    expect(await cliJson<SessionJson[]>(server.databaseUrl, ["users", "sessions", "roamer"])).toHaveLength(1);

    // An id that is not one of the person's live sessions: not_found (exit 1), nothing ended.
    const again = await runCli(server.databaseUrl, ["users", "sign-out", "roamer", "--session", sessions[0]!.id, "--json"]);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stderr || again.stdout).error.code).toBe("not_found");
    // Ids are base64url, so one in 64 starts with "-": still an id, not an option.
    const dashed = await runCli(server.databaseUrl, ["users", "sign-out", "roamer", "--session", "-BeN4-NdpVfRWIXw", "--json"]);
    expect(JSON.parse(dashed.stderr || dashed.stdout).error.code).toBe("not_found");
    const malformed = await runCli(server.databaseUrl, ["users", "sign-out", "roamer", "--session", "x'; DROP", "--json"]);
    expect(malformed.code).toBe(2);

    // All of them; another person's session is untouched.
    expect(await cliJson(server.databaseUrl, ["users", "sign-out", "roamer"])).toEqual({ handle: "roamer", sessions_ended: 1 });
    expect((await silentAuthorize(second.jar)).searchParams.get("error")).toBe("login_required");
    expect(await cliJson(server.databaseUrl, ["users", "sessions", "roamer"])).toEqual([]);
    expect((await silentAuthorize(other.jar)).searchParams.get("code")).toBeTruthy();
    expect(await cliJson<SessionJson[]>(server.databaseUrl, ["users", "sessions", "homebody"])).toHaveLength(1);

    const audit = await query<{ actorHandle: string; detail: { scope: string; sessions_ended: number } }>(
      server.databaseUrl,
      `SELECT "actorHandle", detail FROM "AuditLog" WHERE "targetId" = 'roamer' AND action = 'user.session.sign_out' ORDER BY id`,
    );
    expect(audit.map((a) => [a.actorHandle, a.detail.scope, a.detail.sessions_ended])).toEqual([
      ["system:cli", "one", 1],
      ["system:cli", "all", 1],
    ]);
  });

  it("refuses an unknown person", async () => {
    const run = await runCli(server.databaseUrl, ["users", "sessions", "nobodyhere", "--json"]);
    expect(run.code).toBe(1);
    expect(run.stderr + run.stdout).toContain("user_not_found");
  });
});
