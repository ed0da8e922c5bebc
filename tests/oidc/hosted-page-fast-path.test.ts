import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizationEndpoint, CookieJar, createTestApp, createTestUser, jarFetch, pkcePair, postInteraction, type TestApp } from "../helpers/oidc";
import { query } from "../helpers/db";
import { pageAnsweredBy, startServer, type TestServer } from "../helpers/server";

/**
 * Issue 24 (sign-in flow bench case F): the GET of the hosted login and consent page is answered
 * by the server itself (lib/server/hosted-page.ts) with the components Next renders for it
 * (pages/interaction/[uid].tsx). Next's own answer is the reference: the same interaction, fetched
 * once plainly (fast path) and once with a query parameter the fast path leaves to Next, must give
 * the same page: the same document, head, stylesheet, texts and form fields, status and headers.
 * Which path answered is read from the server's counters (GET /metrics): a switched-off fast path
 * fails here, and so does a fast path that answers what it should leave to Next.
 */
const REDIRECT = "http://localhost:9/callback";
const PASSWORD = "hosted page fast path passphrase";

let server: TestServer;
let firstParty: TestApp;
let thirdParty: TestApp;

beforeAll(async () => {
  server = await startServer({ next: true, seed: false });
  firstParty = await createTestApp(server.databaseUrl, { type: "login", scopes: ["svc:chat.read"], redirectUris: [REDIRECT], firstParty: true, name: "First <Party> & Co" });
  thirdParty = await createTestApp(server.databaseUrl, { type: "login", scopes: ["svc:chat.read"], redirectUris: [REDIRECT], name: "Third \"Party\" App" });
  await createTestUser(server.databaseUrl, { handle: "page_pia", password: PASSWORD, displayName: "Pia <Page> & \"Co\"" });
}, 600_000);

afterAll(async () => {
  await server?.stop();
});

/** A new authorization request in a new browser: its jar and its interaction page's URL. */
async function startInteraction(app: TestApp, jar = new CookieJar()): Promise<{ jar: CookieJar; page: string }> {
  const url = new URL(authorizationEndpoint(server));
  url.search = new URLSearchParams({
    client_id: app.clientId,
    response_type: "code",
    redirect_uri: REDIRECT,
    scope: "openid profile",
    state: "st",
    code_challenge: pkcePair().challenge,
    code_challenge_method: "S256",
  }).toString();
  const res = await jarFetch(jar, url.href);
  const location = res.headers.get("location");
  expect(location, `authorize answered ${res.status}`).toMatch(/\/interaction\/[A-Za-z0-9_-]+$/);
  return { jar, page: new URL(location!, server.url).href };
}

interface Page {
  status: number;
  headers: Headers;
  html: string;
}

async function fetchPage(jar: CookieJar, url: string): Promise<Page> {
  const res = await jarFetch(jar, url);
  return { status: res.status, headers: res.headers, html: await res.text() };
}

/** The page once by each path; asserts which path answered each. */
async function bothWays(jar: CookieJar, page: string): Promise<{ fast: Page; next: Page }> {
  const fast = await pageAnsweredBy(server, () => fetchPage(jar, page));
  expect(fast.paths, "the plain GET is answered by the fast path").toEqual({ fast: 1 });
  const viaNext = `${page}${page.includes("?") ? "&" : "?"}via=next`;
  const next = await pageAnsweredBy(server, () => fetchPage(jar, viaNext));
  expect(next.paths, "an unknown parameter leaves the page to Next").toEqual({ next: 1 });
  return { fast: fast.answer, next: next.answer };
}

/** The page with its per-request nonce blanked: everything else must be the same, byte for byte. */
function normalized(html: string): string {
  return html.replace(/ nonce="[^"]*"/g, ' nonce=""').replace(/ data-n-css="[^"]*"/g, ' data-n-css=""');
}

/** The form fields of a page: name, type, value and the form's action. */
function formFields(html: string): string[] {
  return [...html.matchAll(/<(form|input|button)\b[^>]*>/g)].map((m) => m[0]);
}

function texts(html: string): string {
  return html.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").trim();
}

function expectSamePage(fast: Page, next: Page) {
  expect(fast.status).toBe(next.status);
  expect(texts(fast.html)).toBe(texts(next.html));
  expect(formFields(fast.html)).toEqual(formFields(next.html));
  const stylesheets = (html: string) => [...html.matchAll(/<link[^>]*rel="stylesheet"[^>]*href="([^"]+)"/g)].map((m) => m[1]);
  expect(stylesheets(fast.html).length).toBeGreaterThan(0);
  expect(stylesheets(fast.html)).toEqual(stylesheets(next.html));
  expect(normalized(fast.html)).toBe(normalized(next.html));
  for (const name of ["content-type", "cache-control", "x-content-type-options", "referrer-policy", "x-frame-options", "permissions-policy", "cross-origin-opener-policy", "strict-transport-security"]) {
    expect(fast.headers.get(name), name).toBe(next.headers.get(name));
  }
  const csp = (page: Page) => page.headers.get("content-security-policy")?.replace(/'nonce-[^']+'/, "'nonce-'");
  expect(csp(fast)).toBeTruthy();
  expect(csp(fast)).toBe(csp(next));
}

