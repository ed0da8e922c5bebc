import { decodeJwt } from "jose";
import { generate } from "otplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../helpers/db";
import { pointAppAt, startServer, type TestServer } from "../helpers/server";
import {
  authorize,
  authorizationEndpoint,
  CookieJar,
  createTestApp,
  createTestUser,
  exchangeCode,
  jarFetch,
  pkcePair,
  postInteraction,
  refreshTokens,
  signInAndGetTokens,
} from "../helpers/oidc";

/**
 * Part 2: the hosted sign-in asks for the second factor of an account that has one (a
 * TOTP code from otplib here, or a recovery code, each once), wrong codes count in the sign-in
 * throttle, the ID token's `amr`/`acr` say what was used, and `acr_values` asking for
 * urn:social-dev-platform:mfa steps a password-only session up. Through real HTTP, as a browser
 * without JavaScript posts the forms.
 */
let server: TestServer;
let closeDb: () => Promise<void>;
let clientId: string;
const REDIRECT = "http://localhost:9/callback";
const PASSWORD = "correct horse battery";
const MFA_ACR = "urn:social-dev-platform:mfa";

beforeAll(async () => {
  server = await startServer({ seed: false });
  closeDb = await pointAppAt(server.databaseUrl);
  ({ clientId } = await createTestApp(server.databaseUrl, { type: "login", redirectUris: [REDIRECT], firstParty: true, name: "Step Up App" }));
});

afterAll(async () => {
  await closeDb?.();
  await server?.stop();
});

/** Sets up TOTP for a new user the way Account security does (the service), returning its secret and recovery codes. */
async function userWithTotp(handle: string): Promise<{ id: number; secret: string; recoveryCodes: string[] }> {
  const user = await createTestUser(server.databaseUrl, { handle, password: PASSWORD });
  return { id: user.id, ...(await enrol(user)) };
}

async function enrol(user: { id: number; handle: string }): Promise<{ secret: string; recoveryCodes: string[] }> {
  const { startTotpEnrolment, confirmTotpEnrolment } = await import("../../lib/services/second-factors");
  const actor = { kind: "user" as const, id: user.id, handle: user.handle, role: "user" as const };
  const { secret } = await startTotpEnrolment(actor, { password: PASSWORD });
  const { recoveryCodes } = await confirmTotpEnrolment(actor, await generate({ secret }));
  return { secret, recoveryCodes };
}

/** A code the server has not accepted yet: the next time step's (the enrolment used the current one). */
const nextCode = (secret: string) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });

/** Starts a sign-in, posts the right password, and returns where the browser is sent then. */
async function passwordStep(handle: string, jar = new CookieJar()): Promise<{ jar: CookieJar; page: string; back: string; verifier: string }> {
  const { verifier, challenge } = pkcePair();
  const auth = new URL(authorizationEndpoint(server));
  for (const [k, v] of Object.entries({ client_id: clientId, response_type: "code", redirect_uri: REDIRECT, scope: "openid", state: "s1", code_challenge: challenge, code_challenge_method: "S256" })) {
    auth.searchParams.set(k, v);
  }
  const start = await jarFetch(jar, auth.href);
  const page = new URL(start.headers.get("location")!, server.issuer).href;
  const res = await postInteraction(server, jar, page, "login", { username: handle, password: PASSWORD });
  return { jar, page, back: res.headers.get("location") ?? "", verifier };
}

