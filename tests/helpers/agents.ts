import type { AddClientAuthentication, OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";

/**
 * What an MCP client keeps between the two halves of an authorization (issue 40): an
 * OAuthClientProvider in memory for the official SDK's `auth()`, whose client ID is the URL of its
 * Client ID Metadata Document, or none (`undefined`): then `auth()` registers it (RFC 7591) and
 * keeps the client ID it was given. `authorizationUrl` is where `auth()` sent the person.
 */
export class TestAgent implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  /** Set for an agent that signs its token requests (private_key_jwt); unset, it is a public client. */
  addClientAuthentication?: AddClientAuthentication;
  #info: OAuthClientInformationMixed | undefined;
  #tokens: OAuthTokens | undefined;
  #verifier = "";
  constructor(
    readonly clientMetadataUrl: string | undefined,
    readonly redirectUrl: string,
  ) {}
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: "Test agent", redirect_uris: [this.redirectUrl], token_endpoint_auth_method: "none" };
  }
  clientInformation() {
    return this.#info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.#info = info;
  }
  tokens() {
    return this.#tokens;
  }
  saveTokens(tokens: OAuthTokens) {
    this.#tokens = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }
  codeVerifier() {
    return this.#verifier;
  }
}
