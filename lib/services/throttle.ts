import { env } from "../env";
import { throttleKeyOf } from "../http/client-ip";
import {
  decrementRateLimits,
  settleRateLimits,
  deleteStaleRateLimits,
  incrementRateLimits,
  type RateLimitCounter,
} from "../queries/throttle";

/**
 * The login throttle: fixed-window counters in the RateLimit table, shared by every process
 * (PRODUCT.md: rate limits live in PostgreSQL).
 *
 * An attempt is reserved before the password is checked, in one atomic upsert per key, so attempts
 * sent in parallel each see their own count and at most the limit are ever evaluated (
 * Reading the count, running scrypt and then writing let 50 parallel guesses through). Three keys:
 * - the (account, client IP) pair: 5 attempts, with growing delays before the 3rd, 4th and 5th;
 *   a stranger's guesses lock the pair, not the account's owner elsewhere;
 * - the client IP: 30 attempts, whichever accounts (password spraying);
 * - the account: 50 attempts from all addresses together. Over that, only an address with no
 *   attempt of its own on the account in this window is still heard, after a delay that grows with
 *   the failures (2 s, 4 s, 8 s); a browser that signed in to the account before (a trusted-device
 *   cookie, OWASP's "device cookies", lib/oidc/trusted-device.ts) keeps full access: its attempts
 *   are counted per device instead of per (account, address) and the account's lock does not
 *   apply to it.
 * Addresses are counted by throttleKeyOf (lib/http/client-ip.ts): IPv4 by address, IPv6 by network.
 * A refused attempt is given back at once (it was not evaluated), so hammering a closed pair does
 * not push the IP or the account towards their limits; a successful one is given back too (a
 * sign-in never uses up a budget). What remains counted is the wrong passwords, and those in flight.
 */
export const LOGIN_WINDOW_SECONDS = 15 * 60;
/** Attempts per (account, client IP) pair per window. */
export const LOGIN_LIMIT_PER_PAIR = 5;
/** Attempts per client IP per window, over all accounts. */
export const LOGIN_LIMIT_PER_IP = 30;
/** Attempts per account per window, over all addresses; over it, see LOGIN_LOCKED_FRESH_IP_DELAY_MS. */
export const LOGIN_LIMIT_PER_ACCOUNT = 50;
/** Before a pair's attempt n: nothing for n ≤ 2, then 1 s, 2 s, 4 s, … capped here. */
export const LOGIN_PAIR_DELAY_MAX_MS = 4000;
/**
 * An address with no attempt of its own on an account that is over its limit waits this long,
 * doubled for each further LOGIN_LIMIT_PER_ACCOUNT failures, up to LOGIN_LOCKED_DELAY_MAX_MS.
 */
export const LOGIN_LOCKED_FRESH_IP_DELAY_MS = 2000;
export const LOGIN_LOCKED_DELAY_MAX_MS = 8000;

/** The wait of an untrusted browser's attempt on an account whose window holds `accountCount` attempts (over the limit). */
export function lockedAccountDelayMs(accountCount: number): number {
  const doublings = Math.floor((accountCount - LOGIN_LIMIT_PER_ACCOUNT - 1) / LOGIN_LIMIT_PER_ACCOUNT);
  return Math.min(LOGIN_LOCKED_FRESH_IP_DELAY_MS * 2 ** Math.max(0, doublings), LOGIN_LOCKED_DELAY_MAX_MS);
}

/** The key a client address is counted under (IPv6 by its THROTTLE_IPV6_PREFIX network). */
export function clientThrottleKey(ip: string): string {
  return throttleKeyOf(ip, env().THROTTLE_IPV6_PREFIX);
}

/** The wait before a pair's attempt number `n` (1-based) is evaluated. */
export function pairDelayMs(n: number): number {
  return n <= 2 ? 0 : Math.min(1000 * 2 ** (n - 3), LOGIN_PAIR_DELAY_MAX_MS);
}

/** PostgreSQL text cannot hold NUL; a typed username may contain anything (it is no handle then). */
const keyPart = (value: string, max: number) => value.replace(/[\u0000-\u001f\u007f]/g, "\ufffd").slice(0, max);

export interface LoginKeys {
  /**
   * `login:pair:IP|account`: an address never holds `|`, so the split is unambiguous; for a
   * trusted device, `login:device:NONCE|account` (the device's own failure count).
   */
  pair: string;
  ip: string;
  account: string;
}

/**
 * Keys for a normalized handle (known or not: unknown handles are throttled alike), a client IP and,
 * when the browser showed a valid trusted-device cookie for this handle, that device's nonce.
 */
export function loginKeys(handle: string, ip: string, trustedDevice?: string): LoginKeys {
  const account = keyPart(handle.toLowerCase(), 100);
  const address = keyPart(clientThrottleKey(ip), 64);
  const pair = trustedDevice ? `login:device:${keyPart(trustedDevice, 64)}|${account}` : `login:pair:${address}|${account}`;
  return { pair, ip: `login:ip:${address}`, account: `login:account:${account}` };
}