describe("the second factor at the hosted sign-in", () => {
  it("password only: amr is [pwd], no acr", async () => {
    const user = await createTestUser(server.databaseUrl, { handle: "plainpat", password: PASSWORD });
    const tokens = await signInAndGetTokens(server, { handle: user.handle, password: PASSWORD, clientId, redirectUri: REDIRECT });
    const claims = decodeJwt(tokens.id_token);
    expect(claims.amr).toEqual(["pwd"]);
    expect(claims.acr).toBeUndefined();
  });

  it("after the password the sign-in waits for the code (the page is e2e/second-factor.spec.ts's); a wrong code is refused; the right one signs in with amr [pwd, otp, mfa]", async () => {
    const { secret } = await userWithTotp("totptom");
    const { jar, page, back, verifier } = await passwordStep("totptom");
    // Back to the same page, without an error: not signed in yet (the second step is asked).
    expect(new URL(back).pathname).toBe(new URL(page).pathname);
    expect(new URL(back).search).toBe("");

    const wrong = await postInteraction(server, jar, page, "second-factor", { code: "000000" === (await nextCode(secret)) ? "111111" : "000000" });
    expect(new URL(wrong.headers.get("location")!).searchParams.get("error")).toBe("invalid_code");

    const right = await postInteraction(server, jar, page, "second-factor", { code: await nextCode(secret) });
    let res = await jarFetch(jar, new URL(right.headers.get("location")!, server.issuer).href);
    while (res.status === 302 || res.status === 303) {
      const location = new URL(res.headers.get("location")!, server.issuer);
      if (location.href.startsWith(REDIRECT)) {
        const { status, body } = await exchangeCode(server, { clientId, code: location.searchParams.get("code")!, redirectUri: REDIRECT, verifier });
        expect(status).toBe(200);
        const claims = decodeJwt(String(body.id_token));
        expect(claims.amr).toEqual(["pwd", "otp", "mfa"]);
        expect(claims.acr).toBe(MFA_ACR);
        // A refreshed ID token says the same (the refresh fast path carries acr and amr).
        const refreshed = await refreshTokens(server, clientId, String(body.refresh_token));
        expect(refreshed.status).toBe(200);
        expect(decodeJwt(String(refreshed.body.id_token)).amr).toEqual(["pwd", "otp", "mfa"]);
        return;
      }
      res = await jarFetch(jar, location.href);
    }
    throw new Error(`no callback: ${res.status}`);
  });

  it("the same TOTP code is accepted once", async () => {
    const { secret } = await userWithTotp("replayrex");
    const code = await nextCode(secret);
    const first = await signInAndGetTokens(server, { handle: "replayrex", password: PASSWORD, clientId, redirectUri: REDIRECT, secondFactor: async () => code });
    expect(decodeJwt(first.id_token).amr).toEqual(["pwd", "otp", "mfa"]);
    await expect(authorize(server, { handle: "replayrex", password: PASSWORD, clientId, redirectUri: REDIRECT, secondFactor: async () => code })).rejects.toThrow(
      "invalid_code",
    );
  });

  it("a recovery code signs in once, with amr [pwd, mfa]", async () => {
    const { recoveryCodes } = await userWithTotp("recoveryrae");
    const code = recoveryCodes[3]!.toUpperCase();
    const tokens = await signInAndGetTokens(server, { handle: "recoveryrae", password: PASSWORD, clientId, redirectUri: REDIRECT, secondFactor: async () => code });
    const claims = decodeJwt(tokens.id_token);
    expect(claims.amr).toEqual(["pwd", "mfa"]);
    expect(claims.acr).toBe(MFA_ACR);
    await expect(authorize(server, { handle: "recoveryrae", password: PASSWORD, clientId, redirectUri: REDIRECT, secondFactor: async () => code })).rejects.toThrow(
      "invalid_code",
    );
    const [row] = await query<{ left: number }>(server.databaseUrl, `SELECT count(*)::int AS left FROM "RecoveryCode" WHERE "userId" = (SELECT id FROM "User" WHERE handle = 'recoveryrae') AND "usedAt" IS NULL`);
    expect(row!.left).toBe(9);
  });

  it("wrong codes count in the sign-in throttle of the account and address: the sixth try is refused, the right code included", async () => {
    const { secret } = await userWithTotp("throttletess");
    const { jar, page } = await passwordStep("throttletess");
    const right = await nextCode(secret);
    const wrongCode = right === "123456" ? "654321" : "123456";
    for (let i = 0; i < 5; i++) {
      const res = await postInteraction(server, jar, page, "second-factor", { code: wrongCode });
      expect(new URL(res.headers.get("location")!).searchParams.get("error")).toBe("invalid_code");
    }
    const refused = await postInteraction(server, jar, page, "second-factor", { code: right });
    const location = new URL(refused.headers.get("location")!);
    expect(location.searchParams.get("error")).toBe("too_many_attempts");
    expect(Number(location.searchParams.get("retry_at"))).toBeGreaterThan(Date.now() / 1000);
  });

  it("acr_values asking for the second factor steps a password-only session up; without it the session is reused as is", async () => {
    const user = await createTestUser(server.databaseUrl, { handle: "stepupsam", password: PASSWORD });
    // Signed in with the password before the factor was set up: a password-only session.
    const first = await authorize(server, { handle: user.handle, password: PASSWORD, clientId, redirectUri: REDIRECT });
    const { secret } = await enrol(user);

    const reused = await authorize(server, { handle: user.handle, password: "not used", clientId, redirectUri: REDIRECT, jar: first.jar });
    expect(reused.loginShown).toBe(false);
    const plain = await exchangeCode(server, { clientId, code: reused.code!, redirectUri: REDIRECT, verifier: reused.verifier });
    expect(decodeJwt(String(plain.body.id_token)).amr).toEqual(["pwd"]);

    let asked = 0;
    const stepped = await authorize(server, {
      handle: user.handle,
      password: "not used",
      clientId,
      redirectUri: REDIRECT,
      jar: first.jar,
      extraParams: { acr_values: MFA_ACR },
      secondFactor: async () => {
        asked++;
        return nextCode(secret);
      },
    });
    expect(asked).toBe(1);
    expect(stepped.loginShown).toBe(false);
    const { body } = await exchangeCode(server, { clientId, code: stepped.code!, redirectUri: REDIRECT, verifier: stepped.verifier });
    const claims = decodeJwt(String(body.id_token));
    expect(claims.amr).toEqual(["pwd", "otp", "mfa"]);
    expect(claims.acr).toBe(MFA_ACR);

    // The stepped-up session satisfies the next such request without asking again.
    const again = await authorize(server, { handle: user.handle, password: "not used", clientId, redirectUri: REDIRECT, jar: first.jar, extraParams: { acr_values: MFA_ACR } });
    expect(again.code).toBeTruthy();
  });

  it("discovery names the MFA acr value", async () => {
    const doc = (await (await fetch(`${server.issuer}/.well-known/openid-configuration`)).json()) as { acr_values_supported?: string[]; claims_supported?: string[] };
    expect(doc.acr_values_supported).toEqual([MFA_ACR]);
    expect(doc.claims_supported).toEqual(expect.arrayContaining(["acr", "amr"]));
  });
});
