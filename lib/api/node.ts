import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import type { ApiRequest } from "./http";
import { dispatchApiRequest } from "./router";

/**
 * The Node fast path for server.ts: the same route table as `handleApiRequest`, without building
 * undici Request/Response objects (their header copies and body streams cost more CPU than the
 * whole profile read). The body stream is made only if a handler reads it, and never buffered
 * here: lib/api/body.ts enforces the 64 KiB cap while it streams.
 */
function toApiRequest(req: IncomingMessage, origin: string): ApiRequest {
  let body: ReadableStream<Uint8Array> | null | undefined;
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
    get body() {
      if (body === undefined) body = hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : null;
      return body;
    },
    readBody: (max, tooLarge) => (hasBody ? readNodeBody(req, max, tooLarge) : Promise.resolve(new Uint8Array(0))),
  };
}

/**
 * The body straight from Node's stream, for lib/api/body.ts: the same cap as its web-stream path —
 * counted while it streams, abandoned (paused, no more reads) the moment it passes `max`; the 413
 * reply then closes the connection.
 */
function readNodeBody(req: IncomingMessage, max: number, tooLarge: () => Error): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const done = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > max) {
        done();
        req.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(Buffer.concat(chunks, total));
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    // The client went away mid-body.
    const onClose = () => {
      if (req.complete) return;
      done();
      reject(new Error("request aborted"));
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
}

/** Answers one `/api/v1/**` request on Node's own request/response objects. */
export async function serveApiRequest(req: IncomingMessage, res: ServerResponse, origin: string): Promise<void> {
  const reply = await dispatchApiRequest(toApiRequest(req, origin));
  if (res.headersSent || res.destroyed) return;
  if (reply.body === null) {
    res.writeHead(reply.status, reply.headers);
    res.end();
    return;
  }
  // writeHead fixes the framing at once: a known length avoids chunked encoding.
  res.writeHead(reply.status, { ...reply.headers, "content-length": String(Buffer.byteLength(reply.body)) });
  res.end(reply.body);
}
