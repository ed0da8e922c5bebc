import { createHash, createPrivateKey, generateKeyPairSync, randomUUID, sign, type JsonWebKey, type KeyObject } from "node:crypto";

/**
 * DPoP proofs (RFC 9449 §4.2) for cases 4d and 5d: ES256, the public key in the `jwk` header, a
 * fresh `jti` each. Signed with node:crypto rather than jose because the load generator may have to
 * sign inside autocannon's synchronous setupRequest (bench/load-worker.ts, when its pool of ready
 * proofs runs out), and jose signs asynchronously (WebCrypto).
 */

/** A throwaway P-256 key pair as a private JWK (it carries the public `x`, `y`): plain JSON, for a load job. */
export function createDpopKey(): JsonWebKey {
  return generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "jwk" });
}

/** A proof's `ath`: base64url(SHA-256(access token)) (RFC 9449 §4.2). */
export function accessTokenHash(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}

export class DpopSigner {
  private readonly key: KeyObject;
  /** The encoded protected header, the same for every proof of this key. */
  private readonly header: string;

  constructor(privateJwk: JsonWebKey) {
    this.key = createPrivateKey({ key: privateJwk, format: "jwk" });
    const { kty, crv, x, y } = privateJwk;
    this.header = Buffer.from(JSON.stringify({ typ: "dpop+jwt", alg: "ES256", jwk: { kty, crv, x, y } })).toString("base64url");
  }

  /** A proof of `htm htu` (an absolute URL without query and fragment), with `ath` for a request that carries a bound token. */
  proof(htm: string, htu: string, ath?: string): string {
    const claims = { htm, htu, jti: randomUUID(), iat: Math.floor(Date.now() / 1000), ...(ath ? { ath } : {}) };
    const input = `${this.header}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}`;
    // JWS ES256 is the raw r || s signature (RFC 7518 §3.4), not DER.
    return `${input}.${sign("sha256", Buffer.from(input), { key: this.key, dsaEncoding: "ieee-p1363" }).toString("base64url")}`;
  }
}
