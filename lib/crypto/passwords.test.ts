import { randomBytes, scryptSync, webcrypto } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hashPassword, MAX_CONCURRENT_SCRYPT, needsRehash, runtimePadding, SCRYPT_PARAMETERS, verifyPassword } from "./passwords";

/** A hash as an older release (or the bench seed) stored it. */
function legacyHash(password: string, N: number, r: number, p: number): string {
  const salt = randomBytes(16);
  const key = scryptSync(password.normalize("NFKC"), salt, 32, { N, r, p, maxmem: 128 * N * r * 2 });
  return `scrypt$${N}$${r}$${p}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

describe("password hashing", () => {
  it("uses OWASP's 32 MiB scrypt setting, N=2^15, r=8, p=3, stored with the hash", async () => {
    expect(SCRYPT_PARAMETERS).toEqual({ N: 32768, r: 8, p: 3 });
    const stored = await hashPassword("correct horse");
    expect(stored).toMatch(/^scrypt\$32768\$8\$3\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(await verifyPassword("correct horse", stored)).toBe(true);
    expect(await verifyPassword("correct horsf", stored)).toBe(false);
    expect(needsRehash(stored)).toBe(false);
  });

  it("an older hash still verifies, with its own parameters, and needs a rehash", async () => {
    const old = legacyHash("correct horse", 1 << 15, 8, 1);
    expect(await verifyPassword("correct horse", old)).toBe(true);
    expect(await verifyPassword("wrong", old)).toBe(false);
    expect(needsRehash(old)).toBe(true);
    expect(needsRehash(legacyHash("x", 1 << 4, 8, 1))).toBe(true);
  });

  it("needsRehash: any difference in N, r, p or key length, and anything unreadable", () => {
    const salt = randomBytes(16).toString("base64url");
    const key = randomBytes(32).toString("base64url");
    expect(needsRehash(`scrypt$32768$8$3$${salt}$${key}`)).toBe(false);
    expect(needsRehash(`scrypt$65536$8$3$${salt}$${key}`)).toBe(true);
    expect(needsRehash(`scrypt$32768$16$3$${salt}$${key}`)).toBe(true);
    expect(needsRehash(`scrypt$32768$8$1$${salt}$${key}`)).toBe(true);
    expect(needsRehash(`scrypt$32768$8$3$${salt}$${randomBytes(64).toString("base64url")}`)).toBe(true);
    for (const junk of ["", "bcrypt$2b$10$abc", "scrypt$x$8$3$a$b", `scrypt$32768$8$3$${salt}`, `scrypt$32768$8$3$${salt}$${key}$extra`]) {
      expect(needsRehash(junk), junk).toBe(true);
    }
  });

  it("unreadable hashes never verify", async () => {
    for (const junk of ["", "plain-text-password", "scrypt$0$8$3$a$b", "scrypt$-1$8$3$a$b", "scrypt$32768$8$3$$"]) {
      expect(await verifyPassword("plain-text-password", junk), junk).toBe(false);
    }
  });

  it("a wrong password against a cheaper hash is padded to today's work (no timing oracle for old accounts)", () => {
    expect(runtimePadding(SCRYPT_PARAMETERS)).toBeNull();
    expect(runtimePadding({ N: 1 << 16, r: 8, p: 3 })).toBeNull();
    // p=1 → p=3: two more units of N·r.
    expect(runtimePadding({ N: 1 << 15, r: 8, p: 1 })).toEqual({ N: 1 << 15, r: 8, p: 2 });
    // The bench's N=2^4 hash costs next to nothing: pay nearly all of it.
    expect(runtimePadding({ N: 1 << 4, r: 8, p: 1 })).toEqual({ N: 1 << 15, r: 8, p: 3 });
    expect(runtimePadding({ N: 1 << 14, r: 8, p: 1 })).toEqual({ N: 1 << 15, r: 8, p: 3 });
  });

  it("a burst of hashing leaves libuv's thread pool free for pg's SCRAM handshake (WebCrypto PBKDF2)", async () => {
    expect(MAX_CONCURRENT_SCRYPT).toBeLessThan(4);
    // 20 hashes at once: unlimited, they would fill the pool's 4 threads for 5 rounds of ~150 ms.
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
