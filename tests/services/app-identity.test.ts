import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { DEMO_ACCOUNTS } from "../../lib/seed/demo-accounts";
import { query } from "../helpers/db";
import { cliJson, runCli } from "../helpers/cli";
import { animatedLogo, hostileLogo, makeLogo, pngBomb } from "../helpers/images";
import { authorize, authorizationEndpoint, CookieJar, createTestApp, jarFetch, pkcePair, postInteraction } from "../helpers/oidc";
import { startServer, type TestServer } from "../helpers/server";
import { callServerAction, portalSignIn, serverActions, type ServerAction } from "../security/portal-client";

/**
 * Issue 15, "a consent page people can trust", through real HTTP, the portal's server actions and
 * the CLI: https-only links; logos checked by magic bytes and by decoding (an HTML page or an SVG
 * renamed .png is refused), stored in the database and served from our origin under a content
 * hash with nosniff and a year of immutable caching; on an approved app, new links and a new logo
 * wait for `apps changes approve` and the consent page keeps the approved ones until then; the
 * consent page says "first time" or "now asks for more".
 */
vi.setConfig({ testTimeout: 120_000 });

let server: TestServer;
let actions: Record<string, ServerAction>;
const dir = mkdtempSync(path.join(tmpdir(), "logos-"));
const password = (handle: string) => DEMO_ACCOUNTS.find((a) => a.handle === handle)!.password;
const REDIRECT = "http://localhost:9/callback";

beforeAll(async () => {
  server = await startServer({ next: true, seed: true });
  actions = serverActions();
}, 900_000);

afterAll(async () => {
  await server?.stop();
});

interface AppJson {
  client_id: string;
  status: string;
  homepage_url: string | null;
  privacy_policy_url: string | null;
  terms_url: string | null;
  logo_url: string | null;
  pending_change: null | Record<string, unknown>;
}

async function file(name: string, bytes: Buffer): Promise<string> {
  const target = path.join(dir, name);
  writeFileSync(target, bytes);
  return target;
}

const cliFail = async (args: string[]) => {
  const run = await runCli(server.databaseUrl, [...args, "--json"]);
  expect(run.code, run.stdout).not.toBe(0);
  return { code: run.code, error: (JSON.parse(run.stderr.trim().split("\n").pop()!) as { error: { code: string; message: string } }).error };
};

/** Portal sessions, signed in once per file (the sign-in flow is not what these tests are about). */
const sessions = new Map<string, Promise<CookieJar>>();
function session(handle: string): Promise<CookieJar> {
  let jar = sessions.get(handle);
  if (!jar) {
    jar = portalSignIn(server, handle, password(handle)).then((s) => s.jar);
    sessions.set(handle, jar);
  }
  return jar;
}

/** A URL the CLI printed (on its own APP_URL), on the test server. */
const onServer = (url: unknown) => `${server.url}${new URL(String(url)).pathname}`;
/** A page's text without React's text-joining comments. */
const plain = (html: string) => html.replaceAll("<!-- -->", "");

const createArgs = (name: string) => ["apps", "create", "--name", name, "--type", "api", "--owner", "alice"];

/** `apps create` (its JSON keeps PRODUCT.md's shape, plus issue 26's sandbox), then `apps show` for the links and logo. */
async function createApp(args: string[]): Promise<AppJson> {
  const created = await cliJson<{ client_id: string; status: string }>(server.databaseUrl, args);
  expect(Object.keys(created).sort()).toEqual(["client_id", "sandbox", "status"]);
  return cliJson<AppJson>(server.databaseUrl, ["apps", "show", created.client_id]);
}