/** `windowStart` is the key's window as the database wrote it: the give-back matches on it. */
type Counter = Omit<RateLimitCounter, "key">;

/** An admitted attempt: evaluate the password after `delayMs`, then settle it. */
export interface LoginReservation {
  keys: LoginKeys;
  counters: Record<keyof LoginKeys, Counter>;
  delayMs: number;
}

export type LoginAdmission = { ok: true; reservation: LoginReservation } | { ok: false; retryAt: Date };

const KEY_ORDER = ["pair", "ip", "account"] as const;

/**
 * Counts one attempt on all three keys in one statement (lib/queries/throttle.ts), always in the
 * order pair, ip, account, so concurrent statements cannot deadlock. A window that has ended
 * restarts at 1.
 */
async function reserve(keys: LoginKeys): Promise<Record<keyof LoginKeys, Counter>> {
  const rows = await incrementRateLimits(
    KEY_ORDER.map((name) => keys[name]),
    LOGIN_WINDOW_SECONDS,
  );
  const counter = (key: string): Counter => {
    const row = rows.find((r) => r.key === key);
    if (!row) throw new Error(`login throttle: no counter returned for ${key}`);
    return { count: row.count, windowStart: row.windowStart, windowEnd: row.windowEnd };
  };
  return { pair: counter(keys.pair), ip: counter(keys.ip), account: counter(keys.account) };
}

/** Takes one attempt back from each key, only within the window it was counted in, never below 0. */
async function giveBack(entries: { key: string; windowStart: string }[]): Promise<void> {
  if (entries.length === 0) return;
  await decrementRateLimits(entries);
}

/**
 * Reserves one sign-in attempt for (handle, ip) and decides on it before any password is looked at:
 * refused (with the earliest time the refusing limits allow another try), or admitted with the
 * delay to wait before evaluating it.
 */
export async function reserveLoginAttempt(handle: string, ip: string, trustedDevice?: string): Promise<LoginAdmission> {
  const keys = loginKeys(handle, ip, trustedDevice);
  const counters = await reserve(keys);
  const refusedUntil: Date[] = [];
  if (counters.ip.count > LOGIN_LIMIT_PER_IP) refusedUntil.push(counters.ip.windowEnd);
  if (counters.pair.count > LOGIN_LIMIT_PER_PAIR) refusedUntil.push(counters.pair.windowEnd);
  // Over the account limit, an address that has tried nothing on this account yet is still heard;
  // a trusted device is not held by the account's lock at all (its own pair limit still holds).
  const accountLocked = !trustedDevice && counters.account.count > LOGIN_LIMIT_PER_ACCOUNT;
  if (accountLocked && counters.pair.count > 1) refusedUntil.push(counters.account.windowEnd);
  if (refusedUntil.length > 0) {
    await giveBack(KEY_ORDER.map((name) => ({ key: keys[name], windowStart: counters[name].windowStart })));
    return { ok: false, retryAt: new Date(Math.max(...refusedUntil.map((d) => d.getTime()))) };
  }
  const delayMs = accountLocked ? lockedAccountDelayMs(counters.account.count) : pairDelayMs(counters.pair.count);
  return { ok: true, reservation: { keys, counters, delayMs } };
}

/**
 * After the password was checked. A wrong one keeps its reservation (that is the failure count);
 * the right one clears the pair and gives this attempt back to the IP and the account. One that
 * was never checked (the password-check gate turned it away) is given back on every key.
 */
export async function settleLoginAttempt(reservation: LoginReservation, outcome: "success" | "failure" | "unchecked"): Promise<void> {
  if (outcome === "failure") return;
  const { keys, counters } = reservation;
  if (outcome === "unchecked") {
    await giveBack(KEY_ORDER.map((name) => ({ key: keys[name], windowStart: counters[name].windowStart })));
    return;
  }
  await settleRateLimits(keys.pair, [
    { key: keys.ip, windowStart: counters.ip.windowStart },
    { key: keys.account, windowStart: counters.account.windowStart },
  ]);
}

/**
 * Wrong second-factor codes per account per window, from every address and browser together. A
 * trusted-device cookie does not lift this limit (it lifts only the password lock above): the
 * cookie says the browser once signed in, not that whoever holds it has the factor, and the
 * password alone must never buy more guesses at the code. 10 per 15 minutes leaves the owner room
 * for typos and caps someone who has the password at under a thousand guesses a day, each worth
 * about 3 in a million against a TOTP code.
 */
export const SECOND_FACTOR_LIMIT_PER_ACCOUNT = 10;

export type SecondFactorAdmission =
  | { ok: true; settle: (outcome: "success" | "failure" | "unchecked") => Promise<void> }
  | { ok: false; retryAt: Date };

