import { createPrivateKey, randomBytes, sign, type KeyObject } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { JWK } from "jose";
import { env } from "../env";
import { readBody } from "../http/body";
import { sendJson } from "../http/reply";
import { verifyClientCredentials } from "../services/app-secrets";
import { usageMeter } from "../services/usage-meter";
import { waitPastRevocation } from "./access-tokens";
import { findSignInClient } from "./clients";
import { ACCESS_TOKEN_ALG, type StoredSigningKey } from "./keys";

/**
 * A fast path for the commonest token request: an API client's client-credentials grant with its
 * id and secret in the form body (SPEC Authentication, "API client"). oidc-provider spends most of
 * such a grant in its generic machinery (koa, parameter and client-auth pipelines, resource
 * indicators, WebCrypto), which caps the endpoint well below issue 6's 3,000 grants/s.
 *
 * It answers ONLY the exact happy path, with the token and response oidc-provider would produce
 * (lib/oidc/config.ts: an RFC 9068 JWT for the API audience, ES256 with the provider's first
 * access-token key, no `sub`, the client's registered app-level scopes, ACCESS_TOKEN_TTL; the same
 * status, headers and body). Anything else — another grant, a `scope` parameter, HTTP Basic, an
 * Origin (CORS), DPoP, a duplicate or extra parameter, an unknown client, a wrong secret — is handed
 * to oidc-provider untouched (with the body already read: `req.body`, which its body parser uses),
 * so every error keeps oidc-provider's exact behaviour and wording.
 */

/** Bigger bodies are not a plain client-credentials form; oidc-provider reads those itself. */
const MAX_FAST_BODY_BYTES = 2048;
const FIELDS = new Set(["grant_type", "client_id", "client_secret"]);

export interface AccessTokenSigner {
  kid: string;
  key: KeyObject;
  /** base64url of the JOSE header, the same for every token this key signs. */
  encodedHeader: string;
}

/**
 * The key oidc-provider signs access tokens with: the first published key of ACCESS_TOKEN_ALG
 * (listPublishedKeys orders active keys first, as the provider's keystore does).
 */
export function accessTokenSigner(keys: StoredSigningKey[]): AccessTokenSigner | undefined {
  const found = keys.find((k) => k.alg === ACCESS_TOKEN_ALG && k.retiredAt === null) ?? keys.find((k) => k.alg === ACCESS_TOKEN_ALG);
  if (!found?.privateJwk.kid) return undefined;
  const header = { alg: ACCESS_TOKEN_ALG, typ: "at+jwt", kid: found.privateJwk.kid };
  return {
    kid: found.privateJwk.kid,
    key: createPrivateKey({ key: found.privateJwk as JWK & { kty: string }, format: "jwk" }),
    encodedHeader: Buffer.from(JSON.stringify(header)).toString("base64url"),
  };
}

/** Headers only: is this worth reading the body for? */
export function isClientCredentialsCandidate(req: IncomingMessage, path: string, tokenPath: string): boolean {
  if (req.method !== "POST" || path !== tokenPath) return false;
  const h = req.headers;
  if (h.authorization !== undefined || h.origin !== undefined || h.dpop !== undefined) return false;
  const type = (h["content-type"] ?? "").toLowerCase();
  if (type !== "application/x-www-form-urlencoded" && type !== "application/x-www-form-urlencoded; charset=utf-8") return false;
  const length = Number(h["content-length"]);
  return Number.isInteger(length) && length > 0 && length <= MAX_FAST_BODY_BYTES && h["transfer-encoding"] === undefined;
}

/** The body (the candidate check bounded its declared length). */
export function readCandidateBody(req: IncomingMessage): Promise<Buffer> {
  return readBody(req, { limit: MAX_FAST_BODY_BYTES, headers: req.headers });
}

/** The three fields, each exactly once and non-empty, and nothing else; otherwise null. */
function parseForm(body: Buffer): { clientId: string; clientSecret: string } | null {
  const params = new URLSearchParams(body.toString("utf8"));
  const seen = new Map<string, string>();
  for (const [key, value] of params) {
    if (!FIELDS.has(key) || seen.has(key) || value === "") return null;
    seen.set(key, value);
  }
  if (seen.size !== FIELDS.size || seen.get("grant_type") !== "client_credentials") return null;
  return { clientId: seen.get("client_id")!, clientSecret: seen.get("client_secret")! };
}

function signAsync(data: Buffer, key: KeyObject): Promise<Buffer> {
  // The callback form runs in libuv's thread pool, off the event loop; P-1363 (r‖s) is JOSE's form.
  return new Promise((resolve, reject) =>
    sign("sha256", data, { key, dsaEncoding: "ieee-p1363" }, (error, signature) => (error ? reject(error) : resolve(signature))),
  );
}

/**
 * Answers the request and returns true, or returns false having written nothing (the caller then
 * hands the request, with `body`, to oidc-provider).
 */
export async function tryClientCredentialsGrant(
  res: ServerResponse,
  body: Buffer,
  signer: AccessTokenSigner | undefined,
): Promise<boolean> {
  const startedMs = performance.now();
  if (!signer) return false;
  const form = parseForm(body);
  if (!form) return false;
  const client = await findSignInClient(form.clientId);
  if (!client || client.type !== "api") return false;
  // Fresh, as compareClientSecret (provider.ts) reads them: a retired or rolled secret, or a
  // suspension, takes effect at once. A mismatch goes to oidc-provider for its invalid_client answer.
  const verified = await verifyClientCredentials(form.clientId, form.clientSecret);
  if (!verified) return false;
  // As config.ts stampAfterRevocation: never mint a token that a watermark of this second voids.
  await waitPastRevocation(verified.tokensRevokedAt);

  const { ISSUER, API_URL, ACCESS_TOKEN_TTL } = env();
  const iat = Math.floor(Date.now() / 1000);
  const scope = client.svcScopes.length ? client.svcScopes.join(" ") : undefined;
  // Claim order as oidc-provider writes them (jti, iat, exp, scope, client_id, iss, aud).
  const payload = { jti: randomBytes(32).toString("base64url"), iat, exp: iat + ACCESS_TOKEN_TTL, scope, client_id: client.clientId, iss: ISSUER, aud: API_URL };
  const signingInput = `${signer.encodedHeader}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}`;
  const signature = await signAsync(Buffer.from(signingInput), signer.key);
  const json = JSON.stringify({
    access_token: `${signingInput}.${signature.toString("base64url")}`,
    expires_in: ACCESS_TOKEN_TTL,
    scope,
    token_type: "Bearer",
  });
  // The headers oidc-provider's token endpoint sends for a request without Origin.
  sendJson(res, 200, json, {
    vary: "Origin",
    "access-control-allow-origin": "*",
    "access-control-expose-headers": "WWW-Authenticate",
  });
  // Issue 16: counted like the grants oidc-provider answers (provider.ts), per app.
  usageMeter().recordGrant(client.clientId, "client_credentials", 200, null, performance.now() - startedMs, Date.now());
  return true;
}
