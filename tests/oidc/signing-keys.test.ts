import { exportJWK, importJWK, SignJWT, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newDatabase, pointAppAt } from "../helpers/server";

/**
 * Signing keys in the database and the API's local verifier, in-process on a fresh database:
 * keys are generated once, rotation keeps retired keys published, and the verifier refuses every
 * kind of bad token with `invalid_token`.
 */
let keys: typeof import("../../lib/oidc/keys");
let verify: typeof import("../../lib/oidc/verify");
let closeDb: () => Promise<void>;
const ISSUER = "http://localhost:3999/realms/platform";
const API_URL = "http://localhost:3999/api/v1";

beforeAll(async () => {
  closeDb = await pointAppAt(await newDatabase({ seed: false }), { APP_URL: "http://localhost:3999", LOG_LEVEL: "silent" });
  keys = await import("../../lib/oidc/keys");
  verify = await import("../../lib/oidc/verify");
});

afterAll(async () => {
  await closeDb?.();
});

async function signWith(
  kid: string,
  overrides: { header?: Record<string, unknown>; payload?: Record<string, unknown> } = {},
): Promise<string> {
  const all = await keys.listPublishedKeys();
  const key = all.find((k) => k.kid === kid)!;
  const now = Math.floor(Date.now() / 1000);
  const payload = {
    iss: ISSUER,
    aud: API_URL,
    iat: now,
    exp: now + 60,
    client_id: "app_1",
    scope: "svc:chat.read svc:directory.read",
    sub: "42",
    jti: "j1",
    ...overrides.payload,
  };
  return new SignJWT(payload)
    .setProtectedHeader({ alg: key.alg, kid, typ: "at+jwt", ...overrides.header })
    .sign(await importJWK(key.privateJwk, key.alg));
}

describe("signing keys", () => {
  it("generates one ES256 and one RS256 key on first start, and only once", async () => {
    await Promise.all([keys.ensureSigningKeys(), keys.ensureSigningKeys(), keys.ensureSigningKeys()]);
    await keys.ensureSigningKeys();
    const published = await keys.listPublishedKeys();
    expect(published.map((k) => k.alg).sort()).toEqual(["ES256", "RS256"]);
    expect(published.every((k) => k.retiredAt === null)).toBe(true);
    for (const k of published) {
      expect(k.publicJwk).not.toHaveProperty("d");
      expect(k.privateJwk).toHaveProperty("d");
    }
  });

  it("verifies a well-formed access token and returns its claims", async () => {
    const es = (await keys.listPublishedKeys()).find((k) => k.alg === "ES256")!;
    const claims = await verify.verifyAccessToken(await signWith(es.kid));
    expect(claims).toMatchObject({ sub: "42", clientId: "app_1", scopes: ["svc:chat.read", "svc:directory.read"], jti: "j1" });
    expect(claims.exp - claims.iat).toBe(60);
  });

  it("rejects wrong typ, issuer, audience, expiry, alg none, forged and unknown keys", async () => {
    const published = await keys.listPublishedKeys();
    const es = published.find((k) => k.alg === "ES256")!;
    const rs = published.find((k) => k.alg === "RS256")!;
    const now = Math.floor(Date.now() / 1000);
    const bad: string[] = [
      await signWith(es.kid, { header: { typ: "JWT" } }),
      await signWith(es.kid, { payload: { iss: "http://evil.example/realms/platform" } }),
      await signWith(es.kid, { payload: { aud: "some-client" } }),
      await signWith(es.kid, { payload: { exp: now - 1 } }),
      await signWith(es.kid, { payload: { client_id: undefined } }),
      await signWith(es.kid, { payload: { sub: "app_1" } }),
      // An ID-token key must not be accepted for access tokens.
      await signWith(rs.kid),
    ];
    const valid = await signWith(es.kid);
    const [h, p] = valid.split(".");
    bad.push(`${h}.${p}.`); // stripped signature
    const none = Buffer.from(JSON.stringify({ alg: "none", typ: "at+jwt", kid: es.kid })).toString("base64url");
    bad.push(`${none}.${p}.`);
    // Forged: same kid, signed by an attacker's key.
    const attacker = await generateKeyPair("ES256", { extractable: true });
    bad.push(
      await new SignJWT({ client_id: "app_1", scope: "svc:chat.read" })
        .setProtectedHeader({ alg: "ES256", kid: es.kid, typ: "at+jwt" })
        .setIssuer(ISSUER)
        .setAudience(API_URL)
        .setIssuedAt()
        .setExpirationTime("1m")
        .sign(attacker.privateKey),
    );
    bad.push(
      await new SignJWT({ client_id: "app_1" })
        .setProtectedHeader({ alg: "ES256", kid: "unknown-kid", typ: "at+jwt" })
        .setIssuer(ISSUER)
        .setAudience(API_URL)
        .setIssuedAt()
        .setExpirationTime("1m")
        .sign(attacker.privateKey),
    );
    bad.push("not-a-jwt", "", "a.b.c");
    expect(await exportJWK(attacker.publicKey)).toBeTruthy();
    for (const token of bad) {
      await expect(verify.verifyAccessToken(token), token.slice(0, 40)).rejects.toMatchObject({ code: "invalid_token", status: 401 });
    }
  });

  it("rotation: new keys sign, retired keys stay published and verifiable until they expire", async () => {
    const before = await keys.listPublishedKeys();
    const oldEs = before.find((k) => k.alg === "ES256" && k.retiredAt === null)!;
    const oldToken = await signWith(oldEs.kid);
    await verify.verifyAccessToken(oldToken);
    const { retired } = await keys.rotateSigningKeys();
    expect(retired.sort()).toEqual(before.filter((k) => !k.retiredAt).map((k) => k.kid).sort());
    const after = await keys.listPublishedKeys();
    expect(after).toHaveLength(4);
    // Active keys first: oidc-provider signs with the first matching key.
    expect(after.slice(0, 2).every((k) => k.retiredAt === null)).toBe(true);
    const retiredEs = after.find((k) => k.kid === oldEs.kid)!;
    expect(retiredEs.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 3600_000);
    // The verifier still accepts tokens of the retired key.
    verify.clearVerifierCache();
    await expect(verify.verifyAccessToken(oldToken)).resolves.toMatchObject({ clientId: "app_1" });
    const newEs = after.find((k) => k.alg === "ES256" && k.retiredAt === null)!;
    await expect(verify.verifyAccessToken(await signWith(newEs.kid))).resolves.toMatchObject({ clientId: "app_1" });
  });
});
