import { randomBytes } from "node:crypto";

const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

/** `prefix_` + 24 random base32 characters (120 bits): event, webhook and delivery ids. */
export function newPublicId(prefix: "evt" | "wh" | "dlv"): string {
  const bytes = randomBytes(24);
  let out = `${prefix}_`;
  for (const b of bytes) out += ALPHABET[b & 31];
  return out;
}
