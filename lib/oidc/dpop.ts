import { createHash, createPublicKey, hkdfSync, timingSafeEqual, verify, type JsonWebKey, type KeyObject } from "node:crypto";
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

/**
 * The parameters of a `WWW-Authenticate: DPoP` refusal (RFC 9449 §7.1) every surface sends (the API
 * and /mcp, lib/api/auth.ts; userinfo, provider.ts): the error, its reason (quotes and backslashes
 * made apostrophes, so the header stays well formed) and the proof algorithms accepted.
 */
export function dpopChallengeParams(error: string, description: string): string {
  return `error="${error}", error_description="${description.replace(/["\\]/g, "'")}", algs="${DPOP_SIGNING_ALGS.join(" ")}"`;
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

function nonces(): Promise<{ next: string; accepted: string[] } | undefined> | undefined {
  return env().DPOP_NONCE ? serverNonces() : undefined;
}

/** The nonces of the current step, computed once per step (five HKDFs), as oidc-provider's ServerChallenge keeps its window. */
let nonceWindow: { secret: Buffer; step: number; value: { next: string; accepted: string[] } } | undefined;

async function serverNonces(): Promise<{ next: string; accepted: string[] }> {
  const secret = await dpopNonceSecret();
  const step = Math.floor(Date.now() / 1000 / NONCE_STEP_SECONDS);
  if (nonceWindow?.secret !== secret || nonceWindow.step !== step) {
    const accepted = [step - 2, step - 1, step, step + 1, step + 2].map((s) => nonceAt(secret, s));
    nonceWindow = { secret, step, value: { next: accepted[3]!, accepted } };
  }
  return nonceWindow.value;
}

function sameString(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The JWK members of a thumbprint (RFC 7638 §3.2), by key type, in lexicographic order. */
const THUMBPRINT_MEMBERS: Record<string, string[]> = { EC: ["crv", "kty", "x", "y"], OKP: ["crv", "kty", "x"] };
/** Which key each algorithm takes, and the digest node:crypto verifies it with. */
const ALG_KEYS: Record<string, { kty: string; crv: string[]; digest: string | null }> = {
  ES256: { kty: "EC", crv: ["P-256"], digest: "sha256" },
  Ed25519: { kty: "OKP", crv: ["Ed25519"], digest: null },
  EdDSA: { kty: "OKP", crv: ["Ed25519"], digest: null },
};

interface ProofKey {
  key: KeyObject;
  jkt: string;
  digest: string | null;
}

/**
 * A proof's protected header, checked once per distinct header: a client signs every proof with the
 * same key, so its header segment repeats, and parsing it, importing its key and hashing the key's
 * thumbprint cost more than verifying a signature. Bounded (a forger's headers push out the oldest).
 */
const headers = new LRUCache<string, ProofKey>({ max: 10_000 });

function proofKey(segment: string): ProofKey {
  const hit = headers.get(segment);
  if (hit) return hit;
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(Buffer.from(segment, "base64url").toString("utf8")) as Record<string, unknown>;
  } catch {
    throw new DpopError("invalid_dpop_proof", "The DPoP proof's header is not JSON.");
  }
  if (!header || typeof header !== "object" || header.typ !== "dpop+jwt") throw new DpopError("invalid_dpop_proof", "The DPoP proof's `typ` must be dpop+jwt.");
  const alg = typeof header.alg === "string" && DPOP_SIGNING_ALGS.includes(header.alg) ? ALG_KEYS[header.alg]! : undefined;
  if (!alg) throw new DpopError("invalid_dpop_proof", `The DPoP proof's \`alg\` must be one of ${DPOP_SIGNING_ALGS.join(", ")}.`);
  // No extension this verifier does not know (RFC 7515 §4.1.11).
  if (header.crit !== undefined) throw new DpopError("invalid_dpop_proof", "The DPoP proof's header has a `crit` this server does not support.");
  const jwk = header.jwk as Record<string, unknown> | undefined;
  if (!jwk || typeof jwk !== "object" || Array.isArray(jwk)) throw new DpopError("invalid_dpop_proof", "The DPoP proof must carry its public key in the `jwk` header.");
  // A private key in the header is refused, as jose's EmbeddedJWK refuses it.
  if ("d" in jwk) throw new DpopError("invalid_dpop_proof", "The DPoP proof's `jwk` must be a public key.");
  if (jwk.kty !== alg.kty || !alg.crv.includes(jwk.crv as string)) throw new DpopError("invalid_dpop_proof", "The DPoP proof's `jwk` is not a key of its `alg`.");
  const members = THUMBPRINT_MEMBERS[alg.kty]!;
  if (!members.every((name) => typeof jwk[name] === "string")) throw new DpopError("invalid_dpop_proof", "The DPoP proof's `jwk` is incomplete.");
  const publicJwk = Object.fromEntries(members.map((name) => [name, jwk[name]])) as JsonWebKey;
  let key: KeyObject;
  try {
    key = createPublicKey({ key: publicJwk, format: "jwk" });
  } catch {
    throw new DpopError("invalid_dpop_proof", "The DPoP proof's `jwk` is not a valid public key.");
  }
  const entry = { key, jkt: createHash("sha256").update(JSON.stringify(publicJwk)).digest("base64url"), digest: alg.digest };
  headers.set(segment, entry);
  return entry;
}

/** An ASN.1 INTEGER of an unsigned big-endian value (leading zeros dropped, a zero byte before a high bit). */
function derInteger(value: Buffer): Buffer {
  let start = 0;
  while (start < value.length - 1 && value[start] === 0) start++;
  const body = value[start]! & 0x80 ? Buffer.concat([Buffer.from([0]), value.subarray(start)]) : value.subarray(start);
  return Buffer.concat([Buffer.from([0x02, body.length]), body]);
}

/**
 * The JWS signature check: synchronous, an ECDSA signature turned from JOSE's r‖s into DER first.
 * Of node:crypto's ways it costs the least CPU per P-256 check here (about 67 µs, against 89 to 110
 * for its `dsaEncoding` option, its thread-pool callback and WebCrypto, none of which kept the work
 * off the event loop in the bench's profiles), and every DPoP-bound call pays it.
 */
function signatureHolds(key: ProofKey, input: string, signature: Buffer): boolean {
  if (key.key.asymmetricKeyType !== "ec") return verify(key.digest, Buffer.from(input), key.key, signature);
  if (signature.length !== 64) return false;
  const sequence = Buffer.concat([derInteger(signature.subarray(0, 32)), derInteger(signature.subarray(32))]);
  return verify(key.digest, Buffer.from(input), key.key, Buffer.concat([Buffer.from([0x30, sequence.length]), sequence]));
}

/** The request's URL without query and fragment, as a proof's `htu` must name it; fast for the common form. */
function withoutQuery(url: string): string {
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
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
  const pending = nonces();
  const current = pending && (await pending);
  // Several DPoP headers arrive joined by ", " (lib/api/node.ts); a JWS never holds a comma.
  if (!header || header.includes(",") || header.length > 8192) throw new DpopError("invalid_dpop_proof", "Send exactly one DPoP proof in the `DPoP` header.");
  const parts = header.split(".");
  if (parts.length !== 3 || !parts[0] || !parts[1] || !parts[2]) throw new DpopError("invalid_dpop_proof", "The DPoP proof is not a compact JWS.");
  const key = proofKey(parts[0]);
  if (!signatureHolds(key, `${parts[0]}.${parts[1]}`, Buffer.from(parts[2], "base64url"))) {
    throw new DpopError("invalid_dpop_proof", "The DPoP proof's signature does not verify with its `jwk`.");
  }
  let payload: Record<string, unknown>;
  try {
    payload = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8")) as Record<string, unknown>;
  } catch {
    throw new DpopError("invalid_dpop_proof", "The DPoP proof's claims are not JSON.");
  }
  if (!payload || typeof payload !== "object" || Array.isArray(payload)) throw new DpopError("invalid_dpop_proof", "The DPoP proof's claims are not a JSON object.");
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
  // The same string as the request's URL (what clients send), else the same URL once both are normalized.
  const plain = withoutQuery(input.url);
  if (typeof htu !== "string" || htu !== plain) {
    const expected = proofUrl(input.url);
    if (typeof htu !== "string" || expected === null || proofUrl(htu) !== expected) {
      throw new DpopError("invalid_dpop_proof", `The DPoP proof's \`htu\` must be ${expected ?? plain}.`);
    }
  }
  if (input.accessToken !== undefined && ath !== createHash("sha256").update(input.accessToken).digest("base64url")) {
    throw new DpopError("invalid_dpop_proof", "The DPoP proof's `ath` is not the hash of this access token.");
  }
  if (current && !nonce) throw new DpopError("use_dpop_nonce", "The DPoP proof must carry the server's DPoP nonce.", current.next);
  if (current && nonce && !current.accepted.some((value) => sameString(value, nonce))) {
    throw new DpopError("use_dpop_nonce", "The DPoP proof's nonce is not valid any more.", current.next);
  }
  return { jkt: key.jkt, jti, iat, ...(current && nonce !== current.next ? { nextNonce: current.next } : {}) };
}

/** oidc-provider's ReplayDetection id for a proof of `clientId` (models/replay_detection.js). */
export function replayId(clientId: string, jti: string): string {
  return createHash("sha256").update(`${clientId}${jti}`).digest("base64url");
}

/**
 * Claims the proof's `jti` for `clientId`: true the first time, false for every later use, in any
 * process. One INSERT per event-loop turn for all the turn's proofs, into a table of one narrow row
 * per proof (SpentJti); the row outlives every moment at which the proof could still pass the `iat`
 * window or carry a good nonce.
 */
const claimRows = turnBatched<{ id: string; expiresAt: string }, boolean>(async (claims) => {
  const first = new Map<string, number>();
  claims.forEach((claim, index) => {
    if (!first.has(claim.id)) first.set(claim.id, index);
  });
  const unique = [...first.keys()].map((id) => claims[first.get(id)!]!);
  const { rows } = await pool.query<{ id: string }>({
    name: "dpop_claim_batch_v2",
    text: `INSERT INTO "SpentJti" (id, "expiresAt") SELECT * FROM unnest($1::text[], $2::timestamp(3)[])
           ON CONFLICT (id) DO NOTHING RETURNING id`,
    values: [unique.map((c) => c.id), unique.map((c) => c.expiresAt)],
  });
  const inserted = new Set(rows.map((row) => row.id));
  return claims.map((claim, index) => first.get(claim.id) === index && inserted.has(claim.id));
});

/** Drops the spent JWTs that could not pass any more (lib/oidc/adapter.ts's periodic clean-up). */
export async function deleteExpiredSpentJtis(): Promise<number> {
  const { rowCount } = await pool.query(`DELETE FROM "SpentJti" WHERE "expiresAt" < $1`, [new Date().toISOString()]);
  return rowCount ?? 0;
}

export function claimDpopProof(clientId: string, proof: Pick<DpopProof, "jti" | "iat">): Promise<boolean> {
  const nowSeconds = Date.now() / 1000;
  const until = Math.max(nowSeconds, proof.iat) + PROOF_WINDOW_SECONDS + NONCE_STEP_SECONDS;
  return claimRows({ id: replayId(clientId, proof.jti), expiresAt: new Date(until * 1000).toISOString() });
}

/**
 * oidc-provider's own replay check (ReplayDetection.unique: find, then save) made atomic across
 * processes: adapter.ts answers its find by claiming the id here, true when it was new (its save
 * then only sets the row's payload and expiry).
 */
export function claimReplayId(id: string): Promise<boolean> {
  return claimRows({ id, expiresAt: new Date(Date.now() + REPLAY_CLAIM_SECONDS * 1000).toISOString() });
}

/** How long claimReplayId keeps a claim before oidc-provider's save says how long the JWT lives. */
const REPLAY_CLAIM_SECONDS = 2 * PROOF_WINDOW_SECONDS;

/**
 * oidc-provider's save of a claimed id (ReplayDetection, with the JWT's own lifetime): a client
 * assertion may live longer than a claim's default, and its claim must last as long.
 */
export async function extendReplayClaim(id: string, expiresInSeconds: number): Promise<void> {
  if (expiresInSeconds <= REPLAY_CLAIM_SECONDS) return;
  const until = new Date(Date.now() + expiresInSeconds * 1000).toISOString();
  await pool.query(`UPDATE "SpentJti" SET "expiresAt" = greatest("expiresAt", $2::timestamp(3)) WHERE id = $1`, [id, until]);
}
