import { AppError } from "../errors";
import { readBody } from "../http/body";
import { requestIdFrom } from "../http/request-id";
import { chargeUnmatched, type ReplyExtras, type Route } from "./handler";
import { toErrorReply } from "./errors";
import { jsonReply, PREFLIGHT_HEADERS, type ApiReply, type ApiRequest } from "./request-reply";
import { meterApiRequest } from "./metering";
import { API_ROUTES } from "./routes";

/**
 * Serves `/api/v1/**` from the route table. `handleApiRequest` is the Web-standard entry (Request
 * in, Response out: app/api/v1 under Next, tests); server.ts takes the Node fast path in
 * lib/api/node.ts. Both run `dispatchApiRequest`: path matching, CORS preflight, 404 `not_found`
 * for unknown paths, 405 `method_not_allowed` with `Allow`, HEAD for every GET, and the error
 * mapping for anything thrown below.
 */
export const API_PREFIX = "/api/v1";

type Runner = Pick<Route, "run">;

interface PathEntry {
  pattern: RegExp;
  names: string[];
  methods: Map<string, Runner>;
  /** Method → `GET /users/{username}`, the route's name in usage metering. */
  routeNames: Map<string, string>;
  allow: string;
}

/** GET /api/v1/openapi.json: public, generated and serialized once per process. */
let openApiBody: string | undefined;
const openApiRunner: Runner = {
  async run(_request, _params, _query, requestId) {
    if (openApiBody === undefined) {
      const { getOpenApiDocument } = await import("./openapi");
      openApiBody = JSON.stringify(getOpenApiDocument());
    }
    return { ...jsonReply(200, null, requestId, { "cache-control": "public, max-age=300" }), body: openApiBody };
  },
};

function compile(): PathEntry[] {
  const byPath = new Map<string, Map<string, Runner>>();
  const add = (path: string, method: string, runner: Runner) => {
    const methods = byPath.get(path) ?? new Map<string, Runner>();
    methods.set(method, runner);
    byPath.set(path, methods);
  };
  for (const route of API_ROUTES) add(route.config.path, route.config.method, route);
  add("/openapi.json", "GET", openApiRunner);
  return [...byPath].map(([path, methods]) => {
    const names: string[] = [];
    const source = path.replace(/[.]/g, "\\.").replace(/\{(\w+)\}/g, (_m, name: string) => {
      names.push(name);
      return "([^/]+)";
    });
    const verbs = [...methods.keys()];
    const routeNames = new Map(verbs.map((verb) => [verb, `${verb} ${path}`]));
    if (verbs.includes("GET")) verbs.push("HEAD");
    verbs.push("OPTIONS");
    return { pattern: new RegExp(`^${source}$`), names, methods, routeNames, allow: verbs.join(", ") };
  });
}

let entries: PathEntry[] | undefined;

function match(subpath: string): { entry: PathEntry; params: Record<string, string> } | null {
  entries ??= compile();
  for (const entry of entries) {
    const m = entry.pattern.exec(subpath);
    if (!m) continue;
    const params: Record<string, string> = {};
    for (let i = 0; i < entry.names.length; i++) {
      try {
        params[entry.names[i]!] = decodeURIComponent(m[i + 1]!);
      } catch {
        return null; // malformed percent-encoding cannot name anything
      }
    }
    return { entry, params };
  }
  return null;
}

/** Repeated parameters become arrays, so a schema expecting one value rejects them. */
function queryObject(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of params) {
    const seen = out[key];
    if (seen === undefined) out[key] = value;
    else out[key] = Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return out;
}

function requestIdOf(request: ApiRequest): string {
  return requestIdFrom(request.headers.get("x-request-id"));
}

/** Routes one request to its handler; never throws (errors become the envelope). */
export async function dispatchApiRequest(request: ApiRequest): Promise<ApiReply> {
  const startedMs = performance.now();
  const requestId = requestIdOf(request);
  const method = request.method.toUpperCase();
  const info = { requestId, method, path: request.url.split("?")[0]! };
  const isHead = method === "HEAD";
  let reply: ApiReply;
  const extras: ReplyExtras = {};
  try {
    const url = new URL(request.url);
    info.path = url.pathname;
    const subpath = url.pathname.startsWith(API_PREFIX) ? url.pathname.slice(API_PREFIX.length) : url.pathname;
    const found = match(subpath);
    if (method === "OPTIONS") {
      // Preflight is answered for any path, so the real request can show its JSON 404 to the page.
      const allow = found?.entry.allow ?? "GET, HEAD, POST, OPTIONS";
      return {
        status: 204,
        headers: { ...PREFLIGHT_HEADERS, "access-control-allow-methods": allow, allow, "x-request-id": requestId },
        body: null,
      };
    }
    if (!found) {
      await chargeUnmatched(request, extras);
      throw new AppError("not_found", "No such endpoint under /api/v1.");
    }
    const verb = isHead ? "GET" : method;
    const runner = found.entry.methods.get(verb);
    if (!runner) {
      await chargeUnmatched(request, extras);
      throw new AppError("method_not_allowed", `${method} is not allowed here. Allowed: ${found.entry.allow}.`, {
        headers: { allow: found.entry.allow },
      });
    }
    request.route = request.loggedAs ?? found.entry.routeNames.get(verb);
    reply = await runner.run(request, found.params, queryObject(url.searchParams), requestId, extras);
  } catch (error) {
    reply = toErrorReply(error, info);
  }
  if (extras.headers) Object.assign(reply.headers, extras.headers);
  meterApiRequest(request, request.loggedAs ? "MCP" : method, reply, requestId, startedMs, info.path);
  if (isHead) {
    reply.body = null;
    delete reply.stream;
  }
  return reply;
}

/** The Web-standard entry point: Request in, Response out. */
export async function handleApiRequest(request: Request): Promise<Response> {
  const reply = await dispatchApiRequest({
    method: request.method,
    url: request.url,
    headers: request.headers,
    readBody: (limit) => readBody(request.body, { limit, headers: request.headers }),
    route: undefined,
    clientId: undefined,
    userId: undefined,
  });
  if (reply.stream) {
    const stream = reply.stream;
    let stop: (() => void) | undefined;
    const encoder = new TextEncoder();
    // The queue's own measure of back-pressure: `pull` is called whenever it wants more.
    const highWaterMark = 64 * 1024;
    let drained: (() => void)[] = [];
    const body = new ReadableStream<Uint8Array>(
      {
        start(controller) {
          stop = stream.start({
            write: (chunk) => {
              controller.enqueue(encoder.encode(chunk));
              return (controller.desiredSize ?? 0) > 0;
            },
            buffered: () => highWaterMark - (controller.desiredSize ?? highWaterMark),
            onDrain: (listener) => void drained.push(listener),
            end: () => controller.close(),
          });
        },
        pull() {
          const listeners = drained;
          drained = [];
          for (const listener of listeners) listener();
        },
        cancel() {
          stop?.();
        },
      },
      new ByteLengthQueuingStrategy({ highWaterMark }),
    );
    return new Response(body, { status: reply.status, headers: reply.headers });
  }
  return new Response(reply.body, { status: reply.status, headers: reply.headers });
}
