import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Client secrets are 256-bit random values, so a fast hash is enough (nothing to brute-force) and
 * keeps the token endpoint fast. Stored as hex SHA-256; compared in constant time.
 */
export function generateClientSecret(): string {
  return randomBytes(32).toString("base64url");
}

export function hashClientSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

export function verifyClientSecret(secret: string, storedHash: string): boolean {
  const actual = Buffer.from(hashClientSecret(secret), "hex");
  const expected = Buffer.from(storedHash, "hex");
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

export function secretHint(secret: string): string {
  return secret.slice(-4);
}

/**
 * Which of an API client's active secrets (at most two) `secret` is, or null. Every candidate is
 * compared, in constant time, whether or not an earlier one matched: the answer's timing says
 * nothing about which secret, or how much of one, was right.
 */
export function matchClientSecret<T extends { hash: string }>(secret: string, candidates: readonly T[]): T | null {
  let found: T | null = null;
  for (const candidate of candidates) {
    if (verifyClientSecret(secret, candidate.hash) && found === null) found = candidate;
  }
  return found;
}
