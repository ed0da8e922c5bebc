import { afterAll, beforeAll, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server";
import { CookieJar, createTestApp, createTestUser, jarFetch, pkcePair } from "../helpers/oidc";

/**
 * Behind a TLS-terminating proxy (APP_URL https, TRUST_PROXY on): URLs are built for the public
 * origin, cookies are Secure even though the last hop is plain HTTP, and the login form's Origin
 * check accepts the public origin.
 */
const PUBLIC = "https://platform.example.test";
const ISSUER = `${PUBLIC}/realms/platform`;
const REDIRECT = "https://app.example.test/callback";
let server: TestServer;

beforeAll(async () => {
  server = await startServer({ seed: false, env: { APP_URL: PUBLIC, TRUST_PROXY: "true" } });
});

afterAll(async () => {
  await server?.stop();
});

const forwarded = { "x-forwarded-proto": "https", "x-forwarded-host": "platform.example.test", "x-forwarded-for": "203.0.113.7" };
/** The public URL as the proxy sees it, sent to the local port. */
const local = (publicUrl: string) => publicUrl.replace(PUBLIC, server.url);

it("discovery, redirects and cookies use the public https origin", async () => {
  const doc = (await (await fetch(`${server.url}/realms/platform/.well-known/openid-configuration`, { headers: forwarded })).json()) as Record<
    string,
    string
  >;
  expect(doc.issuer).toBe(ISSUER);
  expect(doc.authorization_endpoint).toBe(`${ISSUER}/protocol/openid-connect/auth`);

  await createTestUser(server.databaseUrl, { handle: "prox", password: "proxy-password" });
  const app = await createTestApp(server.databaseUrl, { type: "login", redirectUris: [REDIRECT], firstParty: true });
  const jar = new CookieJar();
  const auth = new URL(`${server.url}/realms/platform/protocol/openid-connect/auth`);
  auth.search = new URLSearchParams({
    client_id: app.clientId,
    response_type: "code",
    redirect_uri: REDIRECT,
    scope: "openid",
    state: "s1",
    code_challenge: pkcePair().challenge,
    code_challenge_method: "S256",
  }).toString();
  let res = await jarFetch(jar, auth.href, { headers: forwarded });
  expect(res.status).toBe(303);
  const page = res.headers.get("location")!;
  expect(page.startsWith(`${PUBLIC}/interaction/`)).toBe(true);
  for (const cookie of res.headers.getSetCookie()) expect(cookie, cookie.split("=")[0]).toMatch(/;\s*secure/i);

  const wrong = await jarFetch(jar, `${local(page)}/login`, {
    method: "POST",
    headers: { ...forwarded, "content-type": "application/x-www-form-urlencoded", origin: PUBLIC },
    body: new URLSearchParams({ username: "prox", password: "wrong" }),
  });
  expect(new URL(wrong.headers.get("location")!).searchParams.get("error")).toBe("invalid_credentials");
  // The failed-login throttle counts the client address the proxy forwarded, not the proxy's.
  const { query } = await import("../helpers/db");
  const keys = (await query<{ key: string }>(server.databaseUrl, `SELECT key FROM "RateLimit" ORDER BY key`)).map((r) => r.key);
  expect(keys).toEqual(["login:account:prox", "login:ip:203.0.113.7", "login:pair:203.0.113.7|prox"]);

  res = await jarFetch(jar, `${local(page)}/login`, {
    method: "POST",
    headers: { ...forwarded, "content-type": "application/x-www-form-urlencoded", origin: PUBLIC },
    body: new URLSearchParams({ username: "prox", password: "proxy-password" }),
  });
  expect(res.status).toBe(303);
  const resume = res.headers.get("location")!;
  expect(resume.startsWith(`${ISSUER}/protocol/openid-connect/auth/`)).toBe(true);
  res = await jarFetch(jar, local(resume), { headers: forwarded });
  expect(res.status).toBe(303);
  const callback = new URL(res.headers.get("location")!);
  expect(callback.origin + callback.pathname).toBe(REDIRECT);
  expect(callback.searchParams.get("iss")).toBe(ISSUER);
  expect(callback.searchParams.get("code")).toBeTruthy();
  const session = res.headers.getSetCookie().find((c) => c.startsWith("_session="))!;
  expect(session).toMatch(/;\s*secure/i);
});

it("TRUST_PROXY as a list: only a listed peer may set X-Forwarded-*; any other is taken at its socket address", async () => {
  const { query } = await import("../helpers/db");
  const discover = async (target: TestServer) =>
    (await (await fetch(`${target.url}/realms/platform/.well-known/openid-configuration`, { headers: forwarded })).json()) as Record<string, string>;
  // The test connects from loopback: listed (127.0.0.1 and ::1), the forwarded headers count.
  const listed = await startServer({ seed: false, env: { TRUST_PROXY: "127.0.0.1, ::1" } });
  // Not listed: the same headers are ignored.
  const unlisted = await startServer({ seed: false, databaseUrl: listed.databaseUrl, env: { TRUST_PROXY: "10.0.0.0/8, fd00::/8" } });
  try {
    expect((await discover(listed)).token_endpoint).toBe("https://platform.example.test/realms/platform/protocol/openid-connect/token");
    expect((await discover(unlisted)).token_endpoint).toBe(`${unlisted.url}/realms/platform/protocol/openid-connect/token`);

    await createTestUser(listed.databaseUrl, { handle: "lister", password: "proxy-password" });
    const app = await createTestApp(listed.databaseUrl, { type: "login", redirectUris: [REDIRECT] });
    for (const target of [listed, unlisted]) {
      const jar = new CookieJar();
      const auth = new URL(`${target.url}/realms/platform/protocol/openid-connect/auth`);
      auth.search = new URLSearchParams({
        client_id: app.clientId,
        response_type: "code",
        redirect_uri: REDIRECT,
        scope: "openid",
        code_challenge: pkcePair().challenge,
        code_challenge_method: "S256",
      }).toString();
      const res = await jarFetch(jar, auth.href);
      expect(res.status).toBe(303);
      const page = new URL(res.headers.get("location")!, target.url).href;
      const wrong = await jarFetch(jar, `${page}/login`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: target.url, "x-forwarded-for": "6.6.6.6, 203.0.113.8" },
        body: new URLSearchParams({ username: "lister", password: "wrong" }),
      });
      expect(new URL(wrong.headers.get("location")!, target.url).searchParams.get("error")).toBe("invalid_credentials");
    }
    const keys = (await query<{ key: string }>(listed.databaseUrl, `SELECT key FROM "RateLimit" WHERE key LIKE 'login:ip:%' ORDER BY key`)).map(
      (r) => r.key,
    );
    // Listed peer: the right-most forwarded address (never the spoofed 6.6.6.6); unlisted: the socket's.
    expect(keys).toHaveLength(2);
    expect(keys).toContain("login:ip:203.0.113.8");
    expect(keys.find((k) => k !== "login:ip:203.0.113.8")).toMatch(/^login:ip:(127\.0\.0\.1|::1)$/);
  } finally {
    await unlisted.stop();
    await listed.stop();
  }
});
