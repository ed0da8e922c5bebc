import type { IncomingMessage, ServerResponse } from "node:http";
import { readBody } from "../http/body";
import { sendRaw } from "../http/reply";
import { serverSecurityHeaders } from "../http/security-headers";
import type { ApiRequest, ReplyStream } from "./request-reply";
import { dispatchApiRequest } from "./router";

/**
 * The Node fast path for server.ts: the same route table as `handleApiRequest`, without building
 * undici Request/Response objects (their header copies and body streams cost more CPU than the
 * whole profile read). The body is read from Node's stream only if a handler asks for it
 * (lib/http/body.ts enforces the cap while it streams).
 */
export function toApiRequest(req: IncomingMessage, origin: string): ApiRequest {
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return {
    method: req.method ?? "GET",
    url: `${origin}${req.url ?? "/"}`,
    headers: {
      get(name: string): string | null {
        const value = req.headers[name.toLowerCase()];
        if (value === undefined) return null;
        return Array.isArray(value) ? value.join(", ") : value;
      },
    },
    readBody: (limit) => (hasBody ? readBody(req, { limit, headers: req.headers }) : Promise.resolve(Buffer.alloc(0))),
    // Declared up front, so setting them later keeps the object's shape (router.ts, auth.ts).
    route: undefined,
    clientId: undefined,
    userId: undefined,
  };
}

/** How long an ended stream may take to hand its last bytes to the reader before its socket is destroyed. */
const STREAM_END_GRACE_MS = 5_000;

/**
 * A long-lived response (the event stream, an MCP session's stream): no request timeout, no Nagle
 * delay; it ends when either side does.
 */
export function writeReplyStream(req: IncomingMessage, res: ServerResponse, status: number, headers: Record<string, string>, stream: ReplyStream): void {
  req.socket.setTimeout(0);
  req.socket.setNoDelay(true);
  res.writeHead(status, headers);
  res.flushHeaders();
  const stop = stream.start({
    write: (chunk) => res.write(chunk),
    buffered: () => res.writableLength,
    onDrain: (listener) => void res.once("drain", listener),
    end: () => {
      res.end();
      // A reader that stopped reading never takes the last bytes: its socket (and what is buffered
      // for it) goes after a grace period rather than when the peer's TCP stack gives up.
      const grace = setTimeout(() => res.destroy(), STREAM_END_GRACE_MS);
      grace.unref();
      res.once("close", () => clearTimeout(grace));
    },
  });
  res.on("close", stop);
}

/**
 * Answers one `/api/v1/**` request on Node's own request/response objects. Resolves with the name
 * of the route that matched (`GET /users/{username}`; undefined when none did), for the HTTP metrics.
 */
export async function serveApiRequest(req: IncomingMessage, res: ServerResponse, origin: string): Promise<string | undefined> {
  const request = toApiRequest(req, origin);
  const reply = await dispatchApiRequest(request);
  if (res.headersSent || res.destroyed) return request.route;
  if (reply.stream) {
    writeReplyStream(req, res, reply.status, { ...serverSecurityHeaders(), ...reply.headers }, reply.stream);
    return request.route;
  }
  sendRaw(res, reply.status, reply.headers, reply.body);
  return request.route;
}
