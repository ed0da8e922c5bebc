import { z, ZodError, type ZodType } from "zod";
import { AppError, isAppError } from "../errors";
import type { ApiErrorCode } from "../schemas/api";
import { ENDPOINT_POLICIES, type EndpointPolicyName, type RatePolicy } from "../schemas/rate-limits";
import type { SvcScope } from "../scopes";
import { admitApiRequest, type QuotaState } from "../services/api-quota";
import { authorize, identify, type ApiCaller, type AuthRequirement, type UserCaller } from "./auth";
import { assertDeclaredLength, readJsonBody } from "./body";
import { InputError } from "./errors";
import { readIdempotencyKey, runIdempotent } from "./idempotency";
import { apiHeaders, jsonReply, type ApiReply, type ApiRequest, type ReplyStream } from "./request-reply";
import { rateLimitHeaders } from "./rate-limit-headers";

/**
 * `defineRoute` (STYLE: Request path): one declaration per endpoint holds everything the wrapper
 * enforces and the OpenAPI document shows: auth requirement, scope, path/query/body schemas, the
 * success schema and the error codes. Handlers are Web-standard and Next-free; they get parsed
 * input and the caller and return the payload, which the wrapper wraps in `{ data }` unless the
 * endpoint is one of the two bare profile reads. Handlers never catch: the router maps errors.
 * (No `server-only` import here: server.ts loads this table in plain Node, where it throws.)
 */
type AnyObject = z.ZodObject<z.ZodRawShape>;
type Out<S> = S extends ZodType ? z.output<S> : undefined;

type CallerFor<A extends AuthRequirement> = A extends "user" ? UserCaller : ApiCaller;

export interface RouteConfig<
  A extends AuthRequirement,
  P extends AnyObject | undefined,
  Q extends AnyObject | undefined,
  B extends ZodType | undefined,
  R extends ZodType,
> {
  method: "GET" | "POST";
  /** OpenAPI-style template relative to /api/v1, e.g. `/users/{username}`. */
  path: string;
  operationId: string;
  /**
   * The endpoint as a tool of the MCP server (lib/api/mcp): its name, part of the contract like
   * the path (agents and people's prompts depend on it), and whether it only reads (default: a GET
   * does). Unset: not a tool (the event stream, which MCP serves as resource subscriptions).
   */
  mcp?: { tool: string; readOnly?: boolean };
  summary: string;
  description: string;
  tag: string;
  auth: A;
  scope?: SvcScope;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * `stream`: the handler returns a ReplyStream, sent as `text/event-stream`; `schema`
   * then describes one event for the docs.
   */
  response: { status: 200 | 201; schema: R; description: string; bare?: boolean; stream?: boolean };
  /** Error codes this endpoint answers with besides the auth ones derived from `auth`/`scope`. */
  errors: ApiErrorCode[];
  /**
   * The endpoint's own limit of SPEC.md, if any (lib/schemas/rate-limits.ts): announced in the
   * rate-limit headers next to the app's quota. Its one allowance is spent by a success and is at 0
   * on its 429 (whose Retry-After tells when it returns).
   */
  limit?: EndpointPolicyName;
  /**
   * The endpoint honours `Idempotency-Key` (lib/api/idempotency.ts); user-delegated
   * endpoints only, as keys are kept per app and user.
   */
  idempotent?: boolean;
  handler(input: {
    params: Out<P>;
    query: Out<Q>;
    body: Out<B>;
    caller: CallerFor<A>;
    request: ApiRequest;
  }): Promise<z.input<R>>;
}

/** What a route found out besides its reply: the router adds these headers to the reply, error or not. */
export interface ReplyExtras {
  headers?: Record<string, string>;
}

export interface Route {
  config: RouteConfig<AuthRequirement, AnyObject | undefined, AnyObject | undefined, ZodType | undefined, ZodType>;
  run(
    request: ApiRequest,
    rawParams: Record<string, string>,
    query: Record<string, string | string[]>,
    requestId: string,
    extras: ReplyExtras,
  ): Promise<ApiReply>;
}

/**
 * Counts the request against its app's quota and, for a user-delegated token, the user's share of
 * it (lib/services/api-quota.ts), and puts the rate-limit headers in `extras`; over either, 429
 * `rate_limited` with Retry-After, its message naming the limit (the policy's name in the headers).
 */
async function countAgainstQuota(
  clientId: string,
  quota: number,
  userId: number | undefined,
  policy: RatePolicy | undefined,
  extras: ReplyExtras,
): Promise<QuotaState> {
  const pending = admitApiRequest(clientId, quota, userId);
  const state = pending instanceof Promise ? await pending : pending;
  extras.headers = rateLimitHeaders(state, policy ? { policy, state: null } : undefined);
  if (state.refusedBy === "user") {
    throw new AppError(
      "rate_limited",
      `Limit "user": this user's tokens have made their ${state.userLimit} API requests of this minute, their share of this app's ${state.limit}. Retry after the window resets.`,
      { headers: { "Retry-After": String(state.resetSeconds) } },
    );
  }
  if (state.refusedBy === "app") {
    throw new AppError("rate_limited", `Limit "app": this app has made its ${state.limit} API requests of this minute. Retry after the window resets.`, {
      headers: { "Retry-After": String(state.resetSeconds) },
    });
  }
  return state;
}

