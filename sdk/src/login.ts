import * as oidc from "openid-client";
import { discover, toTokens, type IssuerOptions, type Tokens } from "./discovery.js";
import { PlatformError, toPlatformError } from "./errors.js";

export interface LoginClientOptions extends IssuerOptions {
  /** The login client's ID (public client: there is no secret). */
  clientId: string;
  /** A redirect URI registered for the app, verbatim. */
  redirectUri?: string;
  /** A post-logout redirect URI registered for the app, verbatim. */
  postLogoutRedirectUri?: string;
  /** Default `openid`; the app's registered `svc:` scopes are added by the platform. */
  scope?: string;
}

/** What to keep (e.g. in an encrypted cookie or the server session) between sign-in start and callback. */
export interface PendingSignIn {
  state: string;
  codeVerifier: string;
  redirectUri: string;
}

export interface DeviceSignIn {
  /** Show this to the person … */
  userCode: string;
  /** … and ask them to open this page and enter it. */
  verificationUri: string;
  /** The page with the code filled in (for a QR code or a link). */
  verificationUriComplete?: string;
  /** Seconds until the code expires. */
  expiresIn: number;
  /** Seconds between polls, as the server asked. */
  interval: number;
  /**
   * Polls the token endpoint (honouring `interval` and `slow_down`) until the person confirms.
   * Throws PlatformError `access_denied` or `expired_token`; `signal` aborts the wait.
   */
  tokens(options?: { signal?: AbortSignal }): Promise<Tokens>;
}

/**
 * Sign-in helpers for login clients, on openid-client: authorization code + PKCE (S256) with
 * state, code exchange, refresh with rotation, RP-initiated logout, and the device flow (RFC 8628).
 */
export async function createLoginClient(options: LoginClientOptions) {
  const config = await discover(options, options.clientId, oidc.None());
  const scope = options.scope ?? "openid";

  function redirectUriOf(given?: string): string {
    const uri = given ?? options.redirectUri;
    if (!uri) throw new PlatformError({ status: 0, code: "client_error", message: "redirectUri is required" });
    return uri;
  }

  return {
    /** The discovered server metadata (endpoints). */
    metadata: config.serverMetadata(),

    /**
     * Starts a sign-in: a fresh state and PKCE verifier, and the authorization URL (S256 challenge)
     * to send the browser to. Keep `pending` until the callback.
     */
    async startSignIn(extra: { redirectUri?: string; scope?: string; prompt?: string } = {}): Promise<{ url: URL; pending: PendingSignIn }> {
      const redirectUri = redirectUriOf(extra.redirectUri);
      const codeVerifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: extra.scope ?? scope,
        state,
        code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: "S256",
        ...(extra.prompt ? { prompt: extra.prompt } : {}),
      });
      return { url, pending: { state, codeVerifier, redirectUri } };
    },

    /**
     * Handles the callback URL: checks `state` against the pending sign-in (a mismatch or an
     * `error` parameter throws PlatformError), then exchanges the code with the PKCE verifier.
     */
    async finishSignIn(callbackUrl: URL | string, pending: PendingSignIn): Promise<Tokens> {
      const url = new URL(callbackUrl);
      // Checked here, not left to openid-client, whose message ("unexpected \"state\" response
      // parameter value") does not tell a developer what went wrong or what to do.
      const state = url.searchParams.get("state");
      if (state !== pending.state) {
        throw new PlatformError({
          status: 0,
          code: "client_error",
          message:
            state === null
              ? "State mismatch: the sign-in callback carries no state, so it is not the answer to this sign-in; start the sign-in again."
              : "State mismatch: the sign-in callback's state is not this sign-in's (another tab's sign-in, an old link, or a forged callback); start the sign-in again.",
        });
      }
      try {
        const response = await oidc.authorizationCodeGrant(config, url, {
          pkceCodeVerifier: pending.codeVerifier,
          expectedState: pending.state,
          idTokenExpected: scope.split(" ").includes("openid"),
        }, { redirect_uri: pending.redirectUri });
        return toTokens(response);
      } catch (error) {
        throw toPlatformError(error);
      }
    },

    /** Refreshes: the answer holds a new refresh token (rotation); the old one stops working. */
    async refresh(refreshToken: string): Promise<Tokens> {
      try {
        return toTokens(await oidc.refreshTokenGrant(config, refreshToken));
      } catch (error) {
        throw toPlatformError(error);
      }
    },

    /** The end_session_endpoint URL that ends the platform session too (RP-initiated logout). */
    logoutUrl(extra: { idTokenHint?: string; postLogoutRedirectUri?: string; state?: string } = {}): URL {
      const postLogout = extra.postLogoutRedirectUri ?? options.postLogoutRedirectUri;
      return oidc.buildEndSessionUrl(config, {
        client_id: options.clientId,
        ...(postLogout ? { post_logout_redirect_uri: postLogout } : {}),
        ...(extra.idTokenHint ? { id_token_hint: extra.idTokenHint } : {}),
        ...(extra.state ? { state: extra.state } : {}),
      });
    },

    /**
     * Device sign-in (RFC 8628) for apps without a browser (bots, CLIs); the app must allow device
     * sign-in. Show `userCode` and `verificationUri`, then `await tokens()`.
     */
    async startDeviceSignIn(extra: { scope?: string } = {}): Promise<DeviceSignIn> {
      let response: oidc.DeviceAuthorizationResponse;
      try {
        response = await oidc.initiateDeviceAuthorization(config, { scope: extra.scope ?? scope });
      } catch (error) {
        throw toPlatformError(error);
      }
      return {
        userCode: response.user_code,
        verificationUri: response.verification_uri,
        ...(response.verification_uri_complete ? { verificationUriComplete: response.verification_uri_complete } : {}),
        expiresIn: response.expires_in,
        interval: response.interval ?? 5,
        async tokens(poll: { signal?: AbortSignal } = {}) {
          try {
            return toTokens(await oidc.pollDeviceAuthorizationGrant(config, response, undefined, poll.signal ? { signal: poll.signal } : {}));
          } catch (error) {
            throw toPlatformError(error);
          }
        },
      };
    },
  };
}

export type LoginClient = Awaited<ReturnType<typeof createLoginClient>>;

/**
 * A token provider over user-delegated tokens: hands out the access token and refreshes it (keeping
 * the rotated refresh token) shortly before it expires; `onTokens` sees every new set, to store it.
 */
export function refreshingTokens(
  login: LoginClient,
  initial: Tokens,
  options: { renewBeforeSeconds?: number; onTokens?: (tokens: Tokens) => void; now?: () => number } = {},
) {
  const now = options.now ?? Date.now;
  let tokens = initial;
  let inflight: Promise<string> | undefined;
  const margin = () => Math.min(options.renewBeforeSeconds ?? 60, tokens.expiresIn / 2) * 1000;
  const provider = async (): Promise<string> => {
    if (now() < tokens.expiresAt - margin() || !tokens.refreshToken) return tokens.accessToken;
    inflight ??= login
      .refresh(tokens.refreshToken)
      .then((next) => {
        tokens = { ...next, refreshToken: next.refreshToken ?? tokens.refreshToken, idToken: next.idToken ?? tokens.idToken } as Tokens;
        options.onTokens?.(tokens);
        return tokens.accessToken;
      })
      .finally(() => {
        inflight = undefined;
      });
    return inflight;
  };
  return Object.assign(provider, { current: () => tokens });
}
