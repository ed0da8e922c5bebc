import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server";

/**
 * SPEC Authentication (endpoint table, discovery), PRODUCT "Sign-in service" (Keycloak-style paths,
 * certs/userinfo/introspect/revoke listed, RFC 9207), and the proxy rule of the issue: behind a
 * trusted proxy, X-Forwarded-* build the right URLs.
 */
let server: TestServer;

beforeAll(async () => {
  server = await startServer({ seed: false, env: { TRUST_PROXY: "1" } });
});

afterAll(async () => {
  await server?.stop();
});

describe("discovery", () => {
  it("lists every endpoint at its Keycloak-style path", async () => {
    const res = await fetch(`${server.issuer}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const doc = (await res.json()) as Record<string, unknown>;
    const base = `${server.issuer}/protocol/openid-connect`;
    expect(doc).toMatchObject({
      issuer: server.issuer,
      authorization_endpoint: `${base}/auth`,
      token_endpoint: `${base}/token`,
      end_session_endpoint: `${base}/logout`,
      jwks_uri: `${base}/certs`,
      userinfo_endpoint: `${base}/userinfo`,
      introspection_endpoint: `${base}/token/introspect`,
      revocation_endpoint: `${base}/revoke`,
      device_authorization_endpoint: `${base}/auth/device`,
      authorization_response_iss_parameter_supported: true,
      code_challenge_methods_supported: ["S256"],
      response_types_supported: ["code"],
    });
    expect((doc.grant_types_supported as string[]).sort()).toEqual([
      "authorization_code",
      "client_credentials",
      "refresh_token",
      "urn:ietf:params:oauth:grant-type:device_code",
    ]);
    expect((doc.token_endpoint_auth_methods_supported as string[]).sort()).toEqual([
      "client_secret_basic",
      "client_secret_post",
      "none",
      "private_key_jwt",
    ]);
    expect(doc.scopes_supported).toEqual(
      expect.arrayContaining(["openid", "profile", "offline_access", "svc:chat.read", "svc:directory.read", "svc:pokes.write"]),
    );
    // The hosted pages' languages, chosen by ui_locales (lib/i18n).
    expect(doc.ui_locales_supported).toEqual(["en", "de", "es", "fr"]);
  });

  it("publishes public signing keys only: ES256 for access tokens, RS256 for ID tokens", async () => {
    const res = await fetch(`${server.issuer}/protocol/openid-connect/certs`);
    expect(res.status).toBe(200);
    const { keys } = (await res.json()) as { keys: Record<string, unknown>[] };
    expect(keys.map((k) => k.alg).sort()).toEqual(["ES256", "RS256"]);
    for (const key of keys) {
      expect(key.kid).toEqual(expect.any(String));
      expect(key.use).toBe("sig");
      for (const secret of ["d", "p", "q", "dp", "dq", "qi"]) expect(key).not.toHaveProperty(secret);
    }
  });

  it("an unknown path under the issuer is a JSON 404", async () => {
    const res = await fetch(`${server.issuer}/protocol/openid-connect/nope`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: "not_found" });
  });

  it("behind a trusted proxy, X-Forwarded-Proto and X-Forwarded-Host shape the URLs", async () => {
    const res = await fetch(`${server.issuer}/.well-known/openid-configuration`, {
      headers: { "x-forwarded-proto": "https", "x-forwarded-host": "login.example.com" },
    });
    const doc = (await res.json()) as Record<string, string>;
    // The issuer is configuration (ISSUER), endpoints follow the request as the proxy forwarded it.
    expect(doc.issuer).toBe(server.issuer);
    expect(doc.token_endpoint).toBe("https://login.example.com/realms/platform/protocol/openid-connect/token");
  });
});
