import { createPrivateKey, randomBytes, sign, type KeyObject } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { JWK } from "jose";
import { env } from "../env";
import { readBody } from "../http/body";
import { sendJson } from "../http/reply";
import { isSandboxClientId, SANDBOX_CLAIM } from "../schemas/sandboxes";
import { ROUTES } from "./config";
import { verifyDpopProof, type DpopProof } from "./dpop";
import { ACCESS_TOKEN_ALG, type SigningAlg, type StoredSigningKey } from "./keys";

/**
 * What the token endpoint's fast paths share (lib/oidc/client-credentials.ts, lib/oidc/refresh-grant.ts):
 * which requests are worth reading, the form they accept, the keys they sign with, and the reply.
 * Each fast path answers only its exact happy path with what oidc-provider would answer; anything
 * else goes to oidc-provider untouched, with the body already read.
 */

/** Bigger bodies are not a plain grant form; oidc-provider reads those itself. */
const MAX_FAST_BODY_BYTES = 2048;

/**
 * Headers only: is this worth reading the body for? A plain form POST to the token endpoint without
 * HTTP authentication (Basic) or an Origin (CORS answers differ); with a DPoP proof or without.
 */
export function isTokenFormCandidate(req: IncomingMessage, path: string, tokenPath: string): boolean {
  if (req.method !== "POST" || path !== tokenPath) return false;
  const h = req.headers;
  if (h.authorization !== undefined || h.origin !== undefined) return false;
  // The media type with no parameter but a UTF-8 charset, however spaced or cased (oauth4webapi sends
  // `application/x-www-form-urlencoded;charset=UTF-8`).
  const type = (h["content-type"] ?? "").toLowerCase().replace(/\s+/g, "");
  if (type !== "application/x-www-form-urlencoded" && type !== "application/x-www-form-urlencoded;charset=utf-8") return false;
  const length = Number(h["content-length"]);
  return Number.isInteger(length) && length > 0 && length <= MAX_FAST_BODY_BYTES && h["transfer-encoding"] === undefined;
}

/** The body (the candidate check bounded its declared length). */
export function readCandidateBody(req: IncomingMessage): Promise<Buffer> {
  return readBody(req, { limit: MAX_FAST_BODY_BYTES, headers: req.headers });
}

/**
 * The body's fields, once for both fast paths (index.ts picks one by `grant_type`), or null unless
 * every field is present once and non-empty, and nothing else is sent.
 */
export function parseTokenForm(body: Buffer): Map<string, string> | null {
  const seen = new Map<string, string>();
  for (const [key, value] of new URLSearchParams(body.toString("utf8"))) {
    if (seen.has(key) || value === "") return null;
    seen.set(key, value);
  }
  return seen;
}

/** True when the form has exactly `fields` (parseTokenForm already refused repeats and empties). */
export function hasExactly(form: ReadonlyMap<string, string>, fields: ReadonlySet<string>): boolean {
  return form.size === fields.size && [...form.keys()].every((key) => fields.has(key));
}

/**
 * An RFC 9068 access token's claims for the API, in the order oidc-provider writes them (jti, sub,
 * iat, exp, scope, client_id, iss, aud); `sub` only on user-delegated tokens (SPEC).
 */
export function accessTokenClaims(input: { sub?: string; iat: number; scope: string | undefined; clientId: string; jkt?: string }): Record<string, unknown> {
  const sandbox = isSandboxClientId(input.clientId);
  const { ISSUER, API_URL, ACCESS_TOKEN_TTL } = env();
  return {
    jti: randomBytes(32).toString("base64url"),
    ...(input.sub !== undefined ? { sub: input.sub } : {}),
    iat: input.iat,
    exp: input.iat + ACCESS_TOKEN_TTL,
    scope: input.scope,
    client_id: input.clientId,
    iss: ISSUER,
    aud: API_URL,
    // Bound to the DPoP proof's key (RFC 9449 §6.1), where oidc-provider's JWT format puts it.
    ...(input.jkt !== undefined ? { cnf: { jkt: input.jkt } } : {}),
    // A sandbox token says so (config.ts's customizer adds the same claim, last, on oidc-provider's tokens).
    ...(sandbox ? { [SANDBOX_CLAIM]: true } : {}),
  };
}