describe("the hosted login page's fast path", () => {
  it("answers the login page as Next does", async () => {
    const { jar, page } = await startInteraction(firstParty);
    const { fast, next } = await bothWays(jar, page);
    expect(fast.status).toBe(200);
    expect(fast.html).toContain(`action="/interaction/${new URL(page).pathname.split("/").pop()}/login"`);
    expectSamePage(fast, next);
  });

  it("answers the login page after a refusal (the error, and the username from its cookie) as Next does", async () => {
    const { jar, page } = await startInteraction(firstParty);
    const refused = await postInteraction(server, jar, page, "login", { username: "@Pia+ü%;x", password: "wrong" });
    expect(refused.status).toBe(303);
    const back = new URL(refused.headers.get("location")!, server.url);
    expect(back.searchParams.get("error")).toBe("invalid_credentials");
    const { fast, next } = await bothWays(jar, back.href);
    expect(fast.html).toContain("Incorrect username or password.");
    expect(fast.html).toContain('value="@Pia+ü%;x"');
    expectSamePage(fast, next);
  });

  it("loads the passkey script on the login page, with the nonce of the page's own CSP (issue 29)", async () => {
    const { jar, page } = await startInteraction(firstParty);
    const { fast, next } = await bothWays(jar, page);
    for (const answer of [fast, next]) {
      const nonce = /'nonce-([^']+)'/.exec(answer.headers.get("content-security-policy") ?? "")?.[1];
      expect(nonce).toBeTruthy();
      expect(answer.html).toContain(`<script src="/hosted/passkey.js" nonce="${nonce}" defer=""></script>`);
      expect(answer.html).toContain('data-passkey="" data-options="/interaction/');
      expect(answer.html.toLowerCase()).toContain('autocomplete="username webauthn"');
    }
  });

  it("answers the second step with the account's passkey offered as Next does (issue 29)", async () => {
    const user = await createTestUser(server.databaseUrl, { handle: "page_paul", password: PASSWORD });
    await query(
      server.databaseUrl,
      `INSERT INTO "SecondFactor" ("userId", kind, name, "credentialId", "publicKey", "signCount", "confirmedAt") VALUES ($1, 'passkey', 'Key', 'page-paul-credential', '\\x00', 0, now())`,
      [user.id],
    );
    const { jar, page } = await startInteraction(firstParty);
    const login = await postInteraction(server, jar, page, "login", { username: "page_paul", password: PASSWORD });
    expect(new URL(login.headers.get("location")!, server.url).pathname).toBe(new URL(page).pathname);
    const { fast, next } = await bothWays(jar, page);
    expect(fast.html).toContain("Use a passkey");
    expect(fast.html).toContain('src="/hosted/passkey.js"');
    // No authenticator app: the code asked for is a recovery code.
    expect(fast.html).toContain("One of your recovery codes (each works once), if you cannot use your passkey.");
    expect(fast.html).not.toContain("authenticator app shows");
    expectSamePage(fast, next);

    // With an authenticator app too, the code is the app's (or a recovery code).
    await query(server.databaseUrl, `INSERT INTO "SecondFactor" ("userId", kind, "confirmedAt") VALUES ($1, 'totp', now())`, [user.id]);
    const again = await startInteraction(firstParty);
    await postInteraction(server, again.jar, again.page, "login", { username: "page_paul", password: PASSWORD });
    const withApp = await bothWays(again.jar, again.page);
    expect(withApp.fast.html).toContain("The 6-digit code your authenticator app shows, or one of your recovery codes (each works once).");
    expectSamePage(withApp.fast, withApp.next);
  });

  it("answers the consent page as Next does", async () => {
    const { jar, page } = await startInteraction(thirdParty);
    const login = await postInteraction(server, jar, page, "login", { username: "page_pia", password: PASSWORD });
    expect(login.status).toBe(303);
    const resumed = await jarFetch(jar, new URL(login.headers.get("location")!, server.url).href);
    const consent = new URL(resumed.headers.get("location")!, server.url);
    expect(consent.pathname).toMatch(/^\/interaction\/[A-Za-z0-9_-]+$/);
    const { fast, next } = await bothWays(jar, consent.href);
    expect(fast.status).toBe(200);
    expect(fast.html).toContain("/consent");
    expectSamePage(fast, next);
  });

  it("leaves the expired page, HEAD and the pages beside it to Next", async () => {
    const { page } = await startInteraction(firstParty);
    // Another browser (no interaction cookie): the expired page, 400, from Next.
    const foreign = await pageAnsweredBy(server, () => fetchPage(new CookieJar(), page));
    expect(foreign.paths).toEqual({ next: 1 });
    expect(foreign.answer.status).toBe(400);
    const head = await pageAnsweredBy(server, () => fetch(page, { method: "HEAD" }));
    expect(head.paths).toEqual({});
    for (const sibling of ["logout", "signed-out", "device"]) {
      const res = await pageAnsweredBy(server, () => fetchPage(new CookieJar(), `${server.url}/interaction/${sibling}`));
      expect(res.paths, sibling).toEqual({});
      expect(res.answer.status, sibling).toBeLessThan(500);
    }
  });
});
