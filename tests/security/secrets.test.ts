import { CURRENT_HASH_PATTERN } from "../../lib/crypto/passwords";
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_ACCOUNTS } from "../../lib/seed/demo-accounts";
import { query } from "../helpers/db";
import { authorize, clientCredentialsToken, exchangeCode, jarFetch, refreshTokens, tokenRequest } from "../helpers/oidc";
import { startServer, type TestServer } from "../helpers/server";
import { callServerAction, portalSignIn, serverActions } from "./portal-client";

/**
 * "Secrets": the whole journey through the real server at LOG_LEVEL=debug, capturing
 * every line it prints: a developer registers an API client and a login client in the portal, an
 * admin approves them, the developer sees the secret once and rotates it (add, retire, roll), the app gets tokens,
 * a user signs in through the login client (code, tokens, refresh, userinfo, logout), and a wrong
 * password is tried. No client secret, password, refresh token, authorization code, access token,
 * ID token, session cookie, cookie signing key, next-auth secret or private signing key (the last
 * three read from the server's database) may appear in any log line, and the database holds only
 * hashes of secrets and passwords. The logs are searched once the server has exited and its output
 * has been read to the end (no sleep that a slow machine outruns).
 */
const REDIRECT = "http://localhost:9/callback";
const password = (handle: string) => DEMO_ACCOUNTS.find((a) => a.handle === handle)!.password;

let server: TestServer;
/** Every secret value the journey handled, by what it is. */
const secrets = new Map<string, string>();

function remember(label: string, value: string | null | undefined): void {
  if (!value) throw new Error(`the journey did not produce ${label}`);
  secrets.set(label, value);
}

beforeAll(async () => {
  server = await startServer({ next: true, seed: true, env: { LOG_LEVEL: "debug" } });
  // A Next build may be running (sources changed): it can take minutes on a busy machine.
}, 600_000);

afterAll(async () => {
  await server?.stop();
});

