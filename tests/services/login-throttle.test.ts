import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../helpers/db";
import { newDatabase, pointAppAt } from "../helpers/server";

/**
 * The login throttle (lib/services/throttle.ts), in-process on a fresh database: reservation before
 * evaluation (parallel attempts cannot pass the limit), the three keys and their limits, growing
 * delays, the account-wide lock that still hears a fresh address, give-backs, fixed windows.
 * Through real HTTP: tests/security/sign-in.test.ts.
 */
let databaseUrl: string;
let throttle: typeof import("../../lib/services/throttle");
let closeDb: () => Promise<void>;

beforeAll(async () => {
  databaseUrl = await newDatabase({ seed: false });
  closeDb = await pointAppAt(databaseUrl, { LOG_LEVEL: "silent" });
  throttle = await import("../../lib/services/throttle");
});

afterAll(async () => {
  await closeDb?.();
});

async function counts(...keys: string[]): Promise<Record<string, number>> {
  const rows = await query<{ key: string; count: number }>(databaseUrl, `SELECT key, count FROM "RateLimit" WHERE key = ANY($1)`, [keys]);
  return Object.fromEntries(keys.map((k) => [k, rows.find((r) => r.key === k)?.count ?? 0]));
}

/** n attempts one after the other, each a wrong password; returns each admission. */
async function fail(handle: string, ip: string, n: number) {
  const results = [];
  for (let i = 0; i < n; i++) {
    const admission = await throttle.reserveLoginAttempt(handle, ip);
    if (admission.ok) await throttle.settleLoginAttempt(admission.reservation, "failure");
    results.push(admission);
  }
  return results;
}

