import * as oidc from "openid-client";
import { discover, type IssuerOptions } from "./discovery.js";
import { toPlatformError } from "./errors.js";

/**
 * Something that hands out a current access token: what `createClient({ tokenProvider })` calls
 * before every request. `invalidate` (optional) drops a cached token, e.g. after 401 `invalid_token`.
 */
export interface TokenProvider {
  (): Promise<string>;
  invalidate?(): void;
}

export interface ClientCredentialsOptions extends IssuerOptions {
  clientId: string;
  /** The API client's secret. Read it from your secret store; never log it. */
  clientSecret: string;
  /** Space-separated subset of the app's scopes (default: all of them). */
  scope?: string;
  /** Renew this many seconds before the token expires (default 60; at most half its lifetime). */
  renewBeforeSeconds?: number;
  /** Clock in Unix milliseconds (default `Date.now`); tests move it forward. */
  now?: () => number;
}

/**
 * A token provider for API clients (client credentials grant, SPEC "API client: client
 * credentials"): discovers the token endpoint once, caches the token and renews it shortly before
 * `expires_in` runs out — one token, not one per request. Concurrent callers share one renewal
 * (single flight), so 50 requests at once cause one token request.
 */
export function clientCredentials(options: ClientCredentialsOptions): TokenProvider {
  const now = options.now ?? Date.now;
  const renewBefore = options.renewBeforeSeconds ?? 60;
  let config: Promise<oidc.Configuration> | undefined;
  let cached: { token: string; renewAt: number } | undefined;
  let inflight: Promise<string> | undefined;

  async function renew(): Promise<string> {
    config ??= discover(options, options.clientId, oidc.ClientSecretPost(options.clientSecret)).catch((error: unknown) => {
      config = undefined; // a failed discovery is retried on the next call
      throw error;
    });
    const configuration = await config;
    const requestedAt = now();
    let response: oidc.TokenEndpointResponse;
    try {
      response = await oidc.clientCredentialsGrant(configuration, options.scope ? { scope: options.scope } : {});
    } catch (error) {
      throw toPlatformError(error);
    }
    const lifetime = typeof response.expires_in === "number" ? response.expires_in : 0;
    const margin = Math.min(renewBefore, lifetime / 2);
    cached = { token: response.access_token, renewAt: requestedAt + (lifetime - margin) * 1000 };
    return response.access_token;
  }

  const provider: TokenProvider = async () => {
    if (cached && now() < cached.renewAt) return cached.token;
    inflight ??= renew().finally(() => {
      inflight = undefined;
    });
    return inflight;
  };
  provider.invalidate = () => {
    cached = undefined;
  };
  return provider;
}
