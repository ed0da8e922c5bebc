import { randomBytes, scryptSync, webcrypto } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ARGON2_PARAMETERS, CURRENT_HASH_PATTERN, hashPassword, MAX_CONCURRENT_HASHES, needsRehash, needsRuntimePadding, verifyPassword } from "./passwords";

/** A hash as an older release (or the bench seed) stored it. */
function legacyHash(password: string, N: number, r: number, p: number): string {
  const salt = randomBytes(16);
  const key = scryptSync(password.normalize("NFKC"), salt, 32, { N, r, p, maxmem: 128 * N * r * 2 });
  return `scrypt$${N}$${r}$${p}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

describe("password hashing", () => {
  it("uses Argon2id above OWASP's minimum (m = 19 MiB, t = 2): m = 19 MiB, t = 5, p = 1, stored as a PHC string", async () => {
    expect(ARGON2_PARAMETERS).toEqual({ memoryCost: 19456, timeCost: 5, parallelism: 1 });
    const stored = await hashPassword("correct horse");
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=5,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(stored).toMatch(CURRENT_HASH_PATTERN);
    expect(await verifyPassword("correct horse", stored)).toBe(true);
    expect(await verifyPassword("correct horsf", stored)).toBe(false);
    expect(needsRehash(stored)).toBe(false);
  });

  it("an scrypt hash of an earlier release still verifies, with its own parameters, and needs a rehash", async () => {
    for (const old of [legacyHash("correct horse", 1 << 15, 8, 3), legacyHash("correct horse", 1 << 15, 8, 1)]) {
      expect(await verifyPassword("correct horse", old)).toBe(true);
      expect(await verifyPassword("wrong", old)).toBe(false);
      expect(needsRehash(old)).toBe(true);
    }
    expect(needsRehash(legacyHash("x", 1 << 4, 8, 1))).toBe(true);
  });

  it("needsRehash: any other Argon2 variant or parameter, and anything unreadable", () => {
    const salt = randomBytes(16).toString("base64").replace(/=+$/, "");
    const key = randomBytes(32).toString("base64").replace(/=+$/, "");
    expect(needsRehash(`$argon2id$v=19$m=19456,t=5,p=1$${salt}$${key}`)).toBe(false);
    // The previous release's setting (OWASP's minimum, t = 2): replaced at the next sign-in.
    expect(needsRehash(`$argon2id$v=19$m=19456,t=2,p=1$${salt}$${key}`)).toBe(true);
    expect(needsRehash(`$argon2id$v=19$m=12288,t=5,p=1$${salt}$${key}`)).toBe(true);
    expect(needsRehash(`$argon2id$v=19$m=19456,t=1,p=1$${salt}$${key}`)).toBe(true);
    expect(needsRehash(`$argon2i$v=19$m=19456,t=5,p=1$${salt}$${key}`)).toBe(true);
    expect(needsRehash(`$argon2id$v=19$m=19456,t=5,p=1$${salt}$${randomBytes(64).toString("base64").replace(/=+$/, "")}`)).toBe(true);
    for (const junk of ["", "bcrypt$2b$10$abc", "scrypt$x$8$3$a$b", `$argon2id$v=19$m=19456,t=2,p=1$${salt}`]) {
      expect(needsRehash(junk), junk).toBe(true);
    }
  });

  it("unreadable hashes never verify", async () => {
    for (const junk of ["", "plain-text-password", "scrypt$0$8$3$a$b", "scrypt$-1$8$3$a$b", "scrypt$32768$8$3$$", "scrypt$1000$8$1$a$b", "$argon2id$v=19$m=19456,t=2,p=1$$"]) {
      expect(await verifyPassword("plain-text-password", junk), junk).toBe(false);
    }
  });

  it("a wrong password against a cheaper scrypt hash also pays an Argon2id check (no timing oracle for old accounts)", () => {
    expect(needsRuntimePadding({ N: 1 << 15, r: 8, p: 3 })).toBe(false);
    expect(needsRuntimePadding({ N: 1 << 15, r: 8, p: 1 })).toBe(false);
    expect(needsRuntimePadding({ N: 1 << 14, r: 8, p: 1 })).toBe(true);
    // The bench's N=2^4 hash costs next to nothing.
    expect(needsRuntimePadding({ N: 1 << 4, r: 8, p: 1 })).toBe(true);
  });

  it("a burst of hashing leaves libuv's thread pool free for pg's SCRAM handshake (WebCrypto PBKDF2)", async () => {
    expect(MAX_CONCURRENT_HASHES).toBeLessThan(4);
    // 20 hashes at once: unlimited, they would fill the pool's 4 threads for 5 rounds.
    const burst = Array.from({ length: 20 }, (_, i) => hashPassword(`burst ${i}`));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const started = performance.now();
    const key = await webcrypto.subtle.importKey("raw", new TextEncoder().encode("db password"), "PBKDF2", false, ["deriveBits"]);
    await webcrypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt: randomBytes(16), iterations: 4096 }, key, 256);
    const waited = performance.now() - started;
    await Promise.all(burst);
    expect(waited, `PBKDF2 waited ${waited.toFixed(0)} ms behind the hashes`).toBeLessThan(300);
  });
});
