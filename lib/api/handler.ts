import { z, ZodError, type ZodType } from "zod";
import type { ApiErrorCode } from "../schemas/api";
import type { SvcScope } from "../scopes";
import { authenticate, type ApiCaller, type AuthRequirement, type UserCaller } from "./auth";
import { assertDeclaredLength, readJsonBody } from "./body";
import { InputError } from "./errors";
import { jsonReply, type ApiReply, type ApiRequest } from "./http";

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
  summary: string;
  description: string;
  tag: string;
  auth: A;
  scope?: SvcScope;
  params?: P;
  query?: Q;
  body?: B;
  response: { status: 200 | 201; schema: R; description: string; bare?: boolean };
  /** Error codes this endpoint answers with besides the auth ones derived from `auth`/`scope`. */
  errors: ApiErrorCode[];
  handler(input: {
    params: Out<P>;
    query: Out<Q>;
    body: Out<B>;
    caller: CallerFor<A>;
    request: ApiRequest;
  }): Promise<z.input<R>>;
}

export interface Route {
  config: RouteConfig<AuthRequirement, AnyObject | undefined, AnyObject | undefined, ZodType | undefined, ZodType>;
  run(request: ApiRequest, rawParams: Record<string, string>, query: Record<string, string | string[]>, requestId: string): Promise<ApiReply>;
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
  const { auth, scope, params, query, body, response, handler } = config;
  return {
    config: config as unknown as Route["config"],
    async run(request, rawParams, rawQuery, requestId) {
      // Oversized bodies are refused before anything else is done for them.
      assertDeclaredLength(request);
      const caller = (await authenticate(request, auth, scope)) as CallerFor<A>;
      const input = {
        params: parse(params, rawParams, "path parameter"),
        query: parse(query, rawQuery, "query parameter"),
        body: body ? parse(body, await readJsonBody(request), "request body") : (undefined as Out<B>),
        caller,
        request,
      };
      const payload = await handler(input as Parameters<typeof handler>[0]);
      return jsonReply(response.status, response.bare ? payload : { data: payload }, requestId);
    },
  };
}
