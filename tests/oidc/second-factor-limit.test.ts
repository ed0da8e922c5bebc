import type { ServerResponse } from "node:http";
import { generate } from "otplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pointAppAt, startServer, type TestServer } from "../helpers/server";
import { authorizationEndpoint, CookieJar, createTestApp, createTestUser, jarFetch, pkcePair } from "../helpers/oidc";

/**
 * The second factor cannot be guessed around the account's limits (lib/services/throttle.ts,
 * lib/oidc/interactions.ts): the trusted-device cookie, which lets a browser past the account's
 * password lock, is given only once the whole sign-in succeeded, never for the password alone; and
 * wrong codes have a per-account limit that no such cookie lifts. Behind a trusted proxy
 * (TRUST_PROXY=1), so every attempt comes from an address of its own and only the account's limit
 * can stop it.
 */
let server: TestServer;
let closeDb: () => Promise<void>;
let clientId: string;
const REDIRECT = "http://localhost:9/callback";
const PASSWORD = "correct horse battery";
const ATTEMPTS = 30;

beforeAll(async () => {
  server = await startServer({ seed: false, env: { TRUST_PROXY: "1" } });
  closeDb = await pointAppAt(server.databaseUrl);
  ({ clientId } = await createTestApp(server.databaseUrl, { type: "login", redirectUris: [REDIRECT], firstParty: true, name: "Guess App" }));
});

afterAll(async () => {
  await closeDb?.();
  await server?.stop();
});

async function userWithTotp(handle: string): Promise<{ secret: string }> {
  const user = await createTestUser(server.databaseUrl, { handle, password: PASSWORD });
  const { startTotpEnrolment, confirmTotpEnrolment } = await import("../../lib/services/second-factors");
  const actor = { kind: "user" as const, id: user.id, handle: user.handle, role: "user" as const };
  const { secret } = await startTotpEnrolment(actor, { password: PASSWORD });
  await confirmTotpEnrolment(actor, await generate({ secret }));
  return { secret };
}

/** A six-digit code that none of the accepted time steps (previous, current, next) would take. */
async function wrongCode(secret: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const valid = new Set(await Promise.all([-60, -30, 0, 30, 60].map((d) => generate({ secret, epoch: now + d }))));
  for (let n = 0; ; n++) {
    const code = String(n).padStart(6, "0");
    if (!valid.has(code)) return code;
  }
}

/** A valid trusted-device cookie for `handle`, as the sign-in service signs one, put into `jar`. */
async function giveTrustedDeviceCookie(jar: CookieJar, handle: string): Promise<void> {
  const { rememberTrustedDevice } = await import("../../lib/oidc/trusted-device");
  const headers = new Map<string, unknown>();
  const res = { getHeader: (name: string) => headers.get(name), setHeader: (name: string, value: unknown) => headers.set(name, value) };
  await rememberTrustedDevice(res as unknown as ServerResponse, handle);
  const lines = headers.get("set-cookie") as string[];
  expect(lines[0]).toMatch(/^_trusted_/);
  jar.store(`${server.url}/interaction/`, new Headers(lines.map((line) => ["set-cookie", line] as [string, string])));
}

/** POSTs one of the hosted page's forms from client address `ip`; the redirect's location. */
async function post(jar: CookieJar, page: string, action: string, form: Record<string, string>, ip: string): Promise<Response> {
  const url = new URL(page);
  return jarFetch(jar, `${url.origin}${url.pathname}/${action}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: url.origin, "x-forwarded-for": ip },
    body: new URLSearchParams(form),
  });
}

/** Starts a sign-in from `ip` and posts the right password: the interaction page and the login post's answer. */
async function passwordStep(handle: string, jar: CookieJar, ip: string): Promise<{ page: string; login: Response }> {
  const { challenge } = pkcePair();
  const auth = new URL(authorizationEndpoint(server));
  for (const [k, v] of Object.entries({ client_id: clientId, response_type: "code", redirect_uri: REDIRECT, scope: "openid", state: "s1", code_challenge: challenge, code_challenge_method: "S256" })) {
    auth.searchParams.set(k, v);
  }
  const start = await jarFetch(jar, auth.href, { headers: { "x-forwarded-for": ip } });
  const page = new URL(start.headers.get("location")!, server.issuer).href;
  const login = await post(jar, page, "login", { username: handle, password: PASSWORD }, ip);
  // Back to the same page without an error: the password was right and the code is asked next.
  expect(new URL(login.headers.get("location")!).pathname).toBe(new URL(page).pathname);
  expect(new URL(login.headers.get("location")!).searchParams.get("error")).toBeNull();
  return { page, login };
}

const trustedCookies = (res: Response) => res.headers.getSetCookie().filter((c) => c.startsWith("_trusted_"));

describe("guessing the second factor", () => {
  it("the password alone earns no trusted-device cookie; the whole sign-in does", async () => {
    const { secret } = await userWithTotp("cookiecora");
    const jar = new CookieJar();
    const { page, login } = await passwordStep("cookiecora", jar, "198.51.100.10");
    expect(trustedCookies(login)).toEqual([]);
    const wrong = await post(jar, page, "second-factor", { code: await wrongCode(secret) }, "198.51.100.10");
    expect(new URL(wrong.headers.get("location")!).searchParams.get("error")).toBe("invalid_code");
    expect(trustedCookies(wrong)).toEqual([]);
    const right = await post(jar, page, "second-factor", { code: await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 }) }, "198.51.100.10");
    expect(new URL(right.headers.get("location")!).searchParams.get("error")).toBeNull();
    expect(trustedCookies(right)).toEqual([expect.stringMatching(/^_trusted_cookiecora=[^;]+; Path=\/interaction\//)]);
  });

  it(`${ATTEMPTS} wrong codes from fresh addresses, each with a fresh trusted-device cookie, are refused after the account's limit`, async () => {
    const { SECOND_FACTOR_LIMIT_PER_ACCOUNT } = await import("../../lib/services/throttle");
    const { secret } = await userWithTotp("guessgus");
    const outcomes: string[] = [];
    for (let i = 0; i < ATTEMPTS; i++) {
      const jar = new CookieJar();
      await giveTrustedDeviceCookie(jar, "guessgus");
      const ip = `203.0.113.${i + 1}`;
      const { page } = await passwordStep("guessgus", jar, ip);
      const res = await post(jar, page, "second-factor", { code: await wrongCode(secret) }, ip);
      outcomes.push(new URL(res.headers.get("location")!).searchParams.get("error") ?? "signed in");
    }
    expect(SECOND_FACTOR_LIMIT_PER_ACCOUNT).toBeLessThanOrEqual(10);
    expect(outcomes.slice(0, SECOND_FACTOR_LIMIT_PER_ACCOUNT)).toEqual(Array(SECOND_FACTOR_LIMIT_PER_ACCOUNT).fill("invalid_code"));
    expect(outcomes.slice(SECOND_FACTOR_LIMIT_PER_ACCOUNT)).toEqual(Array(ATTEMPTS - SECOND_FACTOR_LIMIT_PER_ACCOUNT).fill("too_many_attempts"));
    // While the account's limit holds, even the right code is not looked at (nothing to probe with).
    const jar = new CookieJar();
    await giveTrustedDeviceCookie(jar, "guessgus");
    const { page } = await passwordStep("guessgus", jar, "203.0.113.200");
    const right = await post(jar, page, "second-factor", { code: await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 }) }, "203.0.113.200");
    expect(new URL(right.headers.get("location")!).searchParams.get("error")).toBe("too_many_attempts");
  });
});
