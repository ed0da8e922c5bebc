/**
 * @social-dev-platform/sdk: a typed client for the platform's JSON API (types generated from its
 * OpenAPI document, calls through openapi-fetch, retries and idempotency keys built in), sign-in
 * helpers on openid-client, and webhook verification on WebCrypto.
 */
export {
  createClient,
  type ClientOptions,
  type DataMethod,
  type PlatformClient,
  type ChatMessage,
  type DirectoryIdentity,
  type Schemas,
  type WithResponseInfo,
  type paths,
  type components,
} from "./client.js";
export { clientCredentials, type ClientCredentialsOptions, type TokenProvider } from "./client-credentials.js";
export { createLoginClient, refreshingTokens, type LoginClient, type LoginClientOptions, type PendingSignIn, type DeviceSignIn } from "./login.js";
export type { IssuerOptions, Tokens } from "./discovery.js";
export {
  PlatformError,
  type PlatformErrorCode,
  type ApiErrorCode,
  type OAuthErrorCode,
  type SdkErrorCode,
  type RateLimit,
  type ResponseInfo,
} from "./errors.js";
export type { CallOptions, RequestOptions, RetryInfo } from "./transport.js";
export type { EventStreamOptions } from "./events.js";
export {
  verifyWebhook,
  WebhookVerificationError,
  type WebhookEvent,
  type WebhookEventType,
  type VerifyWebhookOptions,
  type AuthorizationEventData,
  type AppStatusEventData,
} from "./webhooks.js";
