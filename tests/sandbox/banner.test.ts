import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliJson } from "../helpers/cli";
import { authorizationEndpoint, CookieJar, createTestApp, jarFetch, pkcePair, postInteraction, type TestApp } from "../helpers/oidc";
import { startServer, type TestServer } from "../helpers/server";
import { portalSignIn } from "../security/portal-client";

/**
 * Issue 26 point 3, the pages (they need Next): a sandbox client's hosted login and consent pages
 * carry a "Sandbox" banner, by both render paths (the server's fast path and Next), and a live
 * client's do not; a test user cannot sign in to the portal (next-auth through its live client).
 * The flows themselves are tests/sandbox/sign-in.test.ts's.
 */
const REDIRECT = "http://localhost:9/callback";

let server: TestServer;
let pending: TestApp;
let live: TestApp;
let sandboxClientId: string;

/** A new authorization request in a new browser (or `jar`'s): the interaction page's URL. */
async function startInteraction(clientId: string, jar = new CookieJar()): Promise<{ jar: CookieJar; page: string; verifier: string }> {
  const { verifier, challenge } = pkcePair();
  const url = new URL(authorizationEndpoint(server));
  url.search = new URLSearchParams({
    client_id: clientId,
    response_type: "code",
    redirect_uri: REDIRECT,
    scope: "openid profile",
    state: "st",
    code_challenge: challenge,
    code_challenge_method: "S256",
  }).toString();
  const res = await jarFetch(jar, url.href);
  const location = res.headers.get("location");
  expect(location, `authorize answered ${res.status}`).toMatch(/\/interaction\/[A-Za-z0-9_-]+$/);
  return { jar, page: new URL(location!, server.url).href, verifier };
}

async function pageHtml(jar: CookieJar, url: string): Promise<{ status: number; html: string }> {
  const res = await jarFetch(jar, url);
  return { status: res.status, html: await res.text() };
}

const BANNER = /data-sandbox-banner=""[^]*?Sandbox/;

beforeAll(async () => {
  server = await startServer({ next: true, seed: true });
  const scopes = ["svc:chat.read"];
  pending = await createTestApp(server.databaseUrl, { type: "login", status: "pending", scopes, redirectUris: [REDIRECT], name: "Pending Pal" });
  live = await createTestApp(server.databaseUrl, { type: "login", scopes, redirectUris: [REDIRECT], name: "Live Pal" });
  sandboxClientId = `sbx_${pending.clientId}`;
}, 900_000);

afterAll(async () => {
  await server?.stop();
});

it("a test user cannot sign in to the portal", async () => {
  const tester = await cliJson<{ handle: string; password: string }>(server.databaseUrl, ["apps", "sandbox", "users", "add", pending.clientId]);
  await expect(portalSignIn(server, tester.handle, tester.password)).rejects.toThrow(/login refused: invalid_credentials/);
});

describe("the hosted pages' Sandbox banner", () => {
  it("is on a sandbox client's login and consent pages, by both render paths, and not on a live client's", async () => {
    const sandboxLogin = await startInteraction(sandboxClientId);
    const fast = await pageHtml(sandboxLogin.jar, sandboxLogin.page);
    expect(fast.status).toBe(200);
    expect(fast.html).toMatch(BANNER);
    const viaNext = await pageHtml(sandboxLogin.jar, `${sandboxLogin.page}?via=next`);
    expect(viaNext.status).toBe(200);
    expect(viaNext.html).toMatch(BANNER);

    const liveLogin = await startInteraction(live.clientId);
    const livePage = await pageHtml(liveLogin.jar, liveLogin.page);
    expect(livePage.status).toBe(200);
    expect(livePage.html).toContain("Live Pal");
    expect(livePage.html).not.toContain("data-sandbox-banner");

    // Signed in as a new test user (no consent remembered yet), the sandbox's consent page: the
    // app's identity, and the banner.
    const newcomer = await cliJson<{ handle: string; password: string }>(server.databaseUrl, ["apps", "sandbox", "users", "add", pending.clientId]);
    const tess = await startInteraction(sandboxClientId);
    const login = await postInteraction(server, tess.jar, tess.page, "login", { username: newcomer.handle, password: newcomer.password });
    let next = login.headers.get("location");
    for (let i = 0; i < 5 && next && !/\/interaction\/[A-Za-z0-9_-]+$/.test(new URL(next, server.url).pathname); i++) {
      next = (await jarFetch(tess.jar, new URL(next, server.url).href)).headers.get("location");
    }
    expect(next).toMatch(/\/interaction\/[A-Za-z0-9_-]+$/);
    const consent = await pageHtml(tess.jar, new URL(next!, server.url).href);
    expect(consent.status, consent.html.slice(0, 300)).toBe(200);
    expect(consent.html).toContain("Allow Pending Pal (sandbox)?");
    expect(consent.html).toMatch(BANNER);
  });
});