/**
 * Reserves one second-factor code check on the account (normalized handle), before the code is
 * looked at. A wrong code keeps its place; a right or unchecked one gives it back (only its own:
 * the owner's success does not wipe an attacker's failures).
 */
export async function reserveSecondFactorAttempt(handle: string): Promise<SecondFactorAdmission> {
  const key = `login:factor:${keyPart(handle.toLowerCase(), 100)}`;
  const reserved = await reserveOne(key, LOGIN_WINDOW_SECONDS, SECOND_FACTOR_LIMIT_PER_ACCOUNT);
  if (!reserved.ok) return reserved;
  return { ok: true, settle: async (outcome) => (outcome === "failure" ? undefined : reserved.release()) };
}

/**
 * Counts one attempt under `key` in its window; over `limit`, the count is given back at once and
 * the answer says when the window ends. `release` gives the attempt back later.
 */
async function reserveOne(
  key: string,
  windowSeconds: number,
  limit: number,
): Promise<{ ok: true; release: () => Promise<void> } | { ok: false; retryAt: Date }> {
  const [counter] = await incrementRateLimits([key], windowSeconds);
  if (!counter) throw new Error(`throttle ${key.split(":")[0]}: no counter returned`);
  const entry = { key, windowStart: counter.windowStart };
  if (counter.count > limit) {
    await giveBack([entry]);
    return { ok: false, retryAt: counter.windowEnd };
  }
  return { ok: true, release: () => giveBack([entry]) };
}

/**
 * Device sign-in (RFC 8628 §5.1): the user code is short (8 characters of 20, about
 * 34 bits), so wrong entries are counted per client IP in the same RateLimit table. Only wrong
 * codes stay counted: an entry that found its code is given back.
 */
export const DEVICE_CODE_WINDOW_SECONDS = 15 * 60;
/** Wrong user codes per client IP per window. */
export const DEVICE_CODE_LIMIT_PER_IP = 10;

export type DeviceCodeAdmission =
  | { ok: true; release: () => Promise<void> }
  | { ok: false; retryAt: Date };

/** Reserves one user-code entry for this IP; `release` gives it back (the code was not a wrong one). */
export async function reserveDeviceCodeEntry(ip: string): Promise<DeviceCodeAdmission> {
  return reserveOne(`device:ip:${keyPart(clientThrottleKey(ip), 64)}`, DEVICE_CODE_WINDOW_SECONDS, DEVICE_CODE_LIMIT_PER_IP);
}

/**
 * RFC 8628 §3.5 `slow_down`: a device code polled again within `intervalSeconds` of the poll that
 * opened its window is polling too fast. One fixed window per device code (keyed by a digest: the
 * code itself is a secret), shared by every process.
 */
export async function isPollingTooFast(deviceCodeDigest: string, intervalSeconds: number): Promise<boolean> {
  const [counter] = await incrementRateLimits([`${DEVICE_POLL_PREFIX}${deviceCodeDigest}`], intervalSeconds);
  return (counter?.count ?? 1) > 1;
}

const DEVICE_POLL_PREFIX = "device:poll:";

/**
 * Dynamic client registration (RFC 7591, lib/oidc/registration.ts, DYNAMIC_REGISTRATION=agents): each
 * registration creates an agent client, so one address may register this many per window.
 */
export const REGISTRATION_WINDOW_SECONDS = 60 * 60;
export const REGISTRATION_LIMIT_PER_IP = 10;
const REGISTRATION_PREFIX = "register:ip:";

/** Counts one registration for this IP; refused (with when to retry) over the limit. */
export async function reserveClientRegistration(ip: string): Promise<{ ok: true } | { ok: false; retryAt: Date }> {
  const admission = await reserveOne(`${REGISTRATION_PREFIX}${keyPart(clientThrottleKey(ip), 64)}`, REGISTRATION_WINDOW_SECONDS, REGISTRATION_LIMIT_PER_IP);
  return admission.ok ? { ok: true } : admission;
}

/**
 * Counters whose window has ended count nothing any more (the next attempt on the key starts a new
 * window at 1), yet each would stay in the table for good: one row per (address, account) pair ever
 * tried, so a spray of made-up names would grow it without bound. The sign-in service's periodic
 * clean-up (lib/oidc/adapter.ts) deletes them: login, user-code and registration counters a window after theirs
 * began, polling counters (one per device code, which lives minutes) after an hour.
 */
export async function deleteEndedCounters(): Promise<number> {
  const counts = await Promise.all([
    deleteStaleRateLimits("login:", LOGIN_WINDOW_SECONDS),
    deleteStaleRateLimits("device:ip:", DEVICE_CODE_WINDOW_SECONDS),
    deleteStaleRateLimits(DEVICE_POLL_PREFIX, 60 * 60),
    deleteStaleRateLimits(REGISTRATION_PREFIX, REGISTRATION_WINDOW_SECONDS),
  ]);
  return counts.reduce((sum, n) => sum + n, 0);
}
