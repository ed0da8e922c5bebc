import { createHash, hkdfSync, timingSafeEqual } from "node:crypto";
import { calculateJwkThumbprint, errors as joseErrors, importJWK, jwtVerify, type JWK, type JWTHeaderParameters, type KeyObject } from "jose";
import { LRUCache } from "lru-cache";
import { turnBatched } from "../database/batch";
import { pool } from "../database/client";
import { env } from "../env";
import { getCookieKeys } from "../services/settings";

/**
 * DPoP (RFC 9449): tokens bound to a key the client holds, for every place that issues or accepts
 * one outside oidc-provider's own code: the token endpoint's fast paths (client-credentials.ts,
 * refresh-grant.ts), the API and the MCP server (lib/api/auth.ts), userinfo (provider.ts). Each
 * proof is checked as oidc-provider 9.13's validate_dpop.js checks it (the same algorithms, `typ`,
 * `htm`, `htu` without query and fragment, `ath`, the five-minute `iat` window or a server nonce
 * of the same HKDF construction, so a nonce one issues the other accepts), and its `jti` is
 * claimed once in the table oidc-provider's ReplayDetection uses (lib/oidc/adapter.ts), under the
 * same id: a proof is spent for every process and both paths at once.
 */

/** The proof algorithms accepted (config.ts enabledJWA.dPoPSigningAlgValues, in the metadata). */
export const DPOP_SIGNING_ALGS = ["ES256", "Ed25519", "EdDSA"];

/** oidc-provider's CHALLENGE_OK_WINDOW: a proof without a nonce is good within this many seconds of its `iat`. */
export const PROOF_WINDOW_SECONDS = 300;
/** oidc-provider's nonce step: a nonce is good for two steps either side of the current one. */
const NONCE_STEP_SECONDS = 60;

/**
 * Why a proof was refused: the `error` of RFC 9449's answers (`invalid_token` for a bound token sent
 * as a bearer one), with the nonce to use next when asked.
 */
export class DpopError extends Error {
  constructor(
    readonly error: "invalid_dpop_proof" | "use_dpop_nonce" | "invalid_token",
    message: string,
    readonly nonce?: string,
  ) {
    super(message);
  }
}

/** A proof that checked out. */
export interface DpopProof {
  /** The JWK SHA-256 thumbprint of its key (RFC 7638): the `cnf.jkt` a token bound to it carries. */
  jkt: string;
  jti: string;
  iat: number;
  /** The nonce to announce in a `DPoP-Nonce` header (nonces on, and the proof did not carry this one). */
  nextNonce?: string;
}

let nonceSecret: { source: string; value: Buffer } | undefined;

/** The 32-byte nonce secret, derived from the first cookie key (shared by every process). */
export async function dpopNonceSecret(): Promise<Buffer> {
  const first = (await getCookieKeys())[0]!;
  if (nonceSecret?.source !== first) nonceSecret = { source: first, value: Buffer.from(hkdfSync("sha256", first, "", "dpop-nonce", 32)) };
  return nonceSecret.value;
}

/** oidc-provider's ServerChallenge value for a step (helpers/challenge.js), so nonces are interchangeable. */
function nonceAt(secret: Buffer, step: number): string {
  const salt = Buffer.alloc(8);
  salt.writeBigInt64BE(BigInt(step));
  return Buffer.from(hkdfSync("sha256", secret, salt, "DPoP", 32)).toString("base64url");
}

async function nonces(): Promise<{ next: string; accepted: string[] } | undefined> {
  if (!env().DPOP_NONCE) return undefined;
  const secret = await dpopNonceSecret();
  const step = Math.floor(Date.now() / 1000 / NONCE_STEP_SECONDS);
  const accepted = [step - 2, step - 1, step, step + 1, step + 2].map((s) => nonceAt(secret, s));
  return { next: accepted[3]!, accepted };
}