describe("links", () => {
  it("must be https: http:// is refused by the CLI (naming the flag) and by the portal's server action", async () => {
    const refused = await cliFail([...createArgs("Plain http"), "--homepage-url", "http://example.com/"]);
    expect(refused.code).toBe(2);
    expect(refused.error.message).toBe("--homepage-url: must use https://");
    const app = await createApp([
      ...createArgs("Linked"),
      "--homepage-url", "https://linked.example/",
      "--privacy-url", "https://linked.example/privacy",
      "--terms-url", "https://linked.example/terms",
    ]);
    expect(app).toMatchObject({
      homepage_url: "https://linked.example/",
      privacy_policy_url: "https://linked.example/privacy",
      terms_url: "https://linked.example/terms",
      logo_url: null,
    });
    expect((await cliFail(["apps", "update", app.client_id, "--terms-url", "javascript:alert(1)"])).error.message).toMatch(/^--terms-url: must use https/);
    // An empty value clears a link (a pending app applies at once).
    const cleared = await cliJson<AppJson>(server.databaseUrl, ["apps", "update", app.client_id, "--terms-url", ""]);
    expect(cleared.terms_url).toBeNull();

    // The portal: alice's own app, through the real server action over HTTP.
    const alice = await portalSignIn(server, "alice", password("alice"));
    const update = actions.updateAppAction!;
    const bad = await callServerAction(server, alice.jar, update, [app.client_id, { privacyPolicyUrl: "http://linked.example/privacy" }]);
    expect(bad.result).toMatchObject({ ok: false, error: { code: "invalid_request" } });
    expect(JSON.stringify(bad.result)).toContain("must use https://");
    const good = await callServerAction(server, alice.jar, update, [app.client_id, { privacyPolicyUrl: "https://linked.example/p2" }]);
    expect(good.result).toMatchObject({ ok: true });
    const [row] = await query<{ privacyPolicyUrl: string }>(server.databaseUrl, `SELECT "privacyPolicyUrl" FROM "Application" WHERE "clientId" = $1`, [app.client_id]);
    expect(row!.privacyPolicyUrl).toBe("https://linked.example/p2");

    // The form's "Remove logo" (logo: null) through the same action; bytes that are no image are refused.
    const withLogo = await cliJson<AppJson>(server.databaseUrl, ["apps", "update", app.client_id, "--logo", await file("l.png", await makeLogo("png"))]);
    expect(withLogo.logo_url).not.toBeNull();
    expect((await callServerAction(server, alice.jar, update, [app.client_id, { logo: null }])).result).toMatchObject({ ok: true });
    expect((await cliJson<AppJson>(server.databaseUrl, ["apps", "list"]) as unknown as { apps: AppJson[] }).apps.find((a) => a.client_id === app.client_id)?.logo_url).toBeNull();
    expect((await fetch(onServer(withLogo.logo_url))).status).toBe(404);
    const notBytes = await callServerAction(server, alice.jar, update, [app.client_id, { logo: "PHN2Zz48L3N2Zz4=" }]);
    expect(notBytes.result).toMatchObject({ ok: false, error: { code: "invalid_request" } });
  });
});

