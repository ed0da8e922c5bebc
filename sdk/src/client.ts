import createFetchClient, {
  type Client,
  type ClientPathsWithMethod,
  type FetchResponse,
  type MaybeOptionalInit,
  type Middleware,
} from "openapi-fetch";
import type { TokenProvider } from "./client-credentials.js";
import { PlatformError, readRateLimit, type ResponseInfo } from "./errors.js";
import { streamEvents, type EventStreamOptions } from "./events.js";
import { createTransport, type CallOptions, type RequestOptions, type RetryInfo } from "./transport.js";
import { sleep } from "./wait.js";
import type { components, paths } from "./generated/openapi.js";

export type { components, paths };
/** The API's named schemas, e.g. `Schemas["ChatMessage"]`. */
export type Schemas = components["schemas"];
export type ChatMessage = Schemas["ChatMessage"];
export type DirectoryIdentity = Schemas["DirectoryIdentity"];

export interface ClientOptions extends RequestOptions {
  /** The API's base URL, e.g. `http://localhost:3000/api/v1` (a bare origin gets `/api/v1` added). */
  baseUrl: string;
  /** A fixed access token … */
  token?: string;
  /** … or a provider asked before every request (e.g. `clientCredentials(…)`). */
  tokenProvider?: TokenProvider | (() => Promise<string> | string);
  /** A fetch to use instead of the global one. */
  fetch?: typeof fetch;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
  /**
   * The SDK gives every POST an `Idempotency-Key` (one per call, the same on its retries), so a POST
   * whose answer was lost is retried without posting twice. `false` sends none (and never retries a
   * POST) unless a call passes its own `idempotencyKey`. Default true.
   */
  idempotencyKeys?: boolean;
  /** Called before each retry (for logs): what failed and how long the SDK waits. */
  onRetry?: (retry: RetryInfo) => void;
}

/** A result: the response body, plus what its response said (not enumerable: JSON.stringify and spreads leave them out). */
export type WithResponseInfo<T> = T extends object ? T & ResponseInfo : T;

/** Adds `requestId` and `rateLimit` to a result object, as non-enumerable properties. */
function withInfo<T>(value: T, info: ResponseInfo): WithResponseInfo<T> {
  if (value !== null && typeof value === "object" && Object.isExtensible(value)) {
    Object.defineProperties(value, {
      requestId: { value: info.requestId, enumerable: false, configurable: true },
      rateLimit: { value: info.rateLimit, enumerable: false, configurable: true },
    });
  }
  return value as WithResponseInfo<T>;
}

function infoOf(value: unknown): ResponseInfo {
  const v = value as Partial<ResponseInfo> | null;
  return { ...(v?.requestId ? { requestId: v.requestId } : {}), rateLimit: v?.rateLimit ?? null };
}

/** The `data` member of an enveloped result, carrying the result's response info. */
function unwrap<T>(result: { data: T }): WithResponseInfo<T> {
  return withInfo(result.data, infoOf(result));
}

type RequiredKeysOf<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
type InitParam<Init> = RequiredKeysOf<Init> extends never ? [(Init & CallOptions & { [key: string]: unknown })?] : [Init & CallOptions & { [key: string]: unknown }];
type Media = `${string}/${string}`;
type Method = "get" | "post";
type PathsFor<M extends Method> = ClientPathsWithMethod<Client<paths>, M>;

/**
 * Like openapi-fetch's methods, but resolving to the success body with `requestId` and `rateLimit`
 * (errors are thrown as PlatformError). The init also takes the call's options (CallOptions:
 * `signal`, `timeoutMs`, `maxRetries`, `idempotencyKey`).
 */
export type DataMethod<M extends Method> = <Path extends PathsFor<M>, Init extends MaybeOptionalInit<paths[Path], M>>(
  url: Path,
  ...init: InitParam<Init>
) => Promise<WithResponseInfo<NonNullable<FetchResponse<Extract<paths[Path][M], Record<string | number, unknown>>, Init, Media>["data"]>>>;

