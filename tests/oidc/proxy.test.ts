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
  expect(keys).toEqual(["login:account:prox", "login:ip:203.0.113.7"]);

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