/**
 * A request no route matched (an unknown path, 404, or a method the path does not take,
 * 405) with a token that checks out is the app's: `identify` sets `request.clientId`, so it lands in
 * the app's log, and it counts against the app's quota like any other call (GitHub counts 404s
 * against its rate limit; the docs' Rate limits section says so): its answer carries the rate-limit
 * headers, and over the quota it is 429 `rate_limited` instead. The same local checks as a matched
 * route (a verified JWT, the cached app, the quota's in-memory allowance): no query of its own.
 * No token or a bad one: nobody's request, counted nowhere; the answer is the 404 or 405 either way.
 */
export async function chargeUnmatched(request: ApiRequest, extras: ReplyExtras): Promise<void> {
  if (request.headers.get("authorization") === null) return;
  let identified: Awaited<ReturnType<typeof identify>>;
  try {
    identified = await identify(request, "any");
  } catch {
    return; // not a valid token
  }
  if (identified.kind !== "token") return;
  const { caller } = identified;
  await countAgainstQuota(caller.clientId, caller.quota, caller.kind === "user" ? caller.userId : undefined, undefined, extras);
}

/** Server-Sent Events: never cached, never buffered by a proxy (the API's event stream, an MCP session's stream). */
export const EVENT_STREAM_HEADERS = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-store", "x-accel-buffering": "no" } as const;

function streamHeaders(requestId: string, extra: Record<string, string> = {}): Record<string, string> {
  return apiHeaders({ ...extra, ...EVENT_STREAM_HEADERS }, requestId);
}

function parse<S extends ZodType | undefined>(schema: S, value: unknown, where: InputError["where"]): Out<S> {
  if (!schema) return undefined as Out<S>;
  const result = schema.safeParse(value);
  if (!result.success) throw new InputError(where, result.error as ZodError);
  return result.data as Out<S>;
}

export function defineRoute<
  A extends AuthRequirement,
  P extends AnyObject | undefined = undefined,
  Q extends AnyObject | undefined = undefined,
  B extends ZodType | undefined = undefined,
  R extends ZodType = ZodType,
>(config: RouteConfig<A, P, Q, B, R>): Route {
  const { auth, scope, params, query, body, response, handler, limit } = config;
  const policy = limit ? ENDPOINT_POLICIES[limit] : undefined;
  return {
    config: config as unknown as Route["config"],
    async run(request, rawParams, rawQuery, requestId, extras) {
      // Oversized bodies are refused before anything else is done for them.
      assertDeclaredLength(request);
      const identified = await identify(request, auth);
      const quota =
        identified.kind === "token"
          ? await countAgainstQuota(
              identified.caller.clientId,
              identified.caller.quota,
              identified.caller.kind === "user" ? identified.caller.userId : undefined,
              policy,
              extras,
            )
          : undefined;
      const caller = authorize(identified, auth, scope, request.resource) as CallerFor<A>;
      const idempotencyKey = config.idempotent ? readIdempotencyKey(request) : null;
      const parsedParams = parse(params, rawParams, "path parameter");
      const parsedQuery = parse(query, rawQuery, "query parameter");
      const rawBody = body ? await readJsonBody(request) : undefined;
      const input = { params: parsedParams, query: parsedQuery, body: parse(body, rawBody, "request body"), caller, request };
      const execute = async (): Promise<ApiReply> => {
        let payload;
        try {
          payload = await handler(input as Parameters<typeof handler>[0]);
        } catch (error) {
          // The endpoint's own limit refused it: announce it spent until its Retry-After.
          if (quota && policy && isAppError(error) && (error as AppError).status === 429) {
            const retryAfter = Number((error as AppError).headers?.["Retry-After"] ?? policy.windowSeconds);
            extras.headers = rateLimitHeaders(quota, { policy, state: { remaining: 0, resetSeconds: retryAfter } });
          }
          throw error;
        }
        if (quota && policy) {
          extras.headers = rateLimitHeaders(quota, { policy, state: { remaining: 0, resetSeconds: policy.windowSeconds } });
        }
        if (response.stream) {
          return { status: response.status, headers: streamHeaders(requestId, extras.headers), body: null, stream: payload as unknown as ReplyStream };
        }
        return jsonReply(response.status, response.bare ? payload : { data: payload }, requestId);
      };
      // A replay runs nothing, so the endpoint's limit keeps the headers of the app quota alone.
      if (idempotencyKey !== null && caller.kind === "user") {
        return runIdempotent(idempotencyKey, caller, request, rawBody, requestId, execute);
      }
      return execute();
    },
  };
}
