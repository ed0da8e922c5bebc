import { OpenAPIRegistry, OpenApiGeneratorV3, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { env } from "../env";
import { ERROR_STATUS } from "../errors";
import { EVENT_EXAMPLES, eventAudienceText } from "../schemas/event-catalog";
import { EVENT_AUDIENCE, EVENT_ID_PATTERN, EVENT_TYPES, eventEnvelopeSchema } from "../schemas/events";
import type { ApiErrorCode } from "../schemas/api";
import { DEFAULT_REQUESTS_PER_MINUTE } from "../schemas/rate-limits";
import { SVC_SCOPES, USER_ONLY_SCOPES, type SvcScope } from "../scopes";
import type { Route } from "./handler";
import { MAX_BODY_BYTES } from "./body";
import { API_ROUTES } from "./routes";

/**
 * GET /api/v1/openapi.json: OpenAPI 3.1 generated from the route table and the very zod schemas
 * the handlers validate with (one source of truth; the portal's API reference renders it).
 */
const ERROR_DESCRIPTIONS: Record<ApiErrorCode, string> = {
  invalid_request: "malformed query parameter or request body (413: body over 64 KiB)",
  invalid_reply: "`reply_to_id` does not reference a real message",
  unauthorized: "no token on an endpoint that requires one",
  invalid_token: "bearer token invalid, malformed or expired, or its application is no longer approved",
  insufficient_scope: "the token lacks the required scope",
  requires_user: "the endpoint acts for a user but the token is app-only",
  forbidden: "account disabled, or action not permitted (a muted user posting to chat)",
  not_found: "no such endpoint under /api/v1, or no such user profile",
  user_not_found: "the target user of the action does not exist",
  method_not_allowed: "wrong HTTP method for the path (see the Allow header)",
  idempotency_key_in_use: "a request with the same Idempotency-Key is still in progress; retry after Retry-After",
  idempotency_key_reused: "the Idempotency-Key was used with a different request (method, path or body) in the last 24 hours",
  rate_limited: "sending too fast: over the app's request quota per minute, or chat posting faster than one message per 2 seconds; see Retry-After and the RateLimit headers",
  poke_cooldown: "same user poked within 24 hours; includes next_allowed_at and Retry-After",
  internal_error: "server-side failure; safe to retry with backoff",
};

function authErrors(route: Route): ApiErrorCode[] {
  const { auth, scope } = route.config;
  // Every request with a token counts against its app's quota (429 rate_limited over it).
  if (auth === "optional") return ["invalid_token", "forbidden", "rate_limited"];
  const codes: ApiErrorCode[] = ["unauthorized", "invalid_token"];
  if (auth === "user") codes.push("requires_user");
  if (scope) codes.push("insufficient_scope");
  codes.push("forbidden", "rate_limited");
  return codes;
}

function security(route: Route): Record<string, string[]>[] {
  const { auth, scope } = route.config;
  const scopes = scope ? [scope] : [];
  if (auth === "optional") return [{}, { apiClient: [] }, { loginClient: [] }];
  if (auth === "user") return [{ loginClient: scope ? scopes : ["openid"] }];
  return [{ apiClient: scopes }, { loginClient: scopes }];
}

/** The header of the endpoints that honour idempotency keys (lib/api/idempotency.ts). */
const idempotencyHeadersSchema = z.object({
  "Idempotency-Key": z
    .string()
    .min(1)
    .max(255)
    .regex(/^[\x20-\x7e]+$/)
    .optional()
    .meta({
      description:
        "Makes a retry safe: within 24 hours the same key from the same app and user with the same request returns the first success again " +
        "(with `Idempotent-Replayed: true`) without posting again or spending the endpoint's limit. 1–255 printable ASCII characters, " +
        "e.g. a UUID. Another request under the same key is 422 `idempotency_key_reused`; while the first is still running, 409 " +
        "`idempotency_key_in_use`. Errors are not stored: a retry after an error runs again.",
    }),
});

const IDEMPOTENT_REPLAYED_HEADER_DOC = {
  "Idempotent-Replayed": {
    description: "`true` when this is the stored reply of an earlier request with the same Idempotency-Key (nothing was done again); absent otherwise.",
    schema: { type: "string", enum: ["true"] },
  },
};

function errorSchema(codes: ApiErrorCode[]) {
  return z.object({
    error: z.object({
      code: z.enum(codes as [ApiErrorCode, ...ApiErrorCode[]]),
      message: z.string().meta({ description: "Human-readable; safe to show" }),
      ...(codes.includes("poke_cooldown")
        ? { next_allowed_at: z.int().nonnegative().optional().meta({ description: "On poke_cooldown: Unix second when the pair is open again" }) }
        : {}),
    }),
  });
}

function errorResponses(route: Route) {
  const codes = new Set<ApiErrorCode>([...authErrors(route), ...route.config.errors, "internal_error"]);
  if (route.config.body) codes.add("invalid_request");
  const byStatus = new Map<number, ApiErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  if (route.config.body) byStatus.set(413, ["invalid_request"]);
  const responses: Record<string, { description: string; headers?: Record<string, unknown>; content: Record<string, { schema: z.ZodType }> }> = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const description =
      status === 413
        ? `invalid_request: the request body is over ${MAX_BODY_BYTES / 1024} KiB`
        : list.map((c) => `${c}: ${ERROR_DESCRIPTIONS[c]}`).join("; ");
    responses[String(status)] = {
      description,
      ...(status === 429 || status === 409
        ? { headers: { "Retry-After": { description: "Seconds to wait before retrying", schema: { type: "integer", minimum: 1 } } } }
        : {}),
      content: { "application/json": { schema: errorSchema(list) } },
    };
  }
  return responses;
}