describe("logos", () => {
  it.each([
    ["png", "png", "image/png"],
    ["jpeg", "jpg", "image/jpeg"],
    ["webp", "webp", "image/webp"],
  ] as const)("a %s is accepted and served from our origin under its content hash", async (format, ext, type) => {
    const bytes = await makeLogo(format, { width: 200, height: 160 });
    const app = await createApp([...createArgs(`Logo ${format}`), "--logo", await file(`logo.${ext}`, bytes)]);
    const hash = createHash("sha256").update(bytes).digest("hex").slice(0, 16);
    // The CLI names the URL on its APP_URL; the path is what matters here.
    expect(new URL(app.logo_url!).pathname).toBe(`/media/logos/${app.client_id}/${hash}.${ext}`);
    // Published once the app is approved (before that: the next test).
    await cliJson(server.databaseUrl, ["apps", "approve", app.client_id]);
    const res = await fetch(onServer(app.logo_url));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(type);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it("an unapproved app's logo is served only to its team and admins, privately; approval publishes it, suspension withdraws it", async () => {
    const app = await createApp([...createArgs("Not yet approved"), "--logo", await file("pending.png", await makeLogo("png", { color: "#ea580c" }))]);
    expect(app.status).toBe("pending");
    const url = onServer(app.logo_url);
    const anonymous = await fetch(url);
    expect(anonymous.status).toBe(404);
    expect(anonymous.headers.get("cache-control")).toBe("no-store");
    for (const handle of ["alice", "admin"]) {
      const res = await jarFetch(await session(handle), url);
      expect(res.status, handle).toBe(200);
      expect(res.headers.get("cache-control"), handle).toBe("private, no-store");
      expect(res.headers.get("content-type"), handle).toBe("image/png");
    }
    expect((await jarFetch(await session("carol"), url)).status).toBe(404);

    await cliJson(server.databaseUrl, ["apps", "approve", app.client_id]);
    const approved = await fetch(url);
    expect(approved.status).toBe(200);
    expect(approved.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");

    await cliJson(server.databaseUrl, ["apps", "suspend", app.client_id, "--reason", "Under investigation"]);
    expect((await fetch(url)).status).toBe(404);
    const owner = await jarFetch(await session("alice"), url);
    expect(owner.status).toBe(200);
    expect(owner.headers.get("cache-control")).toBe("private, no-store");

    // Rejected: the same as pending.
    const rejected = await createApp([...createArgs("Refused app"), "--logo", await file("refused.png", await makeLogo("png", { color: "#0891b2" }))]);
    await cliJson(server.databaseUrl, ["apps", "reject", rejected.client_id, "--reason", "Not a real product"]);
    expect((await fetch(onServer(rejected.logo_url))).status).toBe(404);
    expect((await jarFetch(await session("admin"), onServer(rejected.logo_url))).status).toBe(200);
  });

  it("images keep the CSP their route sets (the pages' CSP of proxy.ts does not replace it)", async () => {
    const app = await createApp([...createArgs("Own CSP"), "--logo", await file("csp.png", await makeLogo("png", { color: "#4d7c0f" }))]);
    await cliJson(server.databaseUrl, ["apps", "approve", app.client_id]);
    const logo = await fetch(onServer(app.logo_url));
    expect(logo.status).toBe(200);
    expect(logo.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    const avatar = await fetch(`${server.url}/avatars/alice.svg`);
    expect(avatar.status).toBe(200);
    expect(avatar.headers.get("content-security-policy")).toBe("default-src 'none'; style-src 'unsafe-inline'");
    const media = await fetch(`${server.url}/media/chat/sunset-1.jpg`);
    expect(media.status).toBe(200);
    expect(media.headers.get("content-security-policy")).toBe("default-src 'none'; style-src 'unsafe-inline'");
    // The other security headers still come from proxy.ts; a page keeps the nonce CSP.
    for (const res of [logo, avatar, media]) {
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    }
    const page = await fetch(`${server.url}/docs`);
    expect(page.headers.get("content-security-policy")).toMatch(/script-src 'self' 'nonce-/);
  });

  it("refuses an HTML page or an SVG renamed .png, an oversize file, bad dimensions and a damaged image, saying why", async () => {
    const { client_id: clientId } = await createApp(createArgs("Refusals"));
    const refusal = async (name: string, bytes: Buffer) =>
      (await cliFail(["apps", "update", clientId, "--logo", await file(name, bytes)])).error.message;
    const notAnImage = /must be a PNG, JPEG or WebP image \(this file is not one, whatever its name says\)/;
    expect(await refusal("page.png", hostileLogo("html"))).toMatch(notAnImage);
    expect(await refusal("drawing.png", hostileLogo("svg"))).toMatch(notAnImage);
    const big = await makeLogo("png", { width: 600, height: 600, noise: true });
    expect(big.byteLength).toBeGreaterThan(256 * 1024);
    expect(await refusal("big.png", big)).toMatch(/KiB; at most 256 KiB/);
    expect(await refusal("tiny.png", await makeLogo("png", { width: 8, height: 8 }))).toMatch(/8×8 pixels; each side must be 16 to 1024/);
    expect(await refusal("huge.webp", await makeLogo("webp", { width: 1200, height: 1100 }))).toMatch(/1200×1100 pixels/);
    expect(await refusal("banner.jpg", await makeLogo("jpeg", { width: 600, height: 100 }))).toMatch(/roughly square/);
    // Right magic bytes and a valid header, then garbage: only decoding every pixel finds out.
    const damaged = Buffer.from(await makeLogo("png"));
    for (let i = 80; i < damaged.length - 20; i++) damaged[i] = damaged[i]! ^ 0x5a;
    expect(await refusal("damaged.png", damaged)).toMatch(/could not be read as an image/);
    const truncated = Buffer.concat([(await makeLogo("png")).subarray(0, 40), Buffer.from("<html><script>alert(1)</script></html>".repeat(20))]);
    expect(await refusal("truncated.png", truncated)).toMatch(/could not be read as an image/);
    // Animations: an animated WebP is a WebP, but not a still one; a GIF is no accepted type.
    // Soft: each of these three refusals is reported on its own when the product breaks.
    expect.soft(await refusal("spinning.webp", await animatedLogo("webp"))).toMatch(/The logo must be a still image, not an animation$/);
    expect.soft(await refusal("spinning.gif", await animatedLogo("gif"))).toMatch(/The logo is a GIF; it must be a still PNG, JPEG or WebP image$/);
    // A decompression bomb: 2 KiB whose header claims 50,000×50,000 pixels (7.5 GB decoded). Refused
    // from the header by sharp's pixel limit, before a pixel is decoded: the message is the limit's.
    const bomb = pngBomb(50_000);
    expect(bomb.byteLength).toBeLessThan(4096);
    const started = performance.now();
    expect.soft(await refusal("bomb.png", bomb)).toMatch(/The logo's header claims more than 4,194,304 pixels; each side must be 16 to 1024$/);
    expect(performance.now() - started).toBeLessThan(15_000);
    // A JPEG whose bytes say JPEG is a JPEG, whatever its name: served as image/jpeg.
    const jpeg = await makeLogo("jpeg");
    const named = await cliJson<AppJson>(server.databaseUrl, ["apps", "update", clientId, "--logo", await file("really-a-jpeg.png", jpeg)]);
    expect(named.logo_url).toMatch(/\.jpg$/);
    const rows = await query<{ count: string }>(
      server.databaseUrl,
      `SELECT count(*) FROM "AppLogo" l JOIN "Application" a ON a.id = l."applicationId" WHERE a."clientId" = $1`,
      [clientId],
    );
    expect(Number(rows[0]!.count)).toBe(1);
  });

  it("a replaced or unknown logo name is 404; --remove-logo removes it", async () => {
    const first = await createApp([...createArgs("Replaced"), "--logo", await file("a.png", await makeLogo("png", { color: "#16a34a" }))]);
    const second = await cliJson<AppJson>(server.databaseUrl, ["apps", "update", first.client_id, "--logo", await file("b.png", await makeLogo("png", { color: "#dc2626" }))]);
    expect(second.logo_url).not.toBe(first.logo_url);
    // A pending app's logo: its owner sees it; a replaced name is gone for everyone.
    const alice = await session("alice");
    expect((await jarFetch(alice, onServer(second.logo_url))).status).toBe(200);
    expect((await jarFetch(alice, onServer(first.logo_url))).status).toBe(404);
    expect((await fetch(`${server.url}/media/logos/${first.client_id}/0000000000000000.png`)).status).toBe(404);
    expect((await fetch(`${server.url}/media/logos/${first.client_id}/..%2f..%2fetc.png`)).status).toBe(404);
    expect((await fetch(`${server.url}/media/logos/app_nope/${second.logo_url!.split("/").pop()}`)).status).toBe(404);
    const removed = await cliJson<AppJson>(server.databaseUrl, ["apps", "update", first.client_id, "--remove-logo"]);
    expect(removed.logo_url).toBeNull();
    expect((await jarFetch(alice, onServer(second.logo_url))).status).toBe(404);
  });
});

/**
 * Opens the consent page for `scope` as the jar's person (signing in as bob when asked) and returns
 * its HTML. Leaves the interaction unanswered.
 */
async function consentPage(jar: CookieJar, clientId: string, scope: string): Promise<{ html: string; url: string }> {
  const auth = new URL(authorizationEndpoint(server));
  const { challenge } = pkcePair();
  const params = { client_id: clientId, response_type: "code", redirect_uri: REDIRECT, scope, state: "s", code_challenge: challenge, code_challenge_method: "S256" };
  for (const [k, v] of Object.entries(params)) auth.searchParams.set(k, v);
  let res = await jarFetch(jar, auth.href);
  for (let step = 0; step < 8; step++) {
    const next = new URL(res.headers.get("location") ?? "", auth);
    if (next.href.startsWith(REDIRECT)) throw new Error(`no consent page: back at the client with ${next.search}`);
    if (!next.pathname.startsWith("/interaction/")) {
      res = await jarFetch(jar, next.href);
      continue;
    }
    const page = await jarFetch(jar, next.href);
    const html = await page.text();
    if (!html.includes('name="password"')) return { html, url: next.href };
    res = await postInteraction(server, jar, next.href, "login", { username: "bob", password: password("bob") });
  }
  throw new Error("no consent page");
}

/** Answers the consent page with Allow and follows the redirects back to the client. */
async function allow(jar: CookieJar, url: string): Promise<void> {
  let res = await postInteraction(server, jar, url, "consent");
  for (let step = 0; step < 8; step++) {
    const location = res.headers.get("location");
    if (!location) throw new Error(`consent answered ${res.status}`);
    const next = new URL(location, url);
    if (next.href.startsWith(REDIRECT)) return;
    res = await jarFetch(jar, next.href);
  }
  throw new Error("consent did not return to the client");
}

describe("the consent page", () => {
  it("keeps the approved logo and links until `apps changes approve`; a refused change's logo is gone", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "login", ownerHandle: "alice", name: "Trusty", scopes: ["svc:stats.read"], redirectUris: [REDIRECT] });
    const logo = await makeLogo("png", { color: "#7c3aed" });
    const updated = await cliJson<AppJson>(server.databaseUrl, [
      "apps", "update", app.clientId, "--logo", await file("trusty.png", logo),
      "--homepage-url", "https://trusty.example/", "--privacy-url", "https://trusty.example/privacy",
    ]);
    expect(updated).toMatchObject({ logo_url: null, homepage_url: null, privacy_policy_url: null });
    const pendingLogo = updated.pending_change!.logo_url as string;
    expect(updated.pending_change).toMatchObject({ homepage_url: "https://trusty.example/", privacy_policy_url: "https://trusty.example/privacy" });
    // The waiting logo is served to the app's team and admins (their diff shows it), privately; to
    // nobody else, and the consent page does not use it.
    expect((await fetch(onServer(pendingLogo))).status).toBe(404);
    const alice = await portalSignIn(server, "alice", password("alice"));
    const asOwner = await jarFetch(alice.jar, onServer(pendingLogo));
    expect(asOwner.status).toBe(200);
    expect(asOwner.headers.get("cache-control")).toBe("private, no-store");
    expect(asOwner.headers.get("x-content-type-options")).toBe("nosniff");
    const carol = await portalSignIn(server, "carol", password("carol"));
    expect((await jarFetch(carol.jar, onServer(pendingLogo))).status).toBe(404);

    const before = await consentPage(new CookieJar(), app.clientId, "openid");
    expect(before.html).toContain('data-testid="app-logo-placeholder"');
    expect(before.html).not.toContain("/media/logos/");
    expect(before.html).not.toContain("trusty.example");

    await cliJson(server.databaseUrl, ["apps", "changes", "approve", app.clientId]);
    const after = await consentPage(new CookieJar(), app.clientId, "openid");
    // Approved: now public and cached for good.
    expect((await fetch(onServer(pendingLogo))).headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(after.html).toContain(`src="${new URL(pendingLogo).pathname}"`);
    expect(after.html).toContain('href="https://trusty.example/privacy"');
    expect(after.html).toContain('href="https://trusty.example/"');
    // Never an image from anywhere but our origin.
    expect([...after.html.matchAll(/<img[^>]+src="([^"]+)"/g)].map((m) => m[1]).every((src) => src!.startsWith("/media/logos/"))).toBe(true);

    // A refused change: the approved logo stays, the refused one is no longer served.
    const again = await cliJson<AppJson>(server.databaseUrl, ["apps", "update", app.clientId, "--logo", await file("other.png", await makeLogo("png", { color: "#0f766e" }))]);
    const refusedLogo = again.pending_change!.logo_url as string;
    expect((await jarFetch(alice.jar, onServer(refusedLogo))).status).toBe(200);
    await cliJson(server.databaseUrl, ["apps", "changes", "reject", app.clientId, "--reason", "Looks like the platform's logo"]);
    expect((await jarFetch(alice.jar, onServer(refusedLogo))).status).toBe(404);
    expect((await fetch(onServer(pendingLogo))).status).toBe(200);
  });

  it("says first time, then '<App> now asks for more' listing only the scopes an approved change added, with owner, description and links", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "login", ownerHandle: "alice", name: "Asker", scopes: [], redirectUris: [REDIRECT] });
    await query(server.databaseUrl, `UPDATE "Application" SET description = $2, "termsUrl" = $3 WHERE "clientId" = $1`, [
      app.clientId, "Shows your stats on a big screen.", "https://asker.example/terms",
    ]);
    const jar = new CookieJar();
    const first = await consentPage(jar, app.clientId, "openid profile");
    first.html = plain(first.html);
    expect(first.html).toContain('data-kind="first"');
    expect(first.html).toContain("This is the first time");
    // The name in the title, the heading and on the identity card, not in every sentence.
    const body = first.html.slice(first.html.indexOf("<body"));
    expect(body.split("Asker").length - 1).toBeLessThanOrEqual(3);
    expect(first.html).toContain("Shows your stats on a big screen.");
    expect(first.html).toContain("@alice");
    expect(first.html).toContain('href="https://asker.example/terms"');
    // No script of ours: the page works without JavaScript.
    expect(first.html).not.toMatch(/<script[^>]*src=/);
    await allow(jar, first.url);

    // The app asks for a scope more; once an admin approves that, the next sign-in asks about it.
    await cliJson(server.databaseUrl, ["apps", "update", app.clientId, "--scope", "svc:stats.read"]);
    await cliJson(server.databaseUrl, ["apps", "changes", "approve", app.clientId]);
    const more = await consentPage(jar, app.clientId, "openid profile");
    more.html = plain(more.html);
    expect(more.html).toContain('data-kind="more"');
    expect(more.html).toContain("Asker now asks for more");
    const newRows = [...more.html.matchAll(/<li[^>]*data-new="true"[^>]*>([\s\S]*?)<\/li>/g)].map((m) => m[1]);
    expect(newRows).toHaveLength(1);
    expect(newRows[0]).toContain("svc:stats.read");
    expect(more.html).toContain("(already allowed)");
    // Allowing it makes a complete consent: the next sign-in asks nothing.
    await allow(jar, more.url);
    const flow = await authorize(server, { handle: "bob", password: password("bob"), clientId: app.clientId, redirectUri: REDIRECT, scope: "openid profile", jar });
    expect(flow.consentShown).toBe(false);
  });
});