function sameString(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Imported public keys by their JWK, with their thumbprint: a client sends the same key with every
 * proof, and importing it and hashing its thumbprint cost more than verifying the signature.
 */
const keys = new LRUCache<string, { key: KeyObject | Uint8Array; jkt: string }>({ max: 10_000 });

async function embeddedKey(header: JWTHeaderParameters): Promise<KeyObject | Uint8Array> {
  const jwk = header.jwk;
  if (!jwk || typeof jwk !== "object") throw new DpopError("invalid_dpop_proof", "The DPoP proof must carry its public key in the `jwk` header.");
  const cacheKey = `${header.alg}\u0000${JSON.stringify(jwk)}`;
  const hit = keys.get(cacheKey);
  if (hit) return hit.key;
  // A private key in the header is refused (jose's EmbeddedJWK does the same).
  if ("d" in jwk || (jwk.kty as string) === "oct") throw new DpopError("invalid_dpop_proof", "The DPoP proof's `jwk` must be a public key.");
  const key = (await importJWK({ ...jwk, ext: true } as JWK, header.alg)) as KeyObject | Uint8Array;
  keys.set(cacheKey, { key, jkt: await calculateJwkThumbprint(jwk as JWK, "sha256") });
  return key;
}

/** The absolute URL a proof's `htu` must name, without query and fragment (RFC 9449 §4.3). */
export function proofUrl(url: string): string | null {
  const parsed = URL.parse(url);
  if (!parsed) return null;
  parsed.search = "";
  parsed.hash = "";
  return parsed.href;
}

/**
 * Checks the `DPoP` header of a request to `method url` (with `accessToken`: its `ath` too).
 * Throws DpopError. Does not claim the `jti`: the caller does once everything else checked out
 * (claimDpopProof), so a refused request does not spend the proof.
 */
export async function verifyDpopProof(header: string | null | undefined, input: { method: string; url: string; accessToken?: string }): Promise<DpopProof> {
  const current = await nonces();
  // Several DPoP headers arrive joined by ", " (lib/api/node.ts); a JWS never holds a comma.
  if (!header || header.includes(",") || header.length > 8192) throw new DpopError("invalid_dpop_proof", "Send exactly one DPoP proof in the `DPoP` header.");
  let payload: Record<string, unknown>;
  let protectedHeader: JWTHeaderParameters;
  try {
    ({ payload, protectedHeader } = await jwtVerify(header, embeddedKey, { algorithms: DPOP_SIGNING_ALGS, typ: "dpop+jwt" }));
  } catch (error) {
    if (error instanceof DpopError) throw error;
    const reason = error instanceof joseErrors.JOSEError ? error.message : "it could not be read";
    throw new DpopError("invalid_dpop_proof", `The DPoP proof is invalid: ${reason}.`);
  }
  const { iat, jti, htm, htu, ath, nonce } = payload;
  if (typeof iat !== "number" || !iat) throw new DpopError("invalid_dpop_proof", "The DPoP proof must have a numeric `iat`.");
  if (typeof jti !== "string" || !jti || jti.length > 512) throw new DpopError("invalid_dpop_proof", "The DPoP proof must have a `jti`.");
  if (nonce !== undefined && typeof nonce !== "string") throw new DpopError("invalid_dpop_proof", "The DPoP proof's `nonce` must be a string.");
  if (!nonce) {
    if (Math.abs(Date.now() / 1000 - iat) > PROOF_WINDOW_SECONDS) {
      if (current) throw new DpopError("use_dpop_nonce", "The DPoP proof is not recent enough: use the server's DPoP nonce.", current.next);
      throw new DpopError("invalid_dpop_proof", "The DPoP proof's `iat` is not within five minutes of the server's clock.");
    }
  } else if (!current) {
    throw new DpopError("invalid_dpop_proof", "This server issues no DPoP nonces.");
  }
  if (htm !== input.method) throw new DpopError("invalid_dpop_proof", `The DPoP proof's \`htm\` must be ${input.method}.`);
  const expected = proofUrl(input.url);
  if (typeof htu !== "string" || expected === null || proofUrl(htu) !== expected) {
    throw new DpopError("invalid_dpop_proof", `The DPoP proof's \`htu\` must be ${expected ?? input.url}.`);
  }
  if (input.accessToken !== undefined && ath !== createHash("sha256").update(input.accessToken).digest("base64url")) {
    throw new DpopError("invalid_dpop_proof", "The DPoP proof's `ath` is not the hash of this access token.");
  }
  if (current && !nonce) throw new DpopError("use_dpop_nonce", "The DPoP proof must carry the server's DPoP nonce.", current.next);
  if (current && nonce && !current.accepted.some((value) => sameString(value, nonce))) {
    throw new DpopError("use_dpop_nonce", "The DPoP proof's nonce is not valid any more.", current.next);
  }
  const jkt = keys.get(`${protectedHeader.alg}\u0000${JSON.stringify(protectedHeader.jwk)}`)?.jkt ?? (await calculateJwkThumbprint(protectedHeader.jwk as JWK, "sha256"));
  return { jkt, jti, iat, ...(current && nonce !== current.next ? { nextNonce: current.next } : {}) };
}

/** oidc-provider's ReplayDetection id for a proof of `clientId` (models/replay_detection.js). */
export function replayId(clientId: string, jti: string): string {
  return createHash("sha256").update(`${clientId}${jti}`).digest("base64url");
}

/**
 * Claims the proof's `jti` for `clientId`: true the first time, false for every later use, in any
 * process. One INSERT per event-loop turn for all the turn's proofs; the row outlives every moment
 * at which the proof could still pass the `iat` window or carry a good nonce.
 */
const claimRows = turnBatched<{ id: string; clientId: string | null; expiresAt: string }, boolean>(async (claims) => {
  const first = new Map<string, number>();
  claims.forEach((claim, index) => {
    if (!first.has(claim.id)) first.set(claim.id, index);
  });
  const unique = [...first.keys()].map((id) => claims[first.get(id)!]!);
  const { rows } = await pool.query<{ id: string }>({
    name: "dpop_claim_batch_v1",
    text: `INSERT INTO "OidcModel" (kind, id, payload, "clientId", "expiresAt")
           SELECT 'ReplayDetection', k.id, jsonb_build_object('kind', 'ReplayDetection', 'jti', k.id, 'iss', k.client), k.client, k.expires
             FROM unnest($1::text[], $2::text[], $3::timestamp(3)[]) AS k(id, client, expires)
           ON CONFLICT (kind, id) DO NOTHING
           RETURNING id`,
    values: [unique.map((c) => c.id), unique.map((c) => c.clientId), unique.map((c) => c.expiresAt)],
  });
  const inserted = new Set(rows.map((row) => row.id));
  return claims.map((claim, index) => first.get(claim.id) === index && inserted.has(claim.id));
});

export function claimDpopProof(clientId: string, proof: Pick<DpopProof, "jti" | "iat">): Promise<boolean> {
  const nowSeconds = Date.now() / 1000;
  const until = Math.max(nowSeconds, proof.iat) + PROOF_WINDOW_SECONDS + NONCE_STEP_SECONDS;
  return claimRows({ id: replayId(clientId, proof.jti), clientId, expiresAt: new Date(until * 1000).toISOString() });
}

/**
 * oidc-provider's own replay check (ReplayDetection.unique: find, then save) made atomic across
 * processes: adapter.ts answers its find by claiming the id here, true when it was new (its save
 * then only sets the row's payload and expiry).
 */
export function claimReplayId(id: string): Promise<boolean> {
  const until = Date.now() / 1000 + 2 * PROOF_WINDOW_SECONDS;
  return claimRows({ id, clientId: null, expiresAt: new Date(until * 1000).toISOString() });
}