const DESCRIPTION = `The platform's JSON API. All paths are relative to the server URL (\`/api/v1\`).

**Authentication.** Send \`Authorization: Bearer <access token>\`. API clients get app-only tokens with the client credentials grant;
login clients get user-delegated tokens with the authorization code grant and PKCE (S256). A presented token is always validated,
also on the public profile endpoint. Check order: 401 \`unauthorized\` (no token where one is required), 401 \`invalid_token\`
(malformed, forged, expired, or the application is no longer approved), 403 \`requires_user\` (app-only token on a user endpoint),
403 \`insufficient_scope\`, 403 \`forbidden\` (disabled account).

**Envelopes.** \`GET /users/{username}\` and \`GET /me\` return the profile object bare; every other success is \`{ "data": … }\`;
every error is \`{ "error": { "code", "message" } }\` (plus \`next_allowed_at\` on \`poke_cooldown\`), on every path including unknown
ones (404 \`not_found\`) and wrong methods (405 \`method_not_allowed\` with \`Allow\`).

**Limits.** Request bodies up to ${MAX_BODY_BYTES / 1024} KiB (413 \`invalid_request\` above). Chat: one post per 2 seconds, text up to 8192
bytes. Pokes: one per target per 24 hours. Each app: ${DEFAULT_REQUESTS_PER_MINUTE} requests per minute unless an admin set another quota.
429 answers carry \`Retry-After\`. Every response to a request with a token announces its limits: \`RateLimit-Policy\` and
\`RateLimit\` (IETF httpapi draft: \`"app";q=6000;w=60\` and \`"app";r=5999;t=42\`, plus \`"chat-post"\` or \`"poke"\` on those
endpoints) and \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\`, \`X-RateLimit-Reset\` (Unix seconds) for the limit that binds first.
Timestamps named \`*_at\` are Unix seconds.

**Events.** The \`webhooks\` section lists every event the platform sends to an app's webhook endpoints, with its body and
the Standard Webhooks headers that sign it. Every event is \`{ "id": "evt_…", "type", "created_at", "data" }\`; the \`id\` stays
the same on every retry, so receivers deduplicate by it. Signing, retries and the event stream: the docs page "Events and webhooks".

**CORS.** Any origin may call the API from a browser (no cookies are used).

**Error codes.**
${(Object.keys(ERROR_DESCRIPTIONS) as ApiErrorCode[]).map((c) => `- ${ERROR_STATUS[c]} \`${c}\`: ${ERROR_DESCRIPTIONS[c]}`).join("\n")}
`;

/**
 * The headers of every delivery (Standard Webhooks, https://www.standardwebhooks.com/): the receiver
 * verifies `webhook-signature` over `${webhook-id}.${webhook-timestamp}.${body}` with its secret.
 */
const webhookHeadersSchema = z.object({
  "webhook-id": z.string().regex(EVENT_ID_PATTERN).meta({ description: "The event's id (the body's `id`): the same on every retry and redelivery; deduplicate by it." }),
  "webhook-timestamp": z.string().regex(/^\d+$/).meta({ description: "Unix seconds at which this attempt was signed; refuse deliveries more than 5 minutes off your clock." }),
  "webhook-signature": z
    .string()
    .regex(/^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$/)
    .meta({
      description:
        "Space-separated `v1,<base64 HMAC-SHA256>` signatures of `${webhook-id}.${webhook-timestamp}.${body}`, keyed with the base64 part of the endpoint's `whsec_` secret. Two during the 24 hours after a secret rotation (new and old): accept the delivery when any one verifies.",
    }),
});

function registerWebhooks(registry: OpenAPIRegistry): void {
  for (const type of EVENT_TYPES) {
    registry.registerWebhook({
      method: "post",
      path: type,
      operationId: `event.${type}`,
      summary: type,
      description: `${EVENT_AUDIENCE[type].description}\n\nReceived by: ${eventAudienceText(type)}`,
      tags: ["Webhooks"],
      request: {
        headers: webhookHeadersSchema,
        body: { required: true, content: { "application/json": { schema: eventEnvelopeSchema(type), example: EVENT_EXAMPLES[type] } } },
      },
      responses: {
        "2XX": { description: "Any 2xx (within 10 s) acknowledges the delivery; the body is ignored (at most 4 KiB is read)." },
        "410": { description: "Gone: the endpoint is disabled and receives nothing until it is enabled again." },
        default: {
          description:
            "Anything else (another status, a redirect, a timeout after 10 s, a refused connection, a TLS error) is a failed attempt, retried with the same event id on the documented schedule.",
        },
      },
    });
  }
}

function buildRegistry(): OpenAPIRegistry {
  const { ISSUER } = env();
  const registry = new OpenAPIRegistry();
  const tokenUrl = `${ISSUER}/protocol/openid-connect/token`;
  const appScopes = Object.fromEntries(
    (Object.keys(SVC_SCOPES) as SvcScope[]).filter((s) => !USER_ONLY_SCOPES.includes(s)).map((s) => [s, SVC_SCOPES[s]]),
  );
  registry.registerComponent("securitySchemes", "apiClient", {
    type: "oauth2",
    description: "API client (confidential): client credentials grant, app-only tokens.",
    flows: { clientCredentials: { tokenUrl, scopes: appScopes } },
  });
  registry.registerComponent("securitySchemes", "loginClient", {
    type: "oauth2",
    description: "Login client (public): authorization code grant with PKCE (S256), user-delegated tokens.",
    flows: {
      authorizationCode: {
        authorizationUrl: `${ISSUER}/protocol/openid-connect/auth`,
        tokenUrl,
        refreshUrl: tokenUrl,
        scopes: { openid: "Know who you are on the platform", ...SVC_SCOPES },
      },
    },
  });

  for (const route of API_ROUTES) {
    const c = route.config;
    registry.registerPath({
      method: c.method.toLowerCase() as "get" | "post",
      path: c.path,
      operationId: c.operationId,
      summary: c.summary,
      description: c.description + (c.scope ? `\n\nScope: \`${c.scope}\`.` : "") + (c.auth === "user" ? " Token: user-delegated." : ""),
      tags: [c.tag],
      security: security(route),
      request: {
        ...(c.params ? { params: c.params } : {}),
        ...(c.query ? { query: c.query } : {}),
        ...(c.idempotent ? { headers: idempotencyHeadersSchema } : {}),
        ...(c.body ? { body: { required: true, content: { "application/json": { schema: c.body } } } } : {}),
      },
      responses: {
        [c.response.status]: {
          description: c.response.description,
          ...(c.idempotent ? { headers: IDEMPOTENT_REPLAYED_HEADER_DOC } : {}),
          content: c.response.stream
            ? { "text/event-stream": { schema: z.string().describe("Server-Sent Events: `id:`, `event:` and `data:` lines per event (see the Event schemas under webhooks), heartbeat comments every 15 s.") } }
            : { "application/json": { schema: c.response.bare ? c.response.schema : z.object({ data: c.response.schema }) } },
        },
        ...errorResponses(route),
      },
    });
  }

  return registry;
}