export interface JwtSigner {
  kid: string;
  key: KeyObject;
  /** base64url of the JOSE header, the same for every token this key signs. */
  encodedHeader: string;
}

/**
 * The key oidc-provider signs with for `alg`: the first published key of that algorithm
 * (listPublishedKeys orders active keys first, as the provider's keystore does). Access tokens
 * carry `typ: at+jwt` (RFC 9068); ID tokens no `typ`, as oidc-provider writes them.
 */
function signerFor(keys: StoredSigningKey[], alg: SigningAlg, typ?: string): JwtSigner | undefined {
  const found = keys.find((k) => k.alg === alg && k.retiredAt === null) ?? keys.find((k) => k.alg === alg);
  if (!found?.privateJwk.kid) return undefined;
  const header = typ ? { alg, typ, kid: found.privateJwk.kid } : { alg, kid: found.privateJwk.kid };
  return {
    kid: found.privateJwk.kid,
    key: createPrivateKey({ key: found.privateJwk as JWK & { kty: string }, format: "jwk" }),
    encodedHeader: Buffer.from(JSON.stringify(header)).toString("base64url"),
  };
}

export interface TokenSigners {
  accessToken: JwtSigner | undefined;
  /** RS256: every client's `id_token_signed_response_alg` (config.ts clientDefaults). */
  idToken: JwtSigner | undefined;
}

export function tokenSigners(keys: StoredSigningKey[]): TokenSigners {
  return { accessToken: signerFor(keys, ACCESS_TOKEN_ALG, "at+jwt"), idToken: signerFor(keys, "RS256") };
}

/**
 * A compact JWS of `payload` (claims in the given order). The callback form of crypto.sign runs in
 * libuv's thread pool, off the event loop; ECDSA signatures in P-1363 (r‖s) form, as JOSE wants.
 */
export async function signJwt(signer: JwtSigner, payload: Record<string, unknown>): Promise<string> {
  const input = `${signer.encodedHeader}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}`;
  const options = signer.key.asymmetricKeyType === "ec" ? { key: signer.key, dsaEncoding: "ieee-p1363" as const } : signer.key;
  const signature = await new Promise<Buffer>((resolve, reject) =>
    sign("sha256", Buffer.from(input), options, (error, result) => (error ? reject(error) : resolve(result))),
  );
  return `${input}.${signature.toString("base64url")}`;
}

/** A 200 token response with the headers oidc-provider's token endpoint sends for a request without Origin. */
/** The X-Request-Id lib/oidc/index.ts gave this token request (its answer carries it; usage logs it). */
export function tokenRequestId(res: ServerResponse): string | null {
  const id = res.getHeader("x-request-id");
  return typeof id === "string" ? id : null;
}

export function sendTokenResponse(res: ServerResponse, json: string, proof?: DpopProof): void {
  sendJson(res, 200, json, {
    vary: "Origin",
    "access-control-allow-origin": "*",
    // oidc-provider's token endpoint exposes DPoP-Nonce too once it issues nonces (DPOP_NONCE).
    "access-control-expose-headers": env().DPOP_NONCE ? "DPoP-Nonce,WWW-Authenticate" : "WWW-Authenticate",
    ...(proof?.nextNonce ? { "dpop-nonce": proof.nextNonce } : {}),
  });
}

/**
 * The request's DPoP proof for the token endpoint, checked as oidc-provider checks it (lib/oidc/dpop.ts):
 * undefined without one, null when it fails (the fast path then hands the request over, for
 * oidc-provider's own answer). Its `jti` is claimed by the fast path once the grant checked out.
 */
export async function tokenEndpointProof(header: string | undefined): Promise<DpopProof | null | undefined> {
  if (header === undefined) return undefined;
  return verifyDpopProof(header, { method: "POST", url: `${env().ISSUER}${ROUTES.token}` }).catch(() => null);
}
