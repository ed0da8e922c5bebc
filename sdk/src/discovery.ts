import * as oidc from "openid-client";
import { toPlatformError } from "./errors.js";

/** Options every sign-in helper shares. */
export interface IssuerOptions {
  /** The issuer, e.g. `https://dev.example.com/realms/platform`; endpoints come from its discovery document. */
  issuer: string;
  /**
   * Allow plain http to the issuer. Default: only for localhost, 127.0.0.1 and [::1] (`npm start`);
   * everything else must be https.
   */
  allowInsecureRequests?: boolean;
  /** A fetch to use instead of the global one (proxies, instrumentation, tests). */
  fetch?: typeof fetch;
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Discovers the issuer's endpoints with openid-client (which checks that the document names the
 * issuer it was fetched from) and returns its Configuration.
 */
export async function discover(options: IssuerOptions, clientId: string, auth: oidc.ClientAuth): Promise<oidc.Configuration> {
  const issuer = new URL(options.issuer);
  const insecure = options.allowInsecureRequests ?? (issuer.protocol === "http:" && LOOPBACK.has(issuer.hostname));
  const customFetch = options.fetch;
  try {
    const config = await oidc.discovery(issuer, clientId, undefined, auth, {
      execute: insecure ? [oidc.allowInsecureRequests] : [],
      ...(customFetch ? { [oidc.customFetch]: (url: string, init: oidc.CustomFetchOptions) => customFetch(url, init as RequestInit) } : {}),
    });
    if (customFetch) config[oidc.customFetch] = (url, init) => customFetch(url, init as RequestInit);
    return config;
  } catch (error) {
    throw toPlatformError(error);
  }
}

/** What a token request returned, in the SDK's words. */
export interface Tokens {
  accessToken: string;
  /** Login clients only; rotates on every refresh: always keep the newest. */
  refreshToken?: string;
  /** Login clients only: keep it for the logout URL's `id_token_hint`. */
  idToken?: string;
  /** Space-separated scopes granted. */
  scope?: string;
  /** Lifetime in seconds, as the token endpoint said. */
  expiresIn: number;
  /** Unix milliseconds when the access token expires (computed from `expiresIn`). */
  expiresAt: number;
}

export function toTokens(response: oidc.TokenEndpointResponse, now = Date.now()): Tokens {
  const expiresIn = typeof response.expires_in === "number" ? response.expires_in : 0;
  return {
    accessToken: response.access_token,
    ...(response.refresh_token ? { refreshToken: response.refresh_token } : {}),
    ...(response.id_token ? { idToken: response.id_token } : {}),
    ...(response.scope ? { scope: response.scope } : {}),
    expiresIn,
    expiresAt: now + expiresIn * 1000,
  };
}