describe("the full journey", () => {
  beforeAll(async () => {
    const actions = serverActions();
    const wrongPassword = "wrong-Password-9f2c1e";
    remember("wrong password", wrongPassword);
    for (const handle of ["alice", "admin", "bob"]) remember(`${handle}'s password`, password(handle));

    // A failed sign-in first (the password must not show up in the refusal's log line either).
    await expect(portalSignIn(server, "alice", wrongPassword)).rejects.toThrow(/invalid_credentials/);
    const alice = await portalSignIn(server, "alice", password("alice"));
    const admin = await portalSignIn(server, "admin", password("admin"));
    remember("alice's session cookie", alice.jar.header(`${server.url}/apps`).match(/next-auth\.session-token=([^;]+)/)?.[1]);

    // Register and approve an API client and a login client.
    const create = async (input: Record<string, unknown>) => {
      const call = await callServerAction(server, alice.jar, actions.createAppAction!, [
        { description: "", scopes: [], redirectUris: [], postLogoutRedirectUris: [], ...input },
      ]);
      expect(call.result?.ok, call.text.slice(0, 300)).toBe(true);
      return (call.result!.data as { clientId: string }).clientId;
    };
    const apiId = await create({ name: "Secret journey bot", type: "api", scopes: ["svc:chat.read"] });
    const loginId = await create({ name: "Secret journey login", type: "login", scopes: ["svc:chat.read"], redirectUris: [REDIRECT] });
    for (const id of [apiId, loginId]) {
      // An approval names the revision the admin looked at.
      const [row] = await query<{ revision: number }>(server.databaseUrl, `SELECT revision FROM "Application" WHERE "clientId" = $1`, [id]);
      const call = await callServerAction(server, admin.jar, actions.approveAppAction!, [id, row!.revision]);
      expect(call.result?.ok, call.text.slice(0, 300)).toBe(true);
    }

    // Reveal once on the app page, then rotate: add a second secret, retire the first, roll.
    const page = await (await jarFetch(alice.jar, `${server.url}/apps/${apiId}`)).text();
    remember("revealed client secret", /clientSecret\\?":\\?"([A-Za-z0-9_-]{40,})/.exec(page)?.[1]);
    const revealedId = /secretId\\?":\\?"(sec_[A-Za-z0-9]+)/.exec(page)?.[1];
    expect(revealedId).toBeTruthy();
    const again = await (await jarFetch(alice.jar, `${server.url}/apps/${apiId}`)).text();
    expect(again).not.toContain(secrets.get("revealed client secret"));
    const added = await callServerAction(server, alice.jar, actions.addSecretAction!, [apiId]);
    expect(added.result?.ok, added.text.slice(0, 300)).toBe(true);
    remember("added client secret", (added.result!.data as { clientSecret: string }).clientSecret);
    const retired = await callServerAction(server, alice.jar, actions.retireSecretAction!, [apiId, revealedId]);
    expect(retired.result?.ok, retired.text.slice(0, 300)).toBe(true);
    const rolled = await callServerAction(server, alice.jar, actions.rollSecretAction!, [apiId]);
    expect(rolled.result?.ok, rolled.text.slice(0, 300)).toBe(true);
    const secret = (rolled.result!.data as { clientSecret: string }).clientSecret;
    remember("rolled client secret", secret);

    // The API client gets tokens (the old secrets no longer work) and calls the API.
    for (const label of ["revealed client secret", "added client secret"]) {
      const old = await tokenRequest(server, { grant_type: "client_credentials", client_id: apiId, client_secret: secrets.get(label) });
      expect(old.body.error, label).toBe("invalid_client");
    }
    const basic = await tokenRequest(server, { grant_type: "client_credentials" }, {
      authorization: `Basic ${Buffer.from(`${apiId}:${secret}`).toString("base64")}`,
    });
    expect(basic.status).toBe(200);
    remember("app access token (basic auth)", basic.body.access_token as string);
    const { access_token: appToken } = await clientCredentialsToken(server, apiId, secret);
    remember("app access token", appToken);
    expect((await fetch(`${server.apiUrl}/global-chat/messages?limit=1`, { headers: { authorization: `Bearer ${appToken}` } })).status).toBe(200);

    // A user signs in through the login client: consent, code, tokens, refresh, userinfo, logout.
    const flow = await authorize(server, { handle: "bob", password: password("bob"), clientId: loginId, redirectUri: REDIRECT });
    remember("authorization code", flow.code);
    remember("PKCE verifier", flow.verifier);
    const exchanged = await exchangeCode(server, { clientId: loginId, code: flow.code!, redirectUri: REDIRECT, verifier: flow.verifier });
    expect(exchanged.status).toBe(200);
    remember("user access token", exchanged.body.access_token as string);
    remember("refresh token", exchanged.body.refresh_token as string);
    remember("ID token", exchanged.body.id_token as string);
    const replay = await exchangeCode(server, { clientId: loginId, code: flow.code!, redirectUri: REDIRECT, verifier: flow.verifier });
    expect(replay.body.error).toBe("invalid_grant");
    // The replay revoked the grant; sign in again for a refresh.
    const second = await authorize(server, { handle: "bob", password: password("bob"), clientId: loginId, redirectUri: REDIRECT, jar: flow.jar });
    remember("second authorization code", second.code);
    const tokens = await exchangeCode(server, { clientId: loginId, code: second.code!, redirectUri: REDIRECT, verifier: second.verifier });
    remember("second refresh token", tokens.body.refresh_token as string);
    const refreshed = await refreshTokens(server, loginId, tokens.body.refresh_token as string);
    expect(refreshed.status).toBe(200);
    remember("refreshed access token", refreshed.body.access_token as string);
    remember("rotated refresh token", refreshed.body.refresh_token as string);
    const bearer = { authorization: `Bearer ${refreshed.body.access_token}` };
    expect((await fetch(`${server.apiUrl}/me`, { headers: bearer })).status).toBe(200);
    expect((await fetch(`${server.issuer}/protocol/openid-connect/userinfo`, { headers: bearer })).status).toBe(200);
    // Reusing the old refresh token revokes the grant and voids its access tokens: the
    // refusals of the voided token are logged too, without the token.
    const reused = await refreshTokens(server, loginId, tokens.body.refresh_token as string);
    expect(reused.body.error).toBe("invalid_grant");
    expect((await fetch(`${server.apiUrl}/me`, { headers: bearer })).status).toBe(401);
    expect((await fetch(`${server.issuer}/protocol/openid-connect/userinfo`, { headers: bearer })).status).toBe(401);
    const logout = new URL(`${server.issuer}/protocol/openid-connect/logout`);
    logout.searchParams.set("client_id", loginId);
    logout.searchParams.set("id_token_hint", secrets.get("ID token")!);
    await jarFetch(flow.jar, logout.href);
    // Bad bearer tokens are logged as refusals, without the token.
    await fetch(`${server.apiUrl}/me`, { headers: { authorization: `Bearer ${secrets.get("ID token")}` } });
    await fetch(`${server.issuer}/protocol/openid-connect/userinfo`, { headers: { authorization: `Bearer ${secrets.get("refresh token")}` } });

    // The keys the server signs with: its cookie keys and next-auth secret (generated into Setting,
    // as no COOKIE_SECRETS or NEXTAUTH_SECRET is given), and every private signing key's private
    // parts (EC `d`; RSA `d`, `p`, `q`, `dp`, `dq`, `qi`).
    const settings = await query<{ key: string; value: string }>(server.databaseUrl, `SELECT key, value FROM "Setting" ORDER BY key`);
    expect(settings.map((s) => s.key)).toEqual(expect.arrayContaining(["cookie_secret", "nextauth_secret"]));
    for (const { key, value } of settings) remember(`setting ${key}`, value);
    const keys = await query<{ kid: string; alg: string; privateJwk: Record<string, unknown> }>(
      server.databaseUrl,
      `SELECT kid, alg, "privateJwk" FROM "SigningKey"`,
    );
    expect(keys.map((k) => k.alg).sort()).toEqual(expect.arrayContaining(["ES256", "RS256"]));
    for (const { kid, alg, privateJwk } of keys) {
      const parts = ["d", "p", "q", "dp", "dq", "qi"].filter((name) => typeof privateJwk[name] === "string");
      expect(parts.length, kid).toBe(alg === "RS256" ? 6 : 1);
      for (const name of parts) remember(`signing key ${kid}'s private ${name}`, privateJwk[name] as string);
    }

    // Stop the server and wait for its exit: every line it printed, to the last, is then in `logs`.
    expect(await server.stop()).toBe(0);
    expect(server.logs.at(-1)).toBe("Stopped.");
  }, 240_000);

  it("logged plenty (debug level), and none of it holds a secret", () => {
    expect(server.logs.filter((l) => l.startsWith("{")).length).toBeGreaterThan(5);
    // The log did see the sensitive moments: the refused password and the replayed code.
    expect(server.logs.some((l) => l.includes("sign-in refused"))).toBe(true);
    const all = server.logs.join("\n");
    const jwts = [...secrets].filter(([label]) => /access token|ID token/.test(label));
    expect(jwts.map(([label]) => label).sort()).toEqual(
      ["ID token", "app access token", "app access token (basic auth)", "refreshed access token", "user access token"].sort(),
    );
    for (const [label, value] of secrets) expect(all.includes(value), `${label} appears in the server's log`).toBe(false);
    // JWTs are also checked by their signature part: a truncated token is still a leak.
    for (const [label, value] of jwts) {
      const signature = value.split(".")[2]!;
      expect(signature.length, label).toBeGreaterThan(20);
      expect(all.includes(signature), `${label}'s signature appears in the log`).toBe(false);
    }
  });

  it("the database holds only hashes of passwords and client secrets", async () => {
    const users = await query<{ handle: string; passwordHash: string }>(
      server.databaseUrl,
      `SELECT handle, "passwordHash" FROM "User" WHERE "passwordHash" IS NOT NULL`,
    );
    expect(users.length).toBeGreaterThanOrEqual(6);
    // Argon2id at OWASP's parameters; the demo accounts are hashed at start, so none is scrypt.
    for (const u of users) expect(u.passwordHash, u.handle).toMatch(CURRENT_HASH_PATTERN);

    // After the roll the app has exactly one secret: the rolled one, as a SHA-256 hash and a hint.
    const stored = await query<{ id: string; hash: string; hint: string }>(
      server.databaseUrl,
      `SELECT s.id, s.hash, s.hint FROM "ClientSecret" s JOIN "Application" a ON a.id = s."applicationId"
       WHERE a.name = 'Secret journey bot'`,
    );
    const secret = secrets.get("rolled client secret")!;
    expect(stored).toHaveLength(1);
    expect(stored[0]!.id).toMatch(/^sec_[A-Za-z0-9]+$/);
    expect(stored[0]!.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored[0]!.hash).toBe(createHash("sha256").update(secret).digest("hex"));
    expect(stored[0]!.hint).toBe(secret.slice(-4));

    // No table holds a password or a client secret in clear (OidcModel payloads and the audit log included).
    const tables = await query<{ table_name: string }>(
      server.databaseUrl,
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
    );
    expect(tables.map((t) => t.table_name)).toEqual(expect.arrayContaining(["OidcModel", "AuditLog", "Application", "ClientSecret", "User", "Setting"]));
    const plain = [...secrets].filter(([label]) => /password|client secret/.test(label));
    for (const { table_name } of tables) {
      const rows = await query<{ row: string }>(server.databaseUrl, `SELECT row_to_json(t)::text AS row FROM "${table_name}" t`);
      const text = rows.map((r) => r.row).join("\n");
      for (const [label, value] of plain) expect(text.includes(value), `${label} in table ${table_name}`).toBe(false);
    }
  });
});
