import type { ServerResponse } from "node:http";
import { env } from "../env";
import { verifyClientCredentials } from "../services/app-secrets";
import { usageMeter } from "../services/usage-meter";
import { waitPastRevocation } from "./access-tokens";
import { findSignInClient } from "./clients";
import { claimDpopProof } from "./dpop";
import { accessTokenClaims, hasExactly, sendTokenResponse, signJwt, tokenEndpointProof, tokenRequestId, type JwtSigner } from "./token-form";

/**
 * A fast path for the commonest token request: an API client's client-credentials grant with its
 * id and secret in the form body (SPEC Authentication, "API client"). oidc-provider spends most of
 * such a grant in its generic machinery (koa, parameter and client-auth pipelines, resource
 * indicators, WebCrypto), which caps the endpoint well below issue 6's 3,000 grants/s.
 *
 * It answers ONLY the exact happy path, with the token and response oidc-provider would produce
 * (lib/oidc/config.ts: an RFC 9068 JWT for the API audience, ES256 with the provider's first
 * access-token key, no `sub`, the client's registered app-level scopes, ACCESS_TOKEN_TTL; the same
 * status, headers and body), bound to the request's DPoP key when it sends a good proof (`cnf.jkt`,
 * `token_type: DPoP`; its `jti` spent as oidc-provider spends it). Anything else — another grant, a
 * `scope` parameter, HTTP Basic, an Origin (CORS), a DPoP proof that fails, none from an app that
 * requires one, a duplicate or extra parameter, an unknown client, a wrong secret — is handed
 * to oidc-provider untouched (with the body already read: `req.body`, which its body parser uses),
 * so every error keeps oidc-provider's exact behaviour and wording. What it shares with the refresh
 * fast path is in lib/oidc/token-form.ts.
 */

const FIELDS = new Set(["grant_type", "client_id", "client_secret"]);

/** The id and secret of a plain client-credentials form (lib/oidc/token-form.ts parseTokenForm); otherwise null. */
function parseForm(form: ReadonlyMap<string, string>): { clientId: string; clientSecret: string } | null {
  if (!hasExactly(form, FIELDS) || form.get("grant_type") !== "client_credentials") return null;
  return { clientId: form.get("client_id")!, clientSecret: form.get("client_secret")! };
}

/**
 * Answers the request and returns true, or returns false having written nothing (the caller then
 * hands the request, with its body, to oidc-provider).
 */
export async function tryClientCredentialsGrant(
  res: ServerResponse,
  fields: ReadonlyMap<string, string>,
  signer: JwtSigner | undefined,
  dpop: string | undefined,
): Promise<boolean> {
  const startedMs = performance.now();
  if (!signer) return false;
  const form = parseForm(fields);
  if (!form) return false;
  const [client, proof] = await Promise.all([findSignInClient(form.clientId), tokenEndpointProof(dpop)]);
  if (!client || client.type !== "api" || proof === null || (client.requireDpop && !proof)) return false;
  // Fresh, as compareClientSecret (provider.ts) reads them: a retired or rolled secret, or a
  // suspension, takes effect at once. A mismatch goes to oidc-provider for its invalid_client answer.
  const verified = await verifyClientCredentials(form.clientId, form.clientSecret);
  if (!verified) return false;
  // A replayed proof: oidc-provider answers it (its replay check finds the claim).
  if (proof && !(await claimDpopProof(client.clientId, proof))) return false;
  // As config.ts stampAfterRevocation: never mint a token that a watermark of this second voids.
  await waitPastRevocation(verified.tokensRevokedAt);

  const { ACCESS_TOKEN_TTL } = env();
  const scope = client.svcScopes.length ? client.svcScopes.join(" ") : undefined;
  const payload = accessTokenClaims({ iat: Math.floor(Date.now() / 1000), scope, clientId: client.clientId, jkt: proof?.jkt });
  const json = JSON.stringify({
    access_token: await signJwt(signer, payload),
    expires_in: ACCESS_TOKEN_TTL,
    scope,
    token_type: proof ? "DPoP" : "Bearer",
  });
  sendTokenResponse(res, json, proof);
  // Counted like the grants oidc-provider answers (provider.ts), per app.
  usageMeter().recordGrant(client.clientId, "client_credentials", 200, null, performance.now() - startedMs, Date.now(), true, tokenRequestId(res));
  return true;
}
