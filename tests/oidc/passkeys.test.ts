import { decodeJwt } from "jose";
import { generate } from "otplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliJson } from "../helpers/cli";
import { query } from "../helpers/db";
import { authorizationEndpoint, CookieJar, createTestApp, createTestUser, exchangeCode, jarFetch, pkcePair, postInteraction, refreshTokens } from "../helpers/oidc";
import { pointAppAt, startServer, type TestServer } from "../helpers/server";
import { SoftwareAuthenticator, type AssertOptions } from "../helpers/webauthn";

/**
 * Part 1: passkeys. Registered the way Account security does it (the service, with a
 * software authenticator answering navigator.credentials.create), then used at the hosted sign-in
 * through real HTTP as the page's script does: POST /interaction/:uid/passkey-options for the
 * challenge, the authenticator's answer posted as a form to /interaction/:uid/passkey. As the only
 * step (usernameless) or after the password; the ID token's amr/acr per path; wrong signatures,
 * a counter that does not move forward, a used challenge and a missing user verification are
 * refused, and wrong answers count in the sign-in throttle.
 */
let server: TestServer;
let closeDb: () => Promise<void>;
let clientId: string;
const REDIRECT = "http://localhost:9/callback";
const PASSWORD = "correct horse battery";
const MFA_ACR = "urn:social-dev-platform:mfa";

beforeAll(async () => {
  server = await startServer({ seed: false });
  // The services run here too (registration): the same public URL, so the same relying party.
  closeDb = await pointAppAt(server.databaseUrl, { APP_URL: server.url });
  ({ clientId } = await createTestApp(server.databaseUrl, { type: "login", redirectUris: [REDIRECT], firstParty: true, name: "Passkey App" }));
});

afterAll(async () => {
  await closeDb?.();
  await server?.stop();
});

type UserActor = { kind: "user"; id: number; handle: string; role: "user"; ip: string };

async function userWithPasskey(handle: string, options: { synced?: boolean } = {}): Promise<{ actor: UserActor; authenticator: SoftwareAuthenticator }> {
  const user = await createTestUser(server.databaseUrl, { handle, password: PASSWORD });
  const actor: UserActor = { kind: "user", id: user.id, handle: user.handle, role: "user", ip: "127.0.0.1" };
  const authenticator = new SoftwareAuthenticator(server.url, options);
  const { startPasskeyRegistration, finishPasskeyRegistration } = await import("../../lib/services/passkeys");
  const creation = await startPasskeyRegistration(actor, { password: PASSWORD });
  await finishPasskeyRegistration(actor, { name: `${handle}'s laptop`, response: authenticator.register(creation) as never });
  return { actor, authenticator };
}

/** A new authorization request in a new browser: its jar, login page and PKCE verifier. */
async function startSignIn(jar = new CookieJar()): Promise<{ jar: CookieJar; page: string; verifier: string }> {
  const { verifier, challenge } = pkcePair();
  const auth = new URL(authorizationEndpoint(server));
  auth.search = new URLSearchParams({ client_id: clientId, response_type: "code", redirect_uri: REDIRECT, scope: "openid", state: "s", code_challenge: challenge, code_challenge_method: "S256" }).toString();
  const res = await jarFetch(jar, auth.href);
  return { jar, page: new URL(res.headers.get("location")!, server.issuer).href, verifier };
}