describe("login throttle", () => {
  it("exports its limits", () => {
    expect(throttle.LOGIN_WINDOW_SECONDS).toBe(900);
    expect(throttle.LOGIN_LIMIT_PER_PAIR).toBe(5);
    expect(throttle.LOGIN_LIMIT_PER_IP).toBe(30);
    expect(throttle.LOGIN_LIMIT_PER_ACCOUNT).toBe(50);
    expect([1, 2, 3, 4, 5, 6, 9].map(throttle.pairDelayMs)).toEqual([0, 0, 1000, 2000, 4000, 4000, 4000]);
  });

  it("per (account, IP): 5 attempts with growing delays, then refused until the window ends", async () => {
    const results = await fail("mia", "198.51.100.1", 6);
    expect(results.slice(0, 5).map((r) => (r.ok ? r.reservation.delayMs : null))).toEqual([0, 0, 1000, 2000, 4000]);
    const refused = results[5]!;
    expect(refused.ok).toBe(false);
    const retryAt = (refused as { retryAt: Date }).retryAt.getTime();
    expect(retryAt).toBeGreaterThan(Date.now() + 14 * 60_000);
    expect(retryAt).toBeLessThanOrEqual(Date.now() + 15 * 60_000 + 1000);
    // The refused attempt was given back everywhere: only the 5 evaluated attempts count.
    const keys = throttle.loginKeys("mia", "198.51.100.1");
    expect(await counts(keys.pair, keys.ip, keys.account)).toEqual({ [keys.pair]: 5, [keys.ip]: 5, [keys.account]: 5 });
    // The same account from another address is not affected.
    const other = await throttle.reserveLoginAttempt("mia", "198.51.100.2");
    expect(other).toMatchObject({ ok: true, reservation: { delayMs: 0 } });
  });

  it("attempts reserved in parallel: exactly the limit is admitted", async () => {
    const admissions = await Promise.all(Array.from({ length: 50 }, () => throttle.reserveLoginAttempt("noah", "198.51.100.3")));
    expect(admissions.filter((a) => a.ok)).toHaveLength(throttle.LOGIN_LIMIT_PER_PAIR);
    const keys = throttle.loginKeys("noah", "198.51.100.3");
    expect((await counts(keys.pair))[keys.pair]).toBe(5);
  });

  it("per IP: 30 attempts over all accounts, then that address is refused for every account", async () => {
    const ip = "192.0.2.9";
    for (let i = 0; i < throttle.LOGIN_LIMIT_PER_IP; i++) expect((await fail(`sprayed${i}`, ip, 1))[0]!.ok).toBe(true);
    expect((await throttle.reserveLoginAttempt("someone-else", ip)).ok).toBe(false);
    expect((await throttle.reserveLoginAttempt("someone-else", "192.0.2.10")).ok).toBe(true);
  });

  it("per account: over 50, a fresh address is heard after 2 s, an address that tried already is refused", async () => {
    const ips = Array.from({ length: 10 }, (_, i) => `203.0.113.${100 + i}`);
    await Promise.all(ips.map((ip) => fail("olga", ip, 5)));
    const keys = throttle.loginKeys("olga", "203.0.113.200");
    expect((await counts(keys.account))[keys.account]).toBe(50);
    const fresh = await throttle.reserveLoginAttempt("olga", "203.0.113.200");
    expect(fresh).toMatchObject({ ok: true, reservation: { delayMs: throttle.LOGIN_LOCKED_FRESH_IP_DELAY_MS } });
    if (fresh.ok) await throttle.settleLoginAttempt(fresh.reservation, "failure");
    // Its second attempt is no longer from a fresh address; nor is one that failed before.
    expect((await throttle.reserveLoginAttempt("olga", "203.0.113.200")).ok).toBe(false);
    expect((await throttle.reserveLoginAttempt("olga", ips[0]!)).ok).toBe(false);
    // An address with no attempt on olga is still heard, and a success gives its reservation back.
    const other = await throttle.reserveLoginAttempt("olga", "203.0.113.201");
    expect(other.ok).toBe(true);
    if (other.ok) await throttle.settleLoginAttempt(other.reservation, "success");
    expect((await counts(keys.account))[keys.account]).toBe(51);
  });

  it("IPv6 by /64 (THROTTLE_IPV6_PREFIX), IPv4 by address; a trusted device has a pair of its own", () => {
    expect(throttle.loginKeys("ann", "2001:db8:5:6:7:8:9:a").ip).toBe("login:ip:2001:db8:5:6::/64");
    expect(throttle.loginKeys("ann", "2001:db8:5:6::ffff").pair).toBe("login:pair:2001:db8:5:6::/64|ann");
    expect(throttle.loginKeys("ann", "2001:db8:5:7::1").ip).toBe("login:ip:2001:db8:5:7::/64");
    expect(throttle.loginKeys("ann", "192.0.2.77").ip).toBe("login:ip:192.0.2.77");
    expect(throttle.loginKeys("ann", "192.0.2.77", "NONCE").pair).toBe("login:device:NONCE|ann");
    expect([50, 51, 100, 101, 150, 151, 500].map(throttle.lockedAccountDelayMs)).toEqual([2000, 2000, 2000, 4000, 4000, 8000, 8000]);
  });

  it("a trusted device is not held by the account's lock", async () => {
    const ips = Array.from({ length: 10 }, (_, i) => `203.0.113.${150 + i}`);
    await Promise.all(ips.map((ip) => fail("tara", ip, 5)));
    expect((await throttle.reserveLoginAttempt("tara", ips[0]!)).ok).toBe(false);
    expect(await throttle.reserveLoginAttempt("tara", ips[0]!, "device-nonce")).toMatchObject({ ok: true, reservation: { delayMs: 0 } });
  });

  it("a success clears the pair and gives the attempt back to the IP and the account", async () => {
    const ip = "198.51.100.20";
    await fail("pia", ip, 2);
    const admission = await throttle.reserveLoginAttempt("pia", ip);
    expect(admission.ok).toBe(true);
    if (admission.ok) await throttle.settleLoginAttempt(admission.reservation, "success");
    const keys = throttle.loginKeys("pia", ip);
    expect(await counts(keys.pair, keys.ip, keys.account)).toEqual({ [keys.pair]: 0, [keys.ip]: 2, [keys.account]: 2 });
    // Successful sign-ins alone never use up a budget.
    for (let i = 0; i < 40; i++) {
      const ok = await throttle.reserveLoginAttempt("quinn", "198.51.100.21");
      expect(ok.ok).toBe(true);
      if (ok.ok) await throttle.settleLoginAttempt(ok.reservation, "success");
    }
    const q = throttle.loginKeys("quinn", "198.51.100.21");
    expect(await counts(q.pair, q.ip, q.account)).toEqual({ [q.pair]: 0, [q.ip]: 0, [q.account]: 0 });
  });

  it("a window that ended restarts at 1, and a late give-back never touches the new window", async () => {
    const ip = "198.51.100.30";
    await fail("rosa", ip, 5);
    const keys = throttle.loginKeys("rosa", ip);
    const pending = await throttle.reserveLoginAttempt("rosa", "198.51.100.31");
    expect(pending.ok).toBe(true);
    await query(databaseUrl, `UPDATE "RateLimit" SET "windowStart" = "windowStart" - interval '16 minutes' WHERE key LIKE '%rosa%'`);
    const again = await throttle.reserveLoginAttempt("rosa", ip);
    expect(again).toMatchObject({ ok: true, reservation: { delayMs: 0 } });
    expect(await counts(keys.pair, keys.account)).toEqual({ [keys.pair]: 1, [keys.account]: 1 });
    // The attempt reserved in the old window succeeds now: the new window's account count stays.
    if (pending.ok) await throttle.settleLoginAttempt(pending.reservation, "success");
    expect((await counts(keys.account))[keys.account]).toBe(1);
  });

  it("keys: any typed username is a key (NUL and control characters replaced), unknown or not", async () => {
    const keys = throttle.loginKeys("Eve\u0000\u0007", "2001:db8::1");
    expect(keys).toEqual({
      pair: "login:pair:2001:db8::/64|eve\ufffd\ufffd",
      ip: "login:ip:2001:db8::/64",
      account: "login:account:eve\ufffd\ufffd",
    });
    expect((await throttle.reserveLoginAttempt("Eve\u0000\u0007", "2001:db8::1")).ok).toBe(true);
    expect(throttle.loginKeys("x".repeat(500), "1.2.3.4").account).toHaveLength("login:account:".length + 100);
  });
});
