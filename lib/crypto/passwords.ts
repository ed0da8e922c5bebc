import { availableParallelism } from "node:os";
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from "node:crypto";

/**
 * Memory-hard password hashing: scrypt N=2^15, r=8, p=3, OWASP's Password Storage Cheat Sheet
 * setting for 32 MiB of memory (N=2^15 with p=1 is below its minimum). Stored as
 * `scrypt$N$r$p$salt$key` (base64url), so a hash made with older parameters still verifies and is
 * replaced at the owner's next successful sign-in (needsRehash, lib/services/users.ts).
 */
export const SCRYPT_PARAMETERS = { N: 1 << 15, r: 8, p: 3 } as const;
const KEY_LENGTH = 32;

interface ScryptParameters {
  N: number;
  r: number;
  p: number;
}

interface ParsedHash extends ScryptParameters {
  salt: Buffer;
  key: Buffer;
}

/**
 * At most this many scrypt computations run at once in a process; the others wait their turn (no
 * CPU). Each one occupies a thread of libuv's pool (4 by default) for ~150 ms and 32 MiB, and that
 * pool also runs pg's SCRAM handshake (WebCrypto PBKDF2), file reads and DNS lookups: a burst of
 * sign-ins must not hold every thread, or new database connections time out (seen: "Connection
 * terminated due to connection timeout" on 25 parallel logins on a loaded machine). It must not
 * take every core either (issue 18): one core stays for the event loop, PostgreSQL and the rest of
 * the sign-in, so the API keeps answering during a burst of logins and each login's own requests
 * are not queued behind other logins' hashes. So: the cores less one, at least 1, at most 2; on a
 * 2-core machine one hash at a time (32 MiB of memory for hashing at most, not 64).
 */
export const MAX_CONCURRENT_SCRYPT = Math.max(1, Math.min(2, availableParallelism() - 1));
let running = 0;
const waiting: (() => void)[] = [];

async function withScryptSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_CONCURRENT_SCRYPT) await new Promise<void>((resolve) => waiting.push(resolve));
  else running++;
  try {
    return await work();
  } finally {
    // Hand the slot straight to the next waiter, or free it.
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

function scrypt(password: string, salt: Buffer, { N, r, p }: ScryptParameters): Promise<Buffer> {
  // Node's scrypt needs 128·N·r bytes (plus 128·r·p); p costs time, not memory.
  const options: ScryptOptions = { N, r, p, maxmem: 128 * N * r * 2 + 128 * r * p };
  return withScryptSlot(
    () =>
      new Promise((resolve, reject) =>
        scryptCallback(password.normalize("NFKC"), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
      ),
  );
}

function parseHash(stored: string): ParsedHash | null {
  const [scheme, n, r, p, salt, key, ...rest] = stored.split("$");
  if (scheme !== "scrypt" || !n || !r || !p || !salt || !key || rest.length) return null;
  const [N, R, P] = [Number(n), Number(r), Number(p)];
  if (![N, R, P].every((v) => Number.isSafeInteger(v) && v > 0)) return null;
  return { N, r: R, p: P, salt: Buffer.from(salt, "base64url"), key: Buffer.from(key, "base64url") };
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, SCRYPT_PARAMETERS);
  const { N, r, p } = SCRYPT_PARAMETERS;
  return `scrypt$${N}$${r}$${p}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

/** Whether a stored hash was made with other parameters than today's (then it is replaced at the next sign-in). */
export function needsRehash(stored: string): boolean {
  const parsed = parseHash(stored);
  if (!parsed) return true;
  const { N, r, p } = SCRYPT_PARAMETERS;
  return parsed.N !== N || parsed.r !== r || parsed.p !== p || parsed.key.length !== KEY_LENGTH;
}

/**
 * The extra work a wrong password against a cheaper, older hash must still cost, so that it takes
 * as long as a check at today's parameters (an unknown user's dummy check): scrypt's time grows with
 * N·r·p, so the gap is paid as a scrypt at today's N and r with the missing p. Null when nothing is
 * missing (Django's `harden_runtime` idea).
 */
export function runtimePadding(stored: Pick<ScryptParameters, "N" | "r" | "p">): ScryptParameters | null {
  const { N, r, p } = SCRYPT_PARAMETERS;
  const missing = N * r * p - stored.N * stored.r * stored.p;
  if (missing <= 0) return null;
  return { N, r, p: Math.max(1, Math.round(missing / (N * r))) };
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (!parsed) return false;
  const actual = await scrypt(password, parsed.salt, parsed);
  const ok = actual.length === parsed.key.length && timingSafeEqual(actual, parsed.key);
  if (!ok) {
    // No account enumeration by timing while old hashes remain (issue 12: p went from 1 to 3).
    const padding = runtimePadding(parsed);
    if (padding) await scrypt(password, parsed.salt, padding);
  }
  return ok;
}

/** A hash of a throwaway password, so unknown accounts cost the same time as known ones. */
let dummy: Promise<string> | undefined;
export function dummyPasswordHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(16).toString("hex"));
  return dummy;
}
