import { randomBytes, scryptSync } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hash as argon2Hash, type Algorithm } from "@node-rs/argon2";
import { CURRENT_HASH_PATTERN, verifyPassword } from "../../lib/crypto/passwords";
import { freshIp } from "../helpers/client-addresses";
import { query } from "../helpers/db";
import { CookieJar, createTestApp, createTestUser, jarFetch, signInAndGetTokens, type TestApp } from "../helpers/oidc";
import { startServer, type TestServer } from "../helpers/server";
import { callServerAction, portalSignIn, serverActions } from "./portal-client";

/**
 * "Hostile input and access: sign-in", and issue 12, "Sign-in hardening", against the
 * hosted pages (Next) and the sign-in service, behind a trusted proxy (TRUST_PROXY=1) so each test
 * can come from its own client address (the right-most X-Forwarded-For entry): failed logins
 * throttled per (account, address), per address and per account, with attempts reserved before
 * they are evaluated (parallel guesses cannot pass the limit) and a clear message; no account
 * enumeration by message or timing; no open redirect through redirect_uri,
 * post_logout_redirect_uri or the portal's callbackUrl; one client-address rule for the audit log;
 * old (scrypt) password hashes upgraded to Argon2id at sign-in; CSRF refused on the interaction posts; security headers
 * on every page the sign-in service and the portal serve.
 */
const REDIRECT = "http://localhost:9/callback";
const LOGOUT_REDIRECT = "http://localhost:9/signed-out";
const PASSWORD = "sign-in tests passphrase";

let server: TestServer;
let app: TestApp;

beforeAll(async () => {
  server = await startServer({ next: true, seed: false, env: { TRUST_PROXY: "1" } });
  app = await createTestApp(server.databaseUrl, {
    type: "login",
    scopes: ["svc:chat.read"],
    redirectUris: [REDIRECT],
    postLogoutRedirectUris: [LOGOUT_REDIRECT],
    name: "Sign-in test app",
  });
  // A Next build may be running (sources changed): it can take minutes on a busy machine.
}, 600_000);

afterAll(async () => {
  await server?.stop();
});

function authorizeUrl(params: Record<string, string> = {}): string {
  const url = new URL(`${server.issuer}/protocol/openid-connect/auth`);
  url.search = new URLSearchParams({
    client_id: app.clientId,
    response_type: "code",
    redirect_uri: REDIRECT,
    scope: "openid",
    state: "st",
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    code_challenge_method: "S256",
    ...params,
  }).toString();
  return url.href;
}

/** Starts an authorization request and returns the hosted login page it leads to. */
async function startLogin(ip: string): Promise<{ jar: CookieJar; page: string }> {
  const jar = new CookieJar();
  const res = await jarFetch(jar, authorizeUrl(), { headers: { "x-forwarded-for": ip } });
  expect(res.status).toBe(303);
  return { jar, page: new URL(res.headers.get("location")!, server.url).href };
}

/**
 * Posts the login form; returns the error code of the redirect back to the page, or null on success.
 * `ip` is sent as X-Forwarded-For as is (a list, to play a client that writes its own entries).
 */
