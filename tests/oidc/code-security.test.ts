import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../helpers/db";
import { startServer, type TestServer } from "../helpers/server";
import {
  authorizationEndpoint,
  authorize,
  createTestApp,
  createTestUser,
  exchangeCode,
  pkcePair,
  refreshTokens,
} from "../helpers/oidc";

/**
 * SPEC States "Authorization code" and Errors (code exchange → invalid_grant), Authentication step 1
 * (redirect_uri verbatim or an error page), PRODUCT (PKCE S256 required, plain and missing refused,
 * a replayed code revokes what it issued), the "concurrent redemption of one code".
 */
let server: TestServer;
const REDIRECT = "http://localhost:9/callback";
const PASSWORD = "pkce-test-password";
let clientId: string;

beforeAll(async () => {
  server = await startServer({ seed: false });
  await createTestUser(server.databaseUrl, { handle: "pat", password: PASSWORD });
  ({ clientId } = await createTestApp(server.databaseUrl, {
    type: "login",
    scopes: ["svc:chat.read"],
    redirectUris: [REDIRECT, "http://localhost:9/other"],
    firstParty: true,
  }));
});

afterAll(async () => {
  await server?.stop();
});

const getCode = () => authorize(server, { handle: "pat", password: PASSWORD, clientId, redirectUri: REDIRECT });

function authUrl(params: Record<string, string | undefined>): string {
  const url = new URL(authorizationEndpoint(server));
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.href;
}

describe("code exchange", () => {
  it("a replayed code is invalid_grant and revokes the tokens the first exchange issued", async () => {
    const flow = await getCode();
    const first = await exchangeCode(server, { clientId, code: flow.code!, redirectUri: REDIRECT, verifier: flow.verifier });
    expect(first.status).toBe(200);
    const replay = await exchangeCode(server, { clientId, code: flow.code!, redirectUri: REDIRECT, verifier: flow.verifier });
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe("invalid_grant");
    // The refresh token from the first exchange is gone with its grant.
    const refreshed = await refreshTokens(server, clientId, String(first.body.refresh_token));
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe("invalid_grant");
  });

  it("a wrong or missing code_verifier is invalid_grant", async () => {
    const wrong = await getCode();
    const res = await exchangeCode(server, { clientId, code: wrong.code!, redirectUri: REDIRECT, verifier: pkcePair().verifier });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_grant");

    const missing = await getCode();
    const res2 = await exchangeCode(server, { clientId, code: missing.code!, redirectUri: REDIRECT });
    expect(res2.status).toBe(400);
    expect(res2.body.error).toBe("invalid_grant");
  });

  it("a redirect_uri different from the authorization request's is invalid_grant (even if registered)", async () => {
    const flow = await getCode();
    const res = await exchangeCode(server, { clientId, code: flow.code!, redirectUri: "http://localhost:9/other", verifier: flow.verifier });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_grant");
  });

  it("a code is bound to its client", async () => {
    const other = await createTestApp(server.databaseUrl, { type: "login", redirectUris: [REDIRECT] });
    const flow = await getCode();
    const res = await exchangeCode(server, { clientId: other.clientId, code: flow.code!, redirectUri: REDIRECT, verifier: flow.verifier });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_grant");
  });

  it("concurrent redemption of one code: exactly one succeeds", async () => {
    for (let round = 0; round < 3; round++) {
      const flow = await getCode();
      const results = await Promise.all(
        Array.from({ length: 8 }, () => exchangeCode(server, { clientId, code: flow.code!, redirectUri: REDIRECT, verifier: flow.verifier })),
      );
      const ok = results.filter((r) => r.status === 200);
      expect(ok, `round ${round}`).toHaveLength(1);
      for (const r of results.filter((x) => x.status !== 200)) {
        expect(r.status).toBe(400);
        expect(r.body.error).toBe("invalid_grant");
      }
    }
  });

  it("an expired code is invalid_grant (codes live 60 s)", async () => {
    const flow = await getCode();
    // Codes are stored under the SHA-256 of the code (lib/oidc/adapter.ts), never in plain text.
    const key = `sha256:${createHash("sha256").update(flow.code!).digest("base64url")}`;
    const [row] = await query<{ lifetime: number }>(
      server.databaseUrl,
      `SELECT extract(epoch FROM "expiresAt" - timezone('UTC', now()))::float8 AS lifetime
       FROM "OidcModel" WHERE kind = 'AuthorizationCode' AND id = $1`,
      [key],
    );
    expect(row, "the code's row").toBeDefined();
    expect(row!.lifetime).toBeGreaterThan(0);
    expect(row!.lifetime).toBeLessThanOrEqual(60);
    // Its 60 seconds pass.
    const moved = await query(
      server.databaseUrl,
      `UPDATE "OidcModel" SET "expiresAt" = timezone('UTC', now()) - interval '1 second'
       WHERE kind = 'AuthorizationCode' AND id = $1 RETURNING id`,
      [key],
    );
    expect(moved).toHaveLength(1);
    const res = await exchangeCode(server, { clientId, code: flow.code!, redirectUri: REDIRECT, verifier: flow.verifier });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_grant");
    expect(res.body).not.toHaveProperty("access_token");

    // The positive control: an unexpired code of the same flow works.
    const fresh = await getCode();
    const ok = await exchangeCode(server, { clientId, code: fresh.code!, redirectUri: REDIRECT, verifier: fresh.verifier });
    expect(ok.status).toBe(200);
  });

  it("an unknown or garbage code is invalid_grant", async () => {
    const res = await exchangeCode(server, { clientId, code: "not-a-code", redirectUri: REDIRECT, verifier: pkcePair().verifier });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_grant");
  });
});

