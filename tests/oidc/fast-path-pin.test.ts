import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newDatabase, pointAppAt } from "../helpers/server";

/**
 * The client-credentials fast path (lib/oidc/client-credentials.ts) answers the plain
 * grant with the token oidc-provider would issue, by mirroring a handful of provider settings. This
 * test pins every one of them, so a change to the provider's configuration that the fast path
 * would silently ignore (DPoP or mTLS-bound tokens, extra token claims, per-client lifetimes, token
 * formats, the signing algorithm, the audience, the provider's version) fails here first. When it
 * fails: change the fast path to match (or stop using it for the affected requests), then this list.
 */
let config: import("oidc-provider").Configuration;
let env: typeof import("../../lib/env");
let closeDb: () => Promise<void>;

beforeAll(async () => {
  // The scope hook reads the (unknown) client from a database.
  closeDb = await pointAppAt(await newDatabase({ seed: false }), { ACCESS_TOKEN_TTL: "1234", LOG_LEVEL: "silent" });
  env = await import("../../lib/env");
  const { buildConfiguration } = await import("../../lib/oidc/config");
  config = buildConfiguration({
    jwks: { keys: [] },
    cookieKeys: ["k".repeat(32)],
    dpopNonceSecret: Buffer.alloc(32, 1),
    logoutSource: async () => {},
    postLogoutSuccessSource: async () => {},
  });
});

afterAll(async () => {
  await closeDb?.();
});

describe("settings the client-credentials fast path mirrors", () => {
  it("oidc-provider is the version the fast path (and the compareClientSecret hook) was written against", () => {
    const version = createRequire(import.meta.url)("oidc-provider/package.json").version as string;
    expect(version).toMatch(/^9\.13\./);
  });

  it("the configuration has exactly the keys the fast path was checked against", () => {
    expect(Object.keys(config).sort()).toEqual(
      [
        // Acr_values_supported (the MFA acr); acr and amr ride on the refresh token.
        "acrValues",
        "adapter",
        "allowOmittingSingleRegisteredRedirectUri",
        "claims",
        "clientAuthMethods",
        "clientBasedCORS",
        "clientDefaults",
        "cookies",
        "discovery",
        "enabledJWA",
        "extraClientMetadata",
        "features",
        "findAccount",
        "formats",
        "interactions",
        "issueRefreshToken",
        "jwks",
        "loadExistingGrant",
        "pkce",
        "renderError",
        "responseTypes",
        "rotateRefreshToken",
        "routes",
        "scopes",
        "ttl",
      ].sort(),
    );
    // No extra claims in tokens (the fast path writes a fixed claim set).
    expect(config).not.toHaveProperty("extraTokenClaims");
    // No per-client metadata that could change lifetimes or formats.
    expect(config.extraClientMetadata).toEqual({ properties: [] });
  });

  it("sender-constrained tokens by DPoP only (mTLS off): the fast paths bind them as oidc-provider does (lib/oidc/dpop.ts), its replay check atomic, nonces only with DPOP_NONCE", () => {
    const features = config.features!;
    expect(features.dPoP).toMatchObject({ enabled: true, allowReplay: false, nonceSecret: undefined });
    expect((features.dPoP as { requireNonce(ctx: unknown): boolean }).requireNonce({})).toBe(false);
    expect(config.enabledJWA?.dPoPSigningAlgValues).toEqual(["ES256", "Ed25519", "EdDSA"]);
    expect(features.mTLS?.enabled ?? false).toBe(false);
    expect(Object.keys(features).sort()).toEqual(
      [
        "clientCredentials",
        "deviceFlow",
        "devInteractions",
        "introspection",
        "pushedAuthorizationRequests",
        "resourceIndicators",
        "revocation",
        "rpInitiatedLogout",
        "userinfo",
        "dPoP",
      ].sort(),
    );
  });

  it("client-credentials tokens: JWT (RFC 9068) for the API, ES256, ACCESS_TOKEN_TTL, no per-client lifetime", async () => {
    const { ACCESS_TOKEN_TTL, API_URL } = env.env();
    expect(ACCESS_TOKEN_TTL).toBe(1234);
    expect(config.ttl?.ClientCredentials).toBe(ACCESS_TOKEN_TTL);
    const indicators = config.features!.resourceIndicators!;
    const ctx = { oidc: {} } as never;
    expect(await indicators.defaultResource!(ctx, undefined as never, undefined)).toBe(API_URL);
    const info = await indicators.getResourceServerInfo!(ctx, API_URL, { clientId: "api_unknown_client" } as never);
    expect(info).toEqual({ scope: "", audience: API_URL, accessTokenTTL: ACCESS_TOKEN_TTL, accessTokenFormat: "jwt", jwt: { sign: { alg: "ES256" } } });
  });

  it("the JWT customizer only drops `sub` from app-only tokens (the fast path never writes one)", async () => {
    const customizers = config.formats!.customizers!;
    expect(Object.keys(customizers)).toEqual(["jwt"]);
    const payload = { jti: "j", sub: "api_x", iat: 1, exp: 2, scope: "svc:chat.read", client_id: "api_x", iss: "i", aud: "a" };
    const jwt = { header: undefined, payload: { ...payload } };
    // No clientId on the token: the revocation stamp (config.ts) has nothing to look up.
    await customizers.jwt!(undefined as never, { kind: "ClientCredentials" } as never, jwt as never);
    const { sub: _dropped, ...rest } = payload;
    expect(jwt).toEqual({ header: undefined, payload: rest });
  });
});

/**
 * The refresh fast path (lib/oidc/refresh-grant.ts) rebuilds oidc-provider's answer to a
 * refresh grant (lib/actions/grants/refresh_token.js and helpers/grant_common.js of 9.13): these
 * are the settings it mirrors. tests/oidc/refresh-fast-path.test.ts compares the two answers.
 */
describe("settings the refresh fast path mirrors", () => {
  it("every refresh rotates, and the successor keeps the sign-in's absolute expiry", async () => {
    const rotate = config.rotateRefreshToken as () => boolean;
    expect(typeof rotate).toBe("function");
    expect(rotate()).toBe(true);
    const ttl = config.ttl!.RefreshToken as (ctx: unknown) => number;
    expect(ttl({ oidc: { entities: { RotatedRefreshToken: { remainingTTL: 4321 } } } })).toBe(4321);
    expect(ttl({ oidc: { entities: { RotatedRefreshToken: { remainingTTL: -5 } } } })).toBe(1);
  });

  it("ID tokens: RS256 for every client, ID_TOKEN_TTL, claims by scope as SCOPE_CLAIMS, no conformIdTokenClaims override", async () => {
    const { ID_TOKEN_TTL } = await import("../../lib/oidc/keys");
    const { SCOPE_CLAIMS } = await import("../../lib/oidc/config");
    expect(config.clientDefaults).toMatchObject({ id_token_signed_response_alg: "RS256" });
    expect(config.ttl!.IdToken).toBe(ID_TOKEN_TTL);
    expect(config.claims).toBe(SCOPE_CLAIMS);
    // Acr and amr (how the person signed in) ride with openid; the fast path copies them from the token.
    expect(SCOPE_CLAIMS).toEqual({ openid: ["sub", "acr", "amr"], profile: ["name", "preferred_username", "picture"] });
    expect(config).not.toHaveProperty("conformIdTokenClaims");
  });

  it("the access token of a refresh is for the granted resource, the API", async () => {
    const indicators = config.features!.resourceIndicators!;
    expect(await indicators.useGrantedResource!({ oidc: {} } as never, {} as never)).toBe(true);
  });
});