async function login(jar: CookieJar, page: string, username: string, password: string, ip: string, origin = server.url) {
  const started = performance.now();
  const res = await jarFetch(jar, `${page}/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin, "x-forwarded-for": ip },
    body: new URLSearchParams({ username, password }),
  });
  const elapsed = performance.now() - started;
  const location = res.headers.get("location");
  const back = location ? new URL(location, server.url) : null;
  const error = back && back.pathname === new URL(page).pathname ? back.searchParams.get("error") : null;
  return { status: res.status, location: back, error, elapsed };
}

/** The hosted page's visible text (tags stripped). */
async function pageText(jar: CookieJar, url: string): Promise<string> {
  const res = await jarFetch(jar, url);
  expect(res.status).toBe(200);
  return (await res.text()).replace(/<script[\s\S]*?<\/script>/g, "").replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
}

const THROTTLED = "Too many failed sign-in attempts";
const INCORRECT = "Incorrect username or password.";

/** Runs `tasks` with at most `limit` in flight (the server's hash slots and the gate's wait are small; so is the test machine). */
async function inBatches<T>(tasks: (() => Promise<T>)[], limit = 10): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < tasks.length; i += limit) results.push(...(await Promise.all(tasks.slice(i, i + limit).map((t) => t()))));
  return results;
}

const count = (errors: (string | null)[], error: string | null) => errors.filter((e) => e === error).length;

describe("failed logins are throttled", () => {
  it("per (account, address): 5 attempts, the last three delayed 1, 2 and 4 s, then refused with a clear message", async () => {
    await createTestUser(server.databaseUrl, { handle: "si_victim", password: PASSWORD });
    const ip = freshIp();
    const { jar, page } = await startLogin(ip);
    const attempts = [];
    for (let i = 0; i < 5; i++) attempts.push(await login(jar, page, "si_victim", `guess-${i}`, ip));
    expect(attempts.map((a) => a.error)).toEqual(Array(5).fill("invalid_credentials"));
    // Growing delays, server-side: 0, 0, 1, 2, 4 s before the password is even looked at.
    expect(attempts[2]!.elapsed).toBeGreaterThanOrEqual(950);
    expect(attempts[3]!.elapsed).toBeGreaterThanOrEqual(1950);
    expect(attempts[4]!.elapsed).toBeGreaterThanOrEqual(3950);
    const blocked = await login(jar, page, "si_victim", PASSWORD, ip);
    expect(blocked.error).toBe("too_many_attempts");
    // The page says the throttle's real wait (the pair's window opened seconds ago), not a fixed one.
    const retryIn = Number(blocked.location!.searchParams.get("retry_at")) * 1000 - Date.now();
    expect(retryIn).toBeGreaterThan(13 * 60_000);
    expect(retryIn).toBeLessThanOrEqual(15 * 60_000 + 1000);
    expect(await pageText(jar, blocked.location!.href)).toMatch(/Too many failed sign-in attempts\. Try again in 1[45] minutes\./);
    // The username survives the refusal (from a cookie of that interaction's page, not the URL).
    expect(blocked.location!.href).not.toContain("si_victim");
    expect(await (await jarFetch(jar, blocked.location!.href)).text()).toMatch(/<input[^>]*name="username"[^>]*value="si_victim"/);
    // Other accounts from the same address are unaffected.
    await createTestUser(server.databaseUrl, { handle: "si_bystander", password: PASSWORD });
    expect((await login(jar, page, "si_bystander", PASSWORD, ip)).error).toBeNull();
  });

  it("50 concurrent wrong passwords for one account from one address: at most 5 are evaluated; another address still signs in at once", async () => {
    await createTestUser(server.databaseUrl, { handle: "si_parallel", password: PASSWORD });
    const ip = freshIp();
    const { jar, page } = await startLogin(ip);
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => login(jar, page, "si_parallel", `parallel-${i}`, ip)));
    const errors = results.map((r) => r.error);
    // Every attempt is reserved before its password is checked: the 6th and later are refused unseen.
    expect(count(errors, "invalid_credentials")).toBeLessThanOrEqual(5);
    expect(count(errors, "invalid_credentials") + count(errors, "too_many_attempts")).toBe(50);
    expect((await login(jar, page, "si_parallel", PASSWORD, ip)).error).toBe("too_many_attempts");
    // The owner, elsewhere, is not locked out by a stranger's guesses, and waits for nothing.
    const owner = await startLogin(freshIp());
    const ok = await login(owner.jar, owner.page, "si_parallel", PASSWORD, freshIp());
    expect(ok.error).toBeNull();
    // No wait of any kind: a delayed attempt waits 1 s or more (2 s when the account is locked, 4 s
    // for a pair's 5th); one scrypt on a loaded machine stays well below that.
    expect(ok.elapsed).toBeLessThan(1900);
  });

  it("the client address is the right-most X-Forwarded-For entry: spoofed entries to its left change nothing", async () => {
    await createTestUser(server.databaseUrl, { handle: "si_spoofed", password: PASSWORD });
    const ip = freshIp();
    const { jar, page } = await startLogin(ip);
    // Ten guesses, each claiming a different client in front of the real one.
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => login(jar, page, "si_spoofed", `x${i}`, `198.18.0.${i + 1}, ${ip}`)));
    expect(count(results.map((r) => r.error), "invalid_credentials")).toBeLessThanOrEqual(5);
    expect((await login(jar, page, "si_spoofed", PASSWORD, `198.18.1.1, ${ip}`)).error).toBe("too_many_attempts");
  });

  it("per address: after 30 failures from one address, that address is refused for every account", async () => {
    const ip = freshIp();
    await createTestUser(server.databaseUrl, { handle: "si_fresh", password: PASSWORD });
    const { jar, page } = await startLogin(ip);
    // 30 different accounts, 1 guess each: no pair or account limit is reached, the address limit is.
    const sprayed = await inBatches(Array.from({ length: 30 }, (_, i) => () => login(jar, page, `si_spray${i}`, "password1", ip)));
    expect(sprayed.map((r) => r.error)).toEqual(Array(30).fill("invalid_credentials"));
    const blocked = await login(jar, page, "si_fresh", PASSWORD, ip);
    expect(blocked.error).toBe("too_many_attempts");
    expect(await pageText(jar, blocked.location!.href)).toContain(THROTTLED);
    // The same account from another address signs in.
    expect((await login(jar, page, "si_fresh", PASSWORD, freshIp())).error).toBeNull();
  });

  it("per account: over 50 failures from many addresses, a fresh address still signs in after 2 s; an address that failed is refused", async () => {
    await createTestUser(server.databaseUrl, { handle: "si_besieged", password: PASSWORD });
    const { jar, page } = await startLogin(freshIp());
    // 25 addresses, 2 guesses each (no pair delay yet): 50 failures, the account's whole budget.
    const attackers = Array.from({ length: 25 }, () => freshIp());
    for (const round of [0, 1]) {
      // A few at a time: 25 hashes at once outlast the password-check gate's wait on a busy machine (503).
      const results = await inBatches(attackers.map((ip, i) => () => login(jar, page, "si_besieged", `r${round}-${i}`, ip)), 5);
      const seen = results.map((r) => `${r.status} ${r.location?.pathname ?? "-"}${r.location?.search ?? ""}`);
      expect(results.map((r) => r.error), seen.join(", ") + "\n" + server.logs.slice(-20).join("\n")).toEqual(Array(25).fill("invalid_credentials"));
    }
    // The 51st: an address with no attempt of its own is still heard, after the lock's delay.
    const lateGuesser = freshIp();
    const late = await login(jar, page, "si_besieged", "one more guess", lateGuesser);
    expect(late.error).toBe("invalid_credentials");
    expect(late.elapsed).toBeGreaterThanOrEqual(1950);
    const [row] = await query<{ count: number }>(server.databaseUrl, `SELECT count FROM "RateLimit" WHERE key = 'login:account:si_besieged'`);
    expect(row!.count).toBeGreaterThan(50);
    // The owner from a clean address: signed in, after the delay.
    const owner = await login(jar, page, "si_besieged", PASSWORD, freshIp());
    expect(owner.error).toBeNull();
    expect(owner.elapsed).toBeGreaterThanOrEqual(1950);
    // Addresses that failed are refused even with the right password (their own pair limit of 5 is not reached).
    const { jar: jar2, page: page2 } = await startLogin(freshIp());
    for (const ip of [attackers[0]!, lateGuesser]) {
      const refused = await login(jar2, page2, "si_besieged", PASSWORD, ip);
      expect(refused.error, ip).toBe("too_many_attempts");
      // Refused before any delay or scrypt.
      expect(refused.elapsed, ip).toBeLessThan(1900);
    }
  });
});

describe("hostile login form input", () => {
  it("NUL bytes, control characters, unicode and odd lengths are an ordinary refusal, never a server error", async () => {
    const ip = freshIp();
    const { jar, page } = await startLogin(ip);
    const inputs: [string, string][] = [
      ["si\u0000victim", "x"],
      ["alice", "pass\u0000word"],
      ["\u0000", "\u0000"],
      ["\ud800", "\udfff"],
      ["ȧļïçé", "пароль"],
      ["a".repeat(100), "b".repeat(1024)],
      ["'; DROP TABLE \"User\"; --", "x"],
      ["@", "x"],
      ["", "x"],
      ["x", ""],
    ];
    for (const [username, password] of inputs) {
      const res = await login(jar, page, username, password, ip);
      expect(res.status, JSON.stringify(username)).toBe(303);
      expect(["invalid_credentials", "missing_fields"], JSON.stringify(username)).toContain(res.error);
    }
  });
});

describe("no account enumeration", () => {
  it("an unknown user and a wrong password get the same answer and the same page", async () => {
    await createTestUser(server.databaseUrl, { handle: "si_known", password: PASSWORD });
    const { jar, page } = await startLogin(freshIp());
    const wrong = await login(jar, page, "si_known", "not-the-password", freshIp());
    const unknown = await login(jar, page, `si_nobody_${randomBytes(3).toString("hex")}`, "not-the-password", freshIp());
    expect(wrong.status).toBe(unknown.status);
    expect(wrong.location!.href).toBe(unknown.location!.href);
    const [a, b] = [await pageText(jar, wrong.location!.href), await pageText(jar, unknown.location!.href)];
    expect(a).toContain(INCORRECT);
    expect(a).toBe(b);
  });

  it("an unknown account is throttled exactly like a real one", async () => {
    const ghost = `si_ghost_${randomBytes(3).toString("hex")}`;
    await createTestUser(server.databaseUrl, { handle: "si_real", password: PASSWORD });
    const { jar, page } = await startLogin(freshIp());
    // Each from its own address, side by side (the pair delays are the same for both).
    const guess = async (handle: string, ip: string) => {
      const answers: (string | null)[] = [];
      for (let i = 0; i < 6; i++) answers.push((await login(jar, page, handle, `x${i}`, ip)).error);
      return answers;
    };
    const [real, unknown] = await Promise.all([guess("si_real", freshIp()), guess(ghost, freshIp())]);
    expect(unknown).toEqual(real);
    expect(real).toEqual([...Array(5).fill("invalid_credentials"), "too_many_attempts"]);
  });

  it("timing: a wrong password for a real account costs about what an unknown account costs", async () => {
    const handles = Array.from({ length: 7 }, (_, i) => `si_timing${i}`);
    for (const handle of handles) await createTestUser(server.databaseUrl, { handle, password: PASSWORD });
    const { jar, page } = await startLogin(freshIp());
    const known: number[] = [];
    const unknown: number[] = [];
    // Interleaved, one attempt per account and address, so neither throttle nor warm-up skews a side.
    for (const handle of handles) {
      known.push((await login(jar, page, handle, "wrong-password", freshIp())).elapsed);
      unknown.push((await login(jar, page, `${handle}_missing`, "wrong-password", freshIp())).elapsed);
    }
    const median = (v: number[]) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)]!;
    const ratio = median(known) / median(unknown);
    // Loose on purpose (shared machine): a missing scrypt would make one side several times faster.
    expect(ratio, `known ${median(known).toFixed(1)} ms, unknown ${median(unknown).toFixed(1)} ms`).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
  });
});

describe("no open redirects", () => {
  const evilRedirects = [
    "https://evil.example/callback",
    "http://localhost:9/callback/../../evil",
    "http://localhost:9/callback?next=https://evil.example",
    "http://localhost:9/callback/",
    "http://localhost:9/Callback",
    "http://localhost:9@evil.example/callback",
    "http://evil.example#http://localhost:9/callback",
    "//evil.example/callback",
    "javascript:alert(1)",
  ];

  it("an unregistered redirect_uri gets an error page, never a redirect", async () => {
    for (const redirect of evilRedirects) {
      const res = await fetch(authorizeUrl({ redirect_uri: redirect }), { redirect: "manual" });
      expect(res.status, redirect).toBe(400);
      expect(res.headers.get("location"), redirect).toBeNull();
      expect(res.headers.get("content-type")).toContain("text/html");
      const html = await res.text();
      expect(html).not.toMatch(/http-equiv=["']?refresh/i);
    }
  });

  it("an unregistered post_logout_redirect_uri is refused; a registered one leads to our own confirmation page", async () => {
    const tokens = await (async () => {
      await createTestUser(server.databaseUrl, { handle: "si_logout", password: PASSWORD });
      return signInAndGetTokens(server, { handle: "si_logout", password: PASSWORD, clientId: app.clientId, redirectUri: REDIRECT });
    })();
    const logout = (params: Record<string, string>) => {
      const url = new URL(`${server.issuer}/protocol/openid-connect/logout`);
      url.search = new URLSearchParams(params).toString();
      return jarFetch(tokens.jar, url.href);
    };
    const unregistered = [
      "https://evil.example/",
      "http://localhost:9/signed-out/../evil",
      "http://localhost:9/signed-out?x=1",
      `${REDIRECT}/`,
      `${REDIRECT}?next=https://evil.example/`,
    ];
    for (const target of unregistered) {
      for (const hint of [{}, { id_token_hint: tokens.id_token }] as Record<string, string>[]) {
        const res = await logout({ client_id: app.clientId, post_logout_redirect_uri: target, ...hint });
        expect(res.status, target).toBe(400);
        // An error page: no redirect at all, so nowhere to be sent.
        expect(res.headers.get("location"), target).toBeNull();
      }
    }
    // SPEC Authentication step 7: the registered post-logout URI and any registered redirect URI.
    for (const target of [LOGOUT_REDIRECT, REDIRECT]) {
      const ok = await logout({ client_id: app.clientId, post_logout_redirect_uri: target, id_token_hint: tokens.id_token });
      expect(ok.status, target).toBe(303);
      expect(new URL(ok.headers.get("location")!, server.url).origin).toBe(new URL(server.url).origin);
    }
  });
});