describe("authorization request", () => {
  const pkce = pkcePair();
  const base = {
    client_id: "",
    response_type: "code",
    redirect_uri: REDIRECT,
    scope: "openid",
    state: "st4te",
    code_challenge: pkce.challenge,
    code_challenge_method: "S256",
  };

  it("an unregistered redirect_uri gets an error page, never a redirect", async () => {
    for (const redirect of ["https://evil.example/cb", `${REDIRECT}/`, `${REDIRECT}?x=1`, REDIRECT.toUpperCase()]) {
      const res = await fetch(authUrl({ ...base, client_id: clientId, redirect_uri: redirect }), { redirect: "manual" });
      expect(res.status, redirect).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(res.headers.get("content-type")).toContain("text/html");
      const html = await res.text();
      expect(html).toContain("invalid_redirect_uri");
      expect(html).not.toContain("evil.example/cb\"");
    }
  });

  it("unknown, pending, rejected and suspended clients get an error page, never a redirect", async () => {
    const ids = ["app_unknown_client"];
    for (const status of ["pending", "rejected", "suspended"] as const) {
      ids.push((await createTestApp(server.databaseUrl, { type: "login", redirectUris: [REDIRECT], status })).clientId);
    }
    for (const id of ids) {
      const res = await fetch(authUrl({ ...base, client_id: id }), { redirect: "manual" });
      expect(res.status, id).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(await res.text()).toContain("invalid_client");
    }
  });

  it("PKCE is required, and plain is refused (errors go back to the registered redirect_uri with state)", async () => {
    const cases = [
      { code_challenge: undefined, code_challenge_method: undefined },
      { code_challenge: pkce.verifier, code_challenge_method: "plain" },
      { code_challenge: undefined, code_challenge_method: "S256" },
    ];
    for (const c of cases) {
      const res = await fetch(authUrl({ ...base, client_id: clientId, ...c }), { redirect: "manual" });
      expect(res.status, JSON.stringify(c)).toBe(303);
      const location = new URL(res.headers.get("location")!);
      expect(location.origin + location.pathname).toBe(REDIRECT);
      expect(location.searchParams.get("error")).toBe("invalid_request");
      expect(location.searchParams.get("error_description")).toBeTruthy();
      expect(location.searchParams.get("state")).toBe("st4te");
      expect(location.searchParams.get("iss")).toBe(server.issuer);
      expect(location.searchParams.get("code")).toBeNull();
    }
  });

  it("only response_type=code is supported", async () => {
    const res = await fetch(authUrl({ ...base, client_id: clientId, response_type: "token" }), { redirect: "manual" });
    const location = new URL(res.headers.get("location")!);
    expect(location.origin + location.pathname).toBe(REDIRECT);
    // An implicit-style request gets its error in the fragment (its default response mode).
    const answer = new URLSearchParams(location.hash.slice(1) || location.search);
    expect(answer.get("error")).toBe("unsupported_response_type");
  });

  it("a missing redirect_uri is refused even with one registered URI", async () => {
    const single = await createTestApp(server.databaseUrl, { type: "login", redirectUris: [REDIRECT] });
    const res = await fetch(authUrl({ ...base, client_id: single.clientId, redirect_uri: undefined }), { redirect: "manual" });
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
  });
});

describe("storage", () => {
  it("codes and grants are stored with their client id (so deleting an app can revoke everything)", async () => {
    const flow = await getCode();
    const rows = await query<{ kind: string; clientId: string | null; consumedAt: Date | null }>(
      server.databaseUrl,
      `SELECT kind, "clientId", "consumedAt" FROM "OidcModel" WHERE kind IN ('AuthorizationCode', 'Grant') AND "clientId" = $1`,
      [clientId],
    );
    expect(rows.some((r) => r.kind === "AuthorizationCode")).toBe(true);
    expect(rows.some((r) => r.kind === "Grant")).toBe(true);
    await exchangeCode(server, { clientId, code: flow.code!, redirectUri: REDIRECT, verifier: flow.verifier });
  });
});