/** What the page's script does first: the challenge for this interaction. */
async function passkeyOptions(jar: CookieJar, page: string, origin = server.url): Promise<Response> {
  return jarFetch(jar, `${page}/passkey-options`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", origin }, body: "" });
}

async function challengeFor(jar: CookieJar, page: string) {
  const res = await passkeyOptions(jar, page);
  expect(res.status).toBe(200);
  expect(res.headers.get("cache-control")).toBe("no-store");
  return ((await res.json()) as { options: Parameters<SoftwareAuthenticator["assert"]>[0] }).options;
}

/** The script's form post of the authenticator's answer; the refusal's code, or null when it signed in. */
async function postPasskey(jar: CookieJar, page: string, response: unknown): Promise<{ res: Response; error: string | null }> {
  const res = await postInteraction(server, jar, page, "passkey", { response: JSON.stringify(response) });
  const location = new URL(res.headers.get("location") ?? "", server.issuer);
  const backToPage = location.pathname === new URL(page).pathname;
  return { res, error: backToPage ? (location.searchParams.get("error") ?? "") : null };
}

/** Follows the redirects after a finished interaction to the callback; exchanges the code. */
async function finish(jar: CookieJar, res: Response, verifier: string): Promise<{ idToken: string; refreshToken: string }> {
  for (let step = 0; step < 10 && (res.status === 302 || res.status === 303); step++) {
    const location = new URL(res.headers.get("location")!, server.issuer);
    if (location.href.startsWith(REDIRECT)) {
      const { status, body } = await exchangeCode(server, { clientId, code: location.searchParams.get("code")!, redirectUri: REDIRECT, verifier });
      expect(status).toBe(200);
      return { idToken: String(body.id_token), refreshToken: String(body.refresh_token) };
    }
    res = await jarFetch(jar, location.href);
  }
  throw new Error(`no callback: ${res.status}`);
}

async function passkeyOnlySignIn(authenticator: SoftwareAuthenticator, how: AssertOptions = {}) {
  const { jar, page, verifier } = await startSignIn();
  const options = await challengeFor(jar, page);
  const { res, error } = await postPasskey(jar, page, authenticator.assert(options, how));
  return { jar, page, verifier, res, error };
}

describe("passkeys: registration", () => {
  it("asks for a discoverable, user-verified credential of this site, stores it, audits and notifies; users mfa counts it", async () => {
    const user = await createTestUser(server.databaseUrl, { handle: "regina", password: PASSWORD });
    const actor: UserActor = { kind: "user", id: user.id, handle: user.handle, role: "user", ip: "127.0.0.1" };
    const { startPasskeyRegistration, finishPasskeyRegistration, listPasskeys } = await import("../../lib/services/passkeys");
    const authenticator = new SoftwareAuthenticator(server.url);
    const creation = await startPasskeyRegistration(actor, { password: PASSWORD });
    expect(creation.rp.id).toBe("localhost");
    expect(creation.attestation).toBe("none");
    expect(creation.authenticatorSelection).toMatchObject({ residentKey: "required", userVerification: "required" });
    const response = authenticator.register(creation);
    await finishPasskeyRegistration(actor, { name: "Work laptop", response: response as never });

    const [row] = await query<{ credentialId: string; signCount: string; transports: string[]; backedUp: boolean; publicKey: Buffer }>(
      server.databaseUrl,
      `SELECT "credentialId", "signCount"::text, transports, "backedUp", "publicKey" FROM "SecondFactor" WHERE "userId" = $1 AND kind = 'passkey'`,
      [user.id],
    );
    expect(row).toMatchObject({ credentialId: response.id, signCount: "0", transports: ["internal"], backedUp: false });
    expect(row!.publicKey.length).toBeGreaterThan(64);
    expect((await listPasskeys(user.id)).map((p) => p.name)).toEqual(["Work laptop"]);
    // The account's first second factor: recovery codes come with it (the next test).
    expect(await cliJson(server.databaseUrl, ["users", "mfa", "regina"])).toEqual({ passkeys: 1, totp: false, recovery_codes_left: 10 });

    // The same answer again: its challenge was used.
    await expect(finishPasskeyRegistration(actor, { name: "Again", response: response as never })).rejects.toMatchObject({ code: "conflict" });
    // A new challenge, but the browser's origin is another site's: refused.
    const foreign = new SoftwareAuthenticator("https://evil.example");
    await expect(finishPasskeyRegistration(actor, { name: "Foreign", response: foreign.register(await startPasskeyRegistration(actor, { password: PASSWORD })) as never })).rejects.toMatchObject({
      code: "invalid_request",
    });
    // The next registration excludes the credential already there.
    expect((await startPasskeyRegistration(actor, { password: PASSWORD })).excludeCredentials?.map((c) => c.id)).toEqual([response.id]);

    const audit = await query<{ detail: { kind: string } }>(server.databaseUrl, `SELECT detail FROM "AuditLog" WHERE "targetId" = 'regina' AND action = 'user.mfa.enrol'`);
    expect(audit.map((a) => a.detail.kind)).toEqual(["passkey"]);
    const notices = await query<{ message: string }>(server.databaseUrl, `SELECT message FROM "Notification" WHERE "userId" = $1 AND type = 'security'`, [user.id]);
    expect(notices.map((n) => n.message)).toEqual(['A passkey ("Work laptop") was added to your account.']);
  });

  it("removal asks for the password (wrong: refused, kept), then removes, audits and notifies", async () => {
    const { actor } = await userWithPasskey("remy");
    const { listPasskeys, removePasskey, renamePasskey } = await import("../../lib/services/passkeys");
    const [passkey] = await listPasskeys(actor.id);
    await renamePasskey(actor, passkey!.id, "Old phone");
    expect((await listPasskeys(actor.id)).map((p) => p.name)).toEqual(["Old phone"]);
    await expect(removePasskey(actor, passkey!.id, { password: "wrong password" })).rejects.toMatchObject({ code: "invalid_request" });
    expect(await listPasskeys(actor.id)).toHaveLength(1);
    // Someone else's passkey is not found, whatever the proof.
    const other = await userWithPasskey("otto");
    await expect(removePasskey(other.actor, passkey!.id, { password: PASSWORD })).rejects.toMatchObject({ code: "not_found" });
    await removePasskey(actor, passkey!.id, { password: PASSWORD });
    expect(await listPasskeys(actor.id)).toHaveLength(0);
    const notices = await query<{ message: string }>(server.databaseUrl, `SELECT message FROM "Notification" WHERE "userId" = $1 ORDER BY id DESC LIMIT 1`, [actor.id]);
    expect(notices[0]!.message).toBe('The passkey "Old phone" was removed from your account.');
  });
  it("removing the authenticator app of an account with a passkey says the passkey still guards the password", async () => {
    const { actor } = await userWithPasskey("tessa");
    const { startTotpEnrolment, confirmTotpEnrolment, removeTotp } = await import("../../lib/services/second-factors");
    const { secret } = await startTotpEnrolment(actor, { password: PASSWORD });
    await confirmTotpEnrolment(actor, await generate({ secret }));
    await removeTotp(actor, { password: PASSWORD });
    const notices = await query<{ message: string }>(server.databaseUrl, `SELECT message FROM "Notification" WHERE "userId" = $1 ORDER BY id DESC LIMIT 1`, [actor.id]);
    expect(notices[0]!.message).toBe("The authenticator app was removed from your account: after your password, signing in asks for one of your passkeys.");
    // The recovery codes stay: they are the way in if the passkey is lost.
    expect(await cliJson(server.databaseUrl, ["users", "mfa", "tessa"])).toEqual({ passkeys: 1, totp: false, recovery_codes_left: 10 });
  });

  it("the first passkey brings ten recovery codes, a second none; without the passkeys a code signs in after the password; the last factor takes them", async () => {
    const user = await createTestUser(server.databaseUrl, { handle: "rosa", password: PASSWORD });
    const actor: UserActor = { kind: "user", id: user.id, handle: user.handle, role: "user", ip: "127.0.0.1" };
    const { startPasskeyRegistration, finishPasskeyRegistration, listPasskeys, removePasskey } = await import("../../lib/services/passkeys");
    const register = async (name: string) =>
      finishPasskeyRegistration(actor, { name, response: new SoftwareAuthenticator(server.url).register(await startPasskeyRegistration(actor, { password: PASSWORD })) as never });
    const { recoveryCodes } = await register("Laptop");
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    expect((await register("Phone")).recoveryCodes).toBeNull();
    expect(await cliJson(server.databaseUrl, ["users", "mfa", "rosa"])).toEqual({ passkeys: 2, totp: false, recovery_codes_left: 10 });

    // Both devices lost: the second step takes a recovery code, and one signs in.
    const { jar, page, verifier } = await startSignIn();
    const login = await postInteraction(server, jar, page, "login", { username: "rosa", password: PASSWORD });
    expect(new URL(login.headers.get("location")!).search).toBe("");
    // (The page's hint, a recovery code rather than the app's code, is tests/oidc/hosted-page-fast-path's.)
    const res = await postInteraction(server, jar, page, "second-factor", { code: recoveryCodes![0]! });
    expect(decodeJwt((await finish(jar, res, verifier)).idToken).amr).toEqual(["pwd", "mfa"]);

    // One passkey removed: the codes stay. The last one (proved with a recovery code) takes them.
    const [laptop, phone] = await listPasskeys(actor.id);
    await removePasskey(actor, laptop!.id, { password: PASSWORD });
    expect(await cliJson(server.databaseUrl, ["users", "mfa", "rosa"])).toEqual({ passkeys: 1, totp: false, recovery_codes_left: 9 });
    await removePasskey(actor, phone!.id, { code: recoveryCodes![1]! });
    expect(await cliJson(server.databaseUrl, ["users", "mfa", "rosa"])).toEqual({ passkeys: 0, totp: false, recovery_codes_left: 0 });
  });
});

describe("passkeys: recovery codes at once", () => {
  it("requests for new recovery codes at the same moment leave one set of ten", async () => {
    const { actor } = await userWithPasskey("twice_tia");
    const { regenerateRecoveryCodes } = await import("../../lib/services/second-factors");
    for (let round = 0; round < 3; round++) {
      const sets = await Promise.all([1, 2, 3].map(() => regenerateRecoveryCodes(actor)));
      const [{ n }] = (await query<{ n: string }>(server.databaseUrl, `SELECT count(*)::text AS n FROM "RecoveryCode" WHERE "userId" = $1`, [actor.id])) as [{ n: string }];
      expect(n).toBe("10");
      expect(sets.every((set) => set.recoveryCodes.length === 10)).toBe(true);
    }
  });
});

describe("passkeys: the hosted sign-in", () => {
  it("the passkey alone signs in (usernameless): amr [hwk, mfa], acr MFA, also after a refresh; last used is kept", async () => {
    const { actor, authenticator } = await userWithPasskey("paula");
    const { jar, page, verifier } = await startSignIn();
    const options = await challengeFor(jar, page);
    // Usernameless: no credentials named, the user verification required.
    expect(options.allowCredentials ?? []).toEqual([]);
    expect(options.userVerification).toBe("required");
    expect(options.rpId).toBe("localhost");
    const { res, error } = await postPasskey(jar, page, authenticator.assert(options));
    expect(error).toBeNull();
    const { idToken, refreshToken } = await finish(jar, res, verifier);
    const claims = decodeJwt(idToken);
    expect(claims.sub).toBeTruthy();
    expect(claims.amr).toEqual(["hwk", "mfa"]);
    expect(claims.acr).toBe(MFA_ACR);
    const refreshed = await refreshTokens(server, clientId, refreshToken);
    expect(decodeJwt(String(refreshed.body.id_token)).amr).toEqual(["hwk", "mfa"]);
    const [row] = await query<{ lastUsedAt: Date | null; signCount: string }>(
      server.databaseUrl,
      `SELECT "lastUsedAt", "signCount"::text FROM "SecondFactor" WHERE "userId" = $1 AND kind = 'passkey'`,
      [actor.id],
    );
    expect(row!.lastUsedAt).not.toBeNull();
    expect(row!.signCount).toBe("1");
  });

  it("a synced passkey (backed up by its provider) is software-held: amr [swk, mfa]", async () => {
    const { authenticator } = await userWithPasskey("sync_sam", { synced: true });
    const { jar, res, error, verifier } = await passkeyOnlySignIn(authenticator);
    expect(error).toBeNull();
    expect(decodeJwt((await finish(jar, res, verifier)).idToken).amr).toEqual(["swk", "mfa"]);
  });

  it("after the password, the account's passkey is the second factor: amr [pwd, hwk, mfa]; another account's passkey is refused", async () => {
    const { authenticator } = await userWithPasskey("petra");
    const stranger = await userWithPasskey("stranger_sid");
    const { jar, page, verifier } = await startSignIn();
    const login = await postInteraction(server, jar, page, "login", { username: "petra", password: PASSWORD });
    // Back to the page without an error: the second step is asked.
    expect(new URL(login.headers.get("location")!).search).toBe("");
    // (The page offering "Use a passkey" is tests/oidc/hosted-page-fast-path's and e2e/passkeys'.)
    const options = await challengeFor(jar, page);
    expect(options.userVerification).toBe("preferred");
    expect(options.allowCredentials?.map((c) => c.id)).toEqual([authenticator.credentials[0]!.id]);
    // The stranger's passkey answering this account's challenge: refused.
    const foreign = await postPasskey(jar, page, stranger.authenticator.assert({ ...options, allowCredentials: [] }, { credentialId: stranger.authenticator.credentials[0]!.id }));
    expect(foreign.error).toBe("passkey_failed");

    const { res, error } = await postPasskey(jar, page, authenticator.assert(await challengeFor(jar, page), { userVerified: false }));
    expect(error).toBeNull();
    const claims = decodeJwt((await finish(jar, res, verifier)).idToken);
    expect(claims.amr).toEqual(["pwd", "hwk", "mfa"]);
    expect(claims.acr).toBe(MFA_ACR);
  });

  it("the passkey alone needs user verification (a key merely touched is one factor): refused without it", async () => {
    const { authenticator } = await userWithPasskey("uvonne");
    const { error } = await passkeyOnlySignIn(authenticator, { userVerified: false });
    expect(error).toBe("passkey_failed");
  });

  it("a challenge is used once: after a refused answer the same challenge signs nobody in, nor does an old interaction's answer", async () => {
    const { authenticator } = await userWithPasskey("chad");
    const { jar, page } = await startSignIn();
    const options = await challengeFor(jar, page);
    expect((await postPasskey(jar, page, authenticator.assert(options, { forgeSignature: true }))).error).toBe("passkey_failed");
    // A right answer to the challenge the refused one used up.
    expect((await postPasskey(jar, page, authenticator.assert(options))).error).toBe("passkey_failed");

    // An answer made for another interaction (a captured one) does not sign in this one.
    const other = await startSignIn();
    const captured = authenticator.assert(await challengeFor(other.jar, other.page));
    await challengeFor(jar, page);
    expect((await postPasskey(jar, page, captured)).error).toBe("passkey_failed");
    // With a fresh challenge the passkey signs in.
    expect((await postPasskey(jar, page, authenticator.assert(await challengeFor(jar, page)))).error).toBeNull();
  });

  it("a counter that does not move forward (a cloned authenticator, a replay) is refused", async () => {
    const { authenticator } = await userWithPasskey("clara");
    expect((await passkeyOnlySignIn(authenticator, { counter: 5 })).error).toBeNull();
    expect((await passkeyOnlySignIn(authenticator, { counter: 5 })).error).toBe("passkey_failed");
    expect((await passkeyOnlySignIn(authenticator, { counter: 3 })).error).toBe("passkey_failed");
    expect((await passkeyOnlySignIn(authenticator, { counter: 6 })).error).toBeNull();
  });

  it("wrong signatures count in the sign-in throttle of the account and address: the sixth try is refused, the right passkey included", async () => {
    const { authenticator } = await userWithPasskey("throttled_theo");
    const { jar, page } = await startSignIn();
    for (let i = 0; i < 5; i++) {
      const { error } = await postPasskey(jar, page, authenticator.assert(await challengeFor(jar, page), { forgeSignature: true }));
      expect(error).toBe("passkey_failed");
    }
    const refused = await postPasskey(jar, page, authenticator.assert(await challengeFor(jar, page)));
    expect(refused.error).toBe("too_many_attempts");
    expect(Number(new URL(refused.res.headers.get("location")!).searchParams.get("retry_at"))).toBeGreaterThan(Date.now() / 1000);
  }, 30_000);

  it("refuses a passkey nobody registered, a broken answer, and a challenge asked from another site", async () => {
    await userWithPasskey("nadia");
    const unknown = new SoftwareAuthenticator(server.url);
    unknown.register({ challenge: "AAAA", rp: { id: "localhost", name: "x" }, user: { id: "OTk5", name: "x", displayName: "x" }, pubKeyCredParams: [{ alg: -7, type: "public-key" }] });
    expect((await passkeyOnlySignIn(unknown)).error).toBe("passkey_failed");

    const { jar, page } = await startSignIn();
    expect((await postPasskey(jar, page, { id: "not a credential" })).error).toBe("passkey_failed");
    const raw = await postInteraction(server, jar, page, "passkey", { response: "{not json" });
    expect(new URL(raw.headers.get("location")!).searchParams.get("error")).toBe("passkey_failed");
    expect((await passkeyOptions(jar, page, "https://evil.example")).status).toBe(403);
  });
});