describe("open redirects through the portal's callbackUrl", () => {
  it("a signed-in person sent to /signin?callbackUrl=/%09/evil.example stays on our origin", async () => {
    await createTestUser(server.databaseUrl, { handle: "si_portal", password: PASSWORD });
    const session = await portalSignIn(server, "si_portal", PASSWORD);
    const origin = new URL(server.url).origin;
    // As typed into the address bar: %09 is a tab, %0A a newline, %5C a backslash; browsers drop
    // tabs and newlines from a Location and read \ as /, so `/<TAB>/evil.example` is `//evil.example`.
    for (const callback of ["/%09/evil.example", "/%0A/evil.example", "/%0D%0A/evil.example", "%09//evil.example", "/%5C%09evil.example", "/%09%5Cevil.example"]) {
      const res = await jarFetch(session.jar, `${server.url}/signin?callbackUrl=${callback}`);
      expect([303, 307, 308], callback).toContain(res.status);
      const location = res.headers.get("location")!;
      // Resolved the way a browser resolves a Location header (the WHATWG URL parser).
      const target = new URL(location, server.url);
      expect(target.origin, `${callback} → ${location}`).toBe(origin);
      expect(target.pathname, `${callback} → ${location}`).toBe("/apps");
    }
    // An ordinary path of ours is kept, query and all.
    const own = await jarFetch(session.jar, `${server.url}/signin?callbackUrl=${encodeURIComponent("/apps/new?from=home")}`);
    expect(new URL(own.headers.get("location")!, server.url).href).toBe(`${origin}/apps/new?from=home`);
    // The same values through next-auth's sign-in (its redirect callback) land on our origin too.
    const again = await portalSignIn(server, "si_portal", PASSWORD, { callbackUrl: "/\t/evil.example" });
    expect(again.landing.origin, again.trail.join(" → ")).toBe(origin);
  });
});

