import { availableParallelism } from "node:os";
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { hash as argon2Hash, verify as argon2Verify, type Algorithm } from "@node-rs/argon2";

/**
 * Password hashing: Argon2id at m = 19 MiB, t = 5, p = 1, through @node-rs/argon2 (the
 * Rust argon2 crate, prebuilt for each platform, no install script). The hash runs on libuv's thread
 * pool, never on the event loop. Stored as the PHC string `$argon2id$v=19$m=19456,t=5,p=1$salt$key`,
 * which carries its own parameters.
 *
 * Why t = 5: OWASP's Password Storage Cheat Sheet asks for at least m = 19 MiB, t = 2; issue 24
 * allows "or stronger" and asks that a sign-in still be mostly the hash (bench case F at least 80 %
 * of the hash alone, case D) at 30 sign-ins/s or more on the 2-core bench machine. At t = 2 (11 ms a
 * check there) the rest of a sign-in (five requests through oidc-provider, ~10 statements that
 * write, the load generator: ~26 ms of CPU) could never be a quarter of it. t = 5 (25 ms, the same
 * 19 MiB of memory, so the same RSS) is the strongest setting that keeps case F above 30/s: each
 * guess costs an attacker 2.5 times OWASP's minimum, and a person waits 14 ms longer. Raising it
 * again only needs this constant: older hashes are replaced at the next sign-in (needsRehash).
 *
 * Hashes of earlier releases, `scrypt$N$r$p$salt$key` (base64url) or Argon2id at other parameters,
 * still verify and are replaced at the owner's next successful sign-in (needsRehash,
 * lib/services/users.ts).
 */
export const ARGON2_PARAMETERS = { memoryCost: 19 * 1024, timeCost: 5, parallelism: 1 } as const;
const KEY_LENGTH = 32;
/** A hash hashPassword stores today, whole: the PHC string at ARGON2_PARAMETERS, 16-byte salt, 32-byte key. */
export const CURRENT_HASH_PATTERN = new RegExp(
  `^\\$argon2id\\$v=19\\$m=${ARGON2_PARAMETERS.memoryCost},t=${ARGON2_PARAMETERS.timeCost},p=${ARGON2_PARAMETERS.parallelism}\\$[A-Za-z0-9+/]{22}\\$[A-Za-z0-9+/]{43}$`,
);
/** `Algorithm.Argon2id`: the package declares a const enum, which isolated modules cannot read. */
const ARGON2ID = 2 as Algorithm;

interface ScryptParameters {
  N: number;
  r: number;
  p: number;
}

interface ParsedScryptHash extends ScryptParameters {
  salt: Buffer;
  key: Buffer;
}

/**
 * At most this many hashes run at once in a process; the others wait their turn (no CPU). Each
 * occupies a thread of libuv's pool (4 by default) for ~20 ms of CPU and 19 MiB, and that pool also
 * runs pg's SCRAM handshake (WebCrypto PBKDF2), file reads and DNS lookups: a burst of sign-ins
 * must not hold every thread, or new database connections time out. It must not take every core
 * either: one core stays for the event loop, PostgreSQL and the rest of the sign-in, so
 * the API keeps answering during a burst of logins. So: the cores less one, at least 1, at most 2.
 * Who gets a turn first, and how long anyone may wait for one, is the sign-in gate's business
 * (lib/services/password-checks.ts).
 */
export const MAX_CONCURRENT_HASHES = Math.max(1, Math.min(2, availableParallelism() - 1));
let running = 0;
const waiting: (() => void)[] = [];

async function withHashSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_CONCURRENT_HASHES) await new Promise<void>((resolve) => waiting.push(resolve));
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
  return withHashSlot(
    () =>
      new Promise((resolve, reject) =>
        scryptCallback(password.normalize("NFKC"), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
      ),
  );
}

function parseScryptHash(stored: string): ParsedScryptHash | null {
  const [scheme, n, r, p, salt, key, ...rest] = stored.split("$");
  if (scheme !== "scrypt" || !n || !r || !p || !salt || !key || rest.length) return null;
  const [N, R, P] = [Number(n), Number(r), Number(p)];
  if (![N, R, P].every((v) => Number.isSafeInteger(v) && v > 0)) return null;
  // Node refuses N that is not a power of two; refuse here, with no work done.
  if ((N & (N - 1)) !== 0 || N < 2) return null;
  return { N, r: R, p: P, salt: Buffer.from(salt, "base64url"), key: Buffer.from(key, "base64url") };
}

/** `$argon2id$v=19$m=…,t=…,p=…$salt$key`: the parameters, or null for anything else. */
function parseArgon2Parameters(stored: string): { m: number; t: number; p: number; keyLength: number } | null {
  const match = /^\$argon2id\$v=19\$m=(\d{1,7}),t=(\d{1,3}),p=(\d{1,2})\$[A-Za-z0-9+/]{11,}\$([A-Za-z0-9+/]{16,})$/.exec(stored);
  if (!match) return null;
  return { m: Number(match[1]), t: Number(match[2]), p: Number(match[3]), keyLength: Math.floor((match[4]!.length * 3) / 4) };
}

export async function hashPassword(password: string): Promise<string> {
  return withHashSlot(() =>
    argon2Hash(password.normalize("NFKC"), { algorithm: ARGON2ID, ...ARGON2_PARAMETERS, outputLen: KEY_LENGTH }),
  );
}

/** Whether a stored hash is not Argon2id at today's parameters (then it is replaced at the next sign-in). */
export function needsRehash(stored: string): boolean {
  const parsed = parseArgon2Parameters(stored);
  if (!parsed) return true;
  const { memoryCost, timeCost, parallelism } = ARGON2_PARAMETERS;
  return parsed.m !== memoryCost || parsed.t !== timeCost || parsed.p !== parallelism || parsed.keyLength !== KEY_LENGTH;
}

/**
 * Whether a wrong password against this old scrypt hash must also pay one Argon2id check, so that it
 * takes about as long as a check at today's parameters (an unknown user's dummy check) and old
 * accounts are not told apart by timing: scrypt below N·r·p = 2^15·8 (32 MiB, one pass) costs less
 * than Argon2id at m = 19 MiB, t = 5 (Django's `harden_runtime` idea).
 */
export function needsRuntimePadding(stored: Pick<ScryptParameters, "N" | "r" | "p">): boolean {
  return stored.N * stored.r * stored.p < (1 << 15) * 8;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (parseArgon2Parameters(stored)) {
    return withHashSlot(() => argon2Verify(stored, password.normalize("NFKC"))).catch(() => false);
  }
  const parsed = parseScryptHash(stored);
  if (!parsed) return false;
  const actual = await scrypt(password, parsed.salt, parsed);
  const ok = actual.length === parsed.key.length && timingSafeEqual(actual, parsed.key);
  // No account enumeration by timing while old hashes remain.
  if (!ok && needsRuntimePadding(parsed)) await verifyPassword(password, await dummyPasswordHash());
  return ok;
}

/** A hash of a throwaway password, so unknown accounts cost the same time as known ones. */
let dummy: Promise<string> | undefined;
export function dummyPasswordHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(16).toString("hex"));
  return dummy;
}
