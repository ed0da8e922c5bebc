import { generate } from "otplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../helpers/db";
import { createTestUser } from "../helpers/oidc";
import { pointAppAt, startServer, type TestServer } from "../helpers/server";
import { SoftwareAuthenticator } from "../helpers/webauthn";

/**
 * Adding a second factor asks for the password or a current code (lib/services/second-factors.ts
 * checkAccountProof), so that someone holding only a portal session (a stolen cookie, an unlocked
 * computer) cannot put their own authenticator app or passkey on the account. Checked at the
 * service, which the portal's actions call: a missing or wrong proof leaves nothing behind (no
 * pending secret, no registration challenge to finish), and wrong codes count on the account's
 * second-factor limit as at the sign-in.
 */
let server: TestServer;
let closeDb: () => Promise<void>;
const PASSWORD = "correct horse battery";

beforeAll(async () => {
  server = await startServer({ seed: false });
  // The services run here (as the portal's actions do): the same public URL, so the same relying party.
  closeDb = await pointAppAt(server.databaseUrl, { APP_URL: server.url });
});

afterAll(async () => {
  await closeDb?.();
  await server?.stop();
});

async function person(handle: string) {
  const user = await createTestUser(server.databaseUrl, { handle, password: PASSWORD });
  return { kind: "user" as const, id: user.id, handle: user.handle, role: "user" as const, ip: "127.0.0.1" };
}

async function leftovers(userId: number) {
  const [row] = await query<{ factors: number; challenges: number }>(
    server.databaseUrl,
    `SELECT (SELECT count(*)::int FROM "SecondFactor" WHERE "userId" = $1) AS factors,
            (SELECT count(*)::int FROM "WebAuthnChallenge" WHERE key = 'register:' || $1) AS challenges`,
    [userId],
  );
  return row;
}

describe("adding a second factor", () => {
  it("an authenticator app: refused without the password or with a wrong one or a made-up code; set up with the password", async () => {
    const { startTotpEnrolment, confirmTotpEnrolment } = await import("../../lib/services/second-factors");
    const actor = await person("sessionthief");
    for (const proof of [{}, { password: "not the password" }, { code: "123456" }]) {
      await expect(startTotpEnrolment(actor, proof), JSON.stringify(proof)).rejects.toMatchObject({ code: "invalid_request" });
    }
    expect(await leftovers(actor.id)).toEqual({ factors: 0, challenges: 0 });
    const { secret } = await startTotpEnrolment(actor, { password: PASSWORD });
    const { recoveryCodes } = await confirmTotpEnrolment(actor, await generate({ secret }));
    expect(recoveryCodes).toHaveLength(10);
  });

  it("a passkey: refused without a proof; added with a current code of the account's authenticator app", async () => {
    const { startTotpEnrolment, confirmTotpEnrolment } = await import("../../lib/services/second-factors");
    const { startPasskeyRegistration, finishPasskeyRegistration } = await import("../../lib/services/passkeys");
    const actor = await person("passkeypenny");
    const authenticator = new SoftwareAuthenticator(server.url);
    for (const proof of [{}, { password: "not the password" }]) {
      await expect(startPasskeyRegistration(actor, proof), JSON.stringify(proof)).rejects.toMatchObject({ code: "invalid_request" });
    }
    expect(await leftovers(actor.id)).toEqual({ factors: 0, challenges: 0 });

    const { secret } = await startTotpEnrolment(actor, { password: PASSWORD });
    await confirmTotpEnrolment(actor, await generate({ secret }));
    await expect(startPasskeyRegistration(actor, { code: "000000" === (await generate({ secret })) ? "111111" : "000000" })).rejects.toMatchObject({
      code: "invalid_request",
    });
    expect(await leftovers(actor.id)).toEqual({ factors: 1, challenges: 0 });
    const creation = await startPasskeyRegistration(actor, { code: await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 }) });
    const passkey = await finishPasskeyRegistration(actor, { name: "Laptop", response: authenticator.register(creation) as never });
    expect(passkey.name).toBe("Laptop");
  });
});
