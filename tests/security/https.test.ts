import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findFreePort } from "../../lib/database/embedded";
import { createTestApp } from "../helpers/oidc";
import { startServer, type TestServer } from "../helpers/server";

/**
 * Security headers: with an https APP_URL (TLS ends at a proxy in front of the app) every
 * page and answer carries HSTS, next to the headers every page has anyway. The test talks plain
 * http to the app's port, as the TLS-terminating proxy would (README: Operations, TRUST_PROXY=1).
 */
let server: TestServer;
let publicUrl: string;

beforeAll(async () => {
  const port = await findFreePort();
  publicUrl = `https://localhost:${port}`;
  server = await startServer({ next: true, seed: false, port, env: { APP_URL: publicUrl, TRUST_PROXY: "1" } });
  // A Next build may be running (sources changed): it can take minutes on a busy machine.
}, 600_000);

afterAll(async () => {
  await server?.stop();
});

describe("HSTS when APP_URL is https", () => {
  it("on every kind of answer: portal pages, redirects, hosted pages, sign-in service, API", async () => {
    const issuer = `${server.url}/realms/platform`;
    const urls = [
      `${server.url}/`,
      `${server.url}/docs`,
      `${server.url}/signin`,
      `${server.url}/apps`,
      `${server.url}/no-such-page`,
      `${server.url}/interaction/signed-out`,
      `${issuer}/.well-known/openid-configuration`,
      `${issuer}/protocol/openid-connect/auth?client_id=app_unknown&response_type=code`,
      `${server.url}/api/v1/users/nobody`,
      `${server.url}/healthz`,
    ];
    for (const url of urls) {
      const res = await fetch(url, { redirect: "manual" });
      expect(res.status, url).toBeLessThan(500);
      const hsts = res.headers.get("strict-transport-security") ?? "";
      expect(hsts, url).toMatch(/max-age=\d{8,}/);
      expect(hsts, url).toContain("includeSubDomains");
      expect(res.headers.get("x-content-type-options"), url).toBe("nosniff");
      expect(res.headers.get("content-security-policy"), url).toContain("frame-ancestors 'none'");
    }
  });

  it("on answers the server writes itself: the token endpoint's fast path, the hosted form posts, API errors", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "api", scopes: ["svc:chat.read"] });
    const token = (path: string, body: Record<string, string>) =>
      fetch(`${server.url}/realms/platform${path}`, { method: "POST", body: new URLSearchParams(body) });
    const answers = {
      "client-credentials grant (fast path)": await token("/protocol/openid-connect/token", {
        grant_type: "client_credentials",
        client_id: app.clientId,
        client_secret: app.clientSecret!,
      }),
      "wrong secret (oidc-provider)": await token("/protocol/openid-connect/token", {
        grant_type: "client_credentials",
        client_id: app.clientId,
        client_secret: "wrong",
      }),
      "hosted form post, unknown interaction": await fetch(`${server.url}/interaction/nosuchuid/login`, {
        method: "POST",
        body: new URLSearchParams({ username: "x", password: "y" }),
        redirect: "manual",
      }),
      "API without a token": await fetch(`${server.url}/api/v1/global-chat/messages`),
      "API body too large": await fetch(`${server.url}/api/v1/global-chat/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer x" },
        body: JSON.stringify({ text: "x".repeat(2_000_000) }),
      }),
    };
    expect(answers["client-credentials grant (fast path)"].status).toBe(200);
    for (const [what, res] of Object.entries(answers)) {
      expect(res.headers.get("strict-transport-security") ?? "", what).toMatch(/max-age=\d{8,}/);
      expect(res.headers.get("x-content-type-options"), what).toBe("nosniff");
      expect(res.headers.get("content-security-policy"), what).toContain("frame-ancestors 'none'");
      expect(res.headers.get("cross-origin-opener-policy"), what).toBe("same-origin");
    }
  });

  it("behind the TLS proxy (TRUST_PROXY=1), the sign-in service announces the public https origin", async () => {
    const res = await fetch(`${server.url}/realms/platform/.well-known/openid-configuration`, {
      headers: { "x-forwarded-proto": "https", "x-forwarded-host": new URL(publicUrl).host },
    });
    const doc = (await res.json()) as { issuer: string; authorization_endpoint: string };
    expect(doc.issuer).toBe(`${publicUrl}/realms/platform`);
    expect(doc.authorization_endpoint.startsWith(`${publicUrl}/`)).toBe(true);
  });
});