function documentConfig() {
  const { API_URL } = env();
  return {
    info: { title: "Social Platform Developer API", version: "1.0.0", description: DESCRIPTION },
    servers: [{ url: API_URL }],
    tags: [
      { name: "Profiles", description: "Public profiles and your own" },
      { name: "Me", description: "The signed-in user's statistics and notifications" },
      { name: "Beetle", description: "The Beetle game" },
      { name: "Pokes", description: "Poking other users" },
      { name: "Global chat", description: "Reading and posting" },
      { name: "Directory", description: "Looking people up" },
      { name: "Events", description: "The live event stream (Server-Sent Events); webhooks are described under `webhooks`" },
      { name: "Webhooks", description: "Events the platform sends to your endpoints, signed after Standard Webhooks (also on the event stream)" },
    ],
  };
}

export function buildOpenApiDocument() {
  const registry = buildRegistry();
  registerWebhooks(registry);
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({ openapi: "3.1.0", ...documentConfig() });
}

/**
 * The same paths and schemas as OpenAPI 3.0 (no webhooks, which 3.0 cannot express), for
 * the compatibility check (scripts/openapi-snapshot.ts): api-smart-diff's rules are OpenAPI 3.0's.
 */
export function buildOpenApi30Document() {
  return new OpenApiGeneratorV3(buildRegistry().definitions).generateDocument({ openapi: "3.0.3", ...documentConfig() });
}

let cached: ReturnType<typeof buildOpenApiDocument> | undefined;

export function getOpenApiDocument(): ReturnType<typeof buildOpenApiDocument> {
  cached ??= buildOpenApiDocument();
  return cached;
}