/** Walks a cursor-paginated list one page at a time, yielding items. */
async function* walk<T>(fetchPage: (cursor: string | undefined) => Promise<{ items: T[]; next: string | null | undefined }>, start?: string) {
  let cursor = start;
  for (;;) {
    const page = await fetchPage(cursor);
    yield* page.items;
    if (!page.next) return;
    cursor = page.next;
  }
}

const isNewer = (id: string, than: string) => BigInt(id) > BigInt(than);

function apiBaseUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  if (url.pathname === "/" || url.pathname === "") url.pathname = "/api/v1";
  return url.href.replace(/\/$/, "");
}

/**
 * A client for the platform's JSON API. Every endpoint is typed from the OpenAPI document:
 * `client.GET("/users/{username}", { params: { path: { username: "alice" } } })`, plus helpers per
 * resource that unwrap the `{ data }` envelope. Errors (any non-2xx) are thrown as `PlatformError`.
 */
export function createClient(options: ClientOptions) {
  const { token, tokenProvider } = options;
  const send = createTransport(options.fetch ?? ((input, init) => fetch(input, init)), options);
  const raw = createFetchClient<paths>({
    baseUrl: apiBaseUrl(options.baseUrl),
    fetch: (request: Request) => send(request),
    ...(options.headers ? { headers: options.headers } : {}),
  });
  const middleware: Middleware = {
    async onRequest({ request }) {
      const bearer = tokenProvider ? await tokenProvider() : token;
      if (bearer) request.headers.set("authorization", `Bearer ${bearer}`);
      return request;
    },
    async onResponse({ response }) {
      if (response.ok) return response;
      const error = await PlatformError.fromResponse(response);
      // A revoked or expired token: the provider fetches a new one on the next call.
      if (error.code === "invalid_token" && tokenProvider && "invalidate" in tokenProvider) tokenProvider.invalidate?.();
      throw error;
    },
  };
  raw.use(middleware);

  /** Sends one call: its options go to the transport, the rest to openapi-fetch. */
  async function call(method: "GET" | "POST", url: string, init: (CallOptions & Record<string, unknown>) | undefined) {
    const { maxRetries, timeoutMs, maxRetryAfterMs, signal, idempotencyKey, ...rest } = init ?? {};
    const callOptions: CallOptions = {
      ...(maxRetries !== undefined ? { maxRetries } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(maxRetryAfterMs !== undefined ? { maxRetryAfterMs } : {}),
      ...(signal ? { signal } : {}),
      ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
    };
    const fetchOptions = { ...rest, fetch: (request: Request) => send(request, callOptions) } as never;
    const { data, response } = method === "GET" ? await raw.GET(url as never, fetchOptions) : await raw.POST(url as never, fetchOptions);
    return withInfo(data, { ...(response.headers.get("x-request-id") ? { requestId: response.headers.get("x-request-id")! } : {}), rateLimit: readRateLimit(response.headers) });
  }
  const GET = ((url: string, init?: CallOptions & Record<string, unknown>) => call("GET", url, init)) as DataMethod<"get">;
  const POST = ((url: string, init?: CallOptions & Record<string, unknown>) => call("POST", url, init)) as DataMethod<"post">;

  const chat = {
    /**
     * Every message, newest first, walking back through the history page by page (`before`
     * cursors): `for await (const m of client.chat.messages()) …`. Stop whenever you like.
     */
    async *messages(query: { limit?: number; before?: string } = {}): AsyncGenerator<ChatMessage, void, undefined> {
      const pages = walk(async (before) => {
        const { data } = await GET("/global-chat/messages", {
          params: { query: { ...(query.limit ? { limit: query.limit } : {}), ...(before ? { before } : {}) } },
        });
        return { items: [data.messages], next: data.has_more ? data.next_cursor : null };
      }, query.before);
      for await (const page of pages) for (let i = page.length - 1; i >= 0; i--) yield page[i]!;
    },
    /**
     * The messages newer than `since` (a message id), oldest first: reads the newest page and, if
     * all of it is newer, the pages before it, until `since` is reached (or `maxPages`).
     */
    async since(since: string, query: { limit?: number; maxPages?: number } = {}): Promise<ChatMessage[]> {
      const found: ChatMessage[] = [];
      for await (const message of chat.messages({ limit: query.limit ?? 100 })) {
        if (!isNewer(message.id, since)) break;
        found.push(message);
        if (found.length >= (query.limit ?? 100) * (query.maxPages ?? 10)) break;
      }
      return found.reverse();
    },
    /** The newest message's id, or undefined when the chat is empty (a starting point for `since`). */
    async latestId(): Promise<string | undefined> {
      const { data } = await GET("/global-chat/messages", { params: { query: { limit: 1 } } });
      return data.messages.at(-1)?.id;
    },
    /**
     * Follows the chat: polls every `intervalMs` (default 2000) and yields each new message once,
     * oldest first, starting after `since` (default: the newest message now). Ends when `signal` aborts.
     */
    async *follow(query: { since?: string; intervalMs?: number; signal?: AbortSignal } = {}): AsyncGenerator<ChatMessage, void, undefined> {
      let since = query.since ?? (await chat.latestId()) ?? "0";
      while (!query.signal?.aborted) {
        for (const message of await chat.since(since)) {
          since = message.id;
          yield message;
        }
        await sleep(query.intervalMs ?? 2000, query.signal);
      }
    },
    /** Posts as the token's user (svc:chat.write, user-delegated). */
    async post(text: string, extra: { replyToId?: string } & CallOptions = {}): Promise<WithResponseInfo<ChatMessage>> {
      const { replyToId, ...callOptions } = extra;
      return unwrap(await POST("/global-chat/messages", { body: { text, ...(replyToId ? { reply_to_id: replyToId } : {}) }, ...callOptions }));
    },
  };

  const users = {
    /** A public profile (bare object). */
    get: (username: string, callOptions: CallOptions = {}) => GET("/users/{username}", { params: { path: { username } }, ...callOptions }),
    /** Every directory-visible user in a stable order: `for await (const u of client.users.list())`. */
    list(query: { limit?: number; cursor?: string } = {}): AsyncGenerator<DirectoryIdentity, void, undefined> {
      return walk(async (cursor) => {
        const { data } = await GET("/users", {
          params: { query: { ...(query.limit ? { limit: query.limit } : {}), ...(cursor ? { cursor } : {}) } },
        });
        return { items: data.users, next: data.next_cursor };
      }, query.cursor);
    },
    /** Pokes `handle` as the token's user; 429 `poke_cooldown` carries `nextAllowedAt`. */
    poke: async (handle: string, callOptions: CallOptions = {}) => unwrap(await POST("/users/{handle}/poke", { params: { path: { handle } }, ...callOptions })),
  };

  const me = {
    get: (callOptions: CallOptions = {}) => GET("/me", callOptions),
    stats: async (callOptions: CallOptions = {}) => unwrap(await GET("/me/stats", callOptions)),
    notifications: async (query: { limit?: number; page?: number } = {}, callOptions: CallOptions = {}) =>
      unwrap(await GET("/me/notifications", { params: { query }, ...callOptions })),
    beetle: async (callOptions: CallOptions = {}) => unwrap(await GET("/me/beetle", callOptions)),
    beetleCards: async (callOptions: CallOptions = {}) => unwrap(await GET("/me/beetle/cards", callOptions)),
  };

  const directory = {
    resolve: async (identifiers: Schemas["ResolveRequest"]["identifiers"], callOptions: CallOptions = {}) => {
      const result = await POST("/directory/resolve", { body: { identifiers }, ...callOptions });
      return withInfo(result.data.results, infoOf(result));
    },
  };

  /**
   * The live event stream: `for await (const event of client.events({ types: ["chat.message.created"] }))`.
   * Reconnects with Last-Event-ID by itself; ends when `signal` aborts (see EventStreamOptions).
   */
  const events = (streamOptions: EventStreamOptions = {}) =>
    streamEvents(apiBaseUrl(options.baseUrl), async () => (tokenProvider ? await tokenProvider() : token), options.fetch ?? fetch, streamOptions);

  return { GET, POST, raw, chat, users, me, directory, events };
}

export type PlatformClient = ReturnType<typeof createClient>;