describe("one client-address rule for the audit log", () => {
  it("the portal's audit log records the right-most forwarded address; a client cannot set it itself", async () => {
    await createTestUser(server.databaseUrl, { handle: "si_audited", password: PASSWORD });
    const session = await portalSignIn(server, "si_audited", PASSWORD);
    const actions = serverActions();
    const call = await callServerAction(server, session.jar, actions.setUserMutedAction!, ["si_portal", true], {
      headers: { "x-forwarded-for": "6.6.6.6, 198.51.100.77", "x-platform-client-ip": "1.1.1.1" },
    });
    expect(call.result, call.text.slice(0, 300)).toMatchObject({ ok: false, error: { code: "forbidden" } });
    const rows = await query<{ ip: string | null }>(
      server.databaseUrl,
      `SELECT ip FROM "AuditLog" WHERE "actorHandle" = 'si_audited' AND action = 'user.mute' AND outcome = 'denied'`,
    );
    expect(rows).toEqual([{ ip: "198.51.100.77" }]);
  });
});

describe("password hashes are upgraded at sign-in", () => {
  /** A hash as an earlier release stored it: scrypt N=2^15, r=8, p=1 (issue 12 made p=3, issue 24 Argon2id). */
  function oldHash(password: string): string {
    const salt = randomBytes(16);
    const key = scryptSync(password.normalize("NFKC"), salt, 32, { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
    return `scrypt$32768$8$1$${salt.toString("base64url")}$${key.toString("base64url")}`;
  }

  async function storedHash(handle: string): Promise<string> {
    const [row] = await query<{ passwordHash: string }>(server.databaseUrl, `SELECT "passwordHash" FROM "User" WHERE handle = $1`, [handle]);
    return row!.passwordHash;
  }

  it("a user with an old scrypt hash signs in; the stored hash is then Argon2id at today's parameters and the password still works", async () => {
    await createTestUser(server.databaseUrl, { handle: "si_oldhash", password: PASSWORD });
    const old = oldHash(PASSWORD);
    await query(server.databaseUrl, `UPDATE "User" SET "passwordHash" = $2 WHERE handle = $1`, ["si_oldhash", old]);
    // A wrong password changes nothing.
    let attempt = await startLogin(freshIp());
    expect((await login(attempt.jar, attempt.page, "si_oldhash", "not it", freshIp())).error).toBe("invalid_credentials");
    expect(await storedHash("si_oldhash")).toBe(old);
    // The right one signs in and upgrades the hash.
    attempt = await startLogin(freshIp());
    expect((await login(attempt.jar, attempt.page, "si_oldhash", PASSWORD, freshIp())).error).toBeNull();
    const upgraded = await storedHash("si_oldhash");
    expect(upgraded).toMatch(CURRENT_HASH_PATTERN);
    expect(await verifyPassword(PASSWORD, upgraded)).toBe(true);
    // And the password still works against the new hash.
    attempt = await startLogin(freshIp());
    expect((await login(attempt.jar, attempt.page, "si_oldhash", PASSWORD, freshIp())).error).toBeNull();
    expect(await storedHash("si_oldhash")).toBe(upgraded);
  });

  it("a hash at the previous release's Argon2id setting (t = 2) is replaced at the next sign-in", async () => {
    await createTestUser(server.databaseUrl, { handle: "si_t2", password: PASSWORD });
    const previous = await argon2Hash(PASSWORD.normalize("NFKC"), { algorithm: 2 as Algorithm, memoryCost: 19456, timeCost: 2, parallelism: 1, outputLen: 32 });
    expect(previous).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    await query(server.databaseUrl, `UPDATE "User" SET "passwordHash" = $2 WHERE handle = $1`, ["si_t2", previous]);
    const attempt = await startLogin(freshIp());
    expect((await login(attempt.jar, attempt.page, "si_t2", PASSWORD, freshIp())).error).toBeNull();
    const upgraded = await storedHash("si_t2");
    expect(upgraded).not.toBe(previous);
    expect(upgraded).toMatch(CURRENT_HASH_PATTERN);
    expect(await verifyPassword(PASSWORD, upgraded)).toBe(true);
  });

  it("two sign-ins at once with an old hash both succeed and leave one valid, upgraded hash", async () => {
    await createTestUser(server.databaseUrl, { handle: "si_twice", password: PASSWORD });
    await query(server.databaseUrl, `UPDATE "User" SET "passwordHash" = $2 WHERE handle = $1`, ["si_twice", oldHash(PASSWORD)]);
    const [a, b] = await Promise.all([startLogin(freshIp()), startLogin(freshIp())]);
    const results = await Promise.all([login(a.jar, a.page, "si_twice", PASSWORD, freshIp()), login(b.jar, b.page, "si_twice", PASSWORD, freshIp())]);
    expect(results.map((r) => r.error)).toEqual([null, null]);
    const stored = await storedHash("si_twice");
    expect(stored).toMatch(CURRENT_HASH_PATTERN);
    expect(await verifyPassword(PASSWORD, stored)).toBe(true);
  });
});

describe("CSRF on the hosted pages' form posts", () => {
  it("login, consent and abort posts from another origin are refused and change nothing", async () => {
    await createTestUser(server.databaseUrl, { handle: "si_csrf", password: PASSWORD });
    const ip = freshIp();
    const { jar, page } = await startLogin(ip);
    for (const action of ["login", "consent", "abort"]) {
      for (const origin of ["https://evil.example", "null", `${server.url}.evil.example`]) {
        const res = await jarFetch(jar, `${page}/${action}`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", origin, "x-forwarded-for": ip },
          body: new URLSearchParams({ username: "si_csrf", password: PASSWORD }),
        });
        expect(res.status, `${action} from ${origin}`).toBe(403);
      }
    }
    // The interaction is untouched: the real form still works.
    expect((await login(jar, page, "si_csrf", PASSWORD, ip)).error).toBeNull();
  });
});

describe("security headers on every page", () => {
  function expectPageHeaders(res: Response, label: string) {
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp, `${label}: CSP`).toContain("frame-ancestors 'none'");
    expect(csp, `${label}: CSP`).toMatch(/default-src 'self'|default-src 'none'/);
    expect(res.headers.get("x-content-type-options"), `${label}: nosniff`).toBe("nosniff");
    expect(res.headers.get("referrer-policy"), `${label}: Referrer-Policy`).toBeTruthy();
    // Served over plain http here (APP_URL is http): no HSTS (tests/security/https.test.ts checks https).
    expect(res.headers.get("strict-transport-security"), label).toBeNull();
  }

  it("portal and docs pages, the sign-in page, redirects and the 404 page", async () => {
    for (const path of ["/", "/docs", "/docs/errors", "/docs/api-reference", "/signin", "/apps", "/admin", "/no-such-page"]) {
      const res = await fetch(`${server.url}${path}`, { redirect: "manual" });
      expect(res.status, path).toBeLessThan(500);
      expectPageHeaders(res, path);
    }
  });

  it("the hosted login, consent, logout and signed-out pages", async () => {
    await createTestUser(server.databaseUrl, { handle: "si_headers", password: PASSWORD });
    const ip = freshIp();
    const { jar, page } = await startLogin(ip);
    expectPageHeaders(await jarFetch(jar, page), "login page");
    const done = await login(jar, page, "si_headers", PASSWORD, ip);
    // Follow to the consent page (a third-party app asks).
    let res = await jarFetch(jar, done.location!.href);
    const consent = new URL(res.headers.get("location")!, server.url);
    expect(consent.pathname).toMatch(/^\/interaction\//);
    expectPageHeaders(await jarFetch(jar, consent.href), "consent page");
    expectPageHeaders(await jarFetch(new CookieJar(), consent.href), "expired interaction page");
    res = await jarFetch(jar, `${server.url}/interaction/logout?client_id=${app.clientId}`);
    expectPageHeaders(res, "logout page");
    expectPageHeaders(await fetch(`${server.url}/interaction/signed-out`), "signed-out page");
  });

  it("the sign-in service's own error pages", async () => {
    const unknownClient = await fetch(authorizeUrl({ client_id: "app_does_not_exist" }), { redirect: "manual" });
    expect(unknownClient.status).toBe(400);
    expectPageHeaders(unknownClient, "authorization error page");
    const { jar, page } = await startLogin(freshIp());
    const crossSite = await jarFetch(jar, `${page}/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" },
      body: "username=a&password=b",
    });
    expect(crossSite.status).toBe(403);
    expectPageHeaders(crossSite, "interaction error page");
    const logoutError = await fetch(
      `${server.issuer}/protocol/openid-connect/logout?client_id=app_does_not_exist&post_logout_redirect_uri=https://evil.example`,
      { redirect: "manual" },
    );
    expect(logoutError.status).toBe(400);
    expectPageHeaders(logoutError, "logout error page");
  });

  it("JSON answers (API, token endpoint, discovery) are never sniffed as HTML", async () => {
    for (const url of [
      `${server.apiUrl}/users/nobody`,
      `${server.apiUrl}/openapi.json`,
      `${server.issuer}/.well-known/openid-configuration`,
      `${server.issuer}/protocol/openid-connect/token`,
      `${server.url}/healthz`,
    ]) {
      const res = await fetch(url, url.endsWith("/token") ? { method: "POST" } : {});
      expect(res.headers.get("content-type"), url).toContain("application/json");
      expect(res.headers.get("x-content-type-options"), url).toBe("nosniff");
    }
  });
});
