import type { ServerResponse } from "node:http";
import { serverSecurityHeaders } from "./security-headers";

/**
 * Replies written on Node's response, for everything server.ts answers itself (the API, the hosted
 * pages' form posts, the client-credentials fast path, /healthz and the last-resort 500). Next
 * answers its own pages.
 */

/** The one text of every 500 a client sees; the detail goes to the log, under the request id. */
export const INTERNAL_ERROR_MESSAGE = "Something went wrong on our side. Retry with backoff.";

type Headers = Record<string, string | number>;

/**
 * Every reply's one writeHead: the security headers, the reply's own, then the caller's, in one
 * object (Node's fast path when nothing was set with setHeader before).
 */
function send(res: ServerResponse, status: number, headers: Headers, body: string | Buffer | null, extra?: Headers): void {
  if (res.headersSent) {
    // Too late for a status: end what was started.
    res.end();
    return;
  }
  const all: Headers = { ...serverSecurityHeaders(), ...headers, ...extra };
  // A known length fixes the framing at once (no chunked encoding).
  if (body !== null) all["content-length"] = Buffer.byteLength(body);
  res.writeHead(status, all);
  res.end(body ?? undefined);
}

/** JSON: `body` is serialized unless it already is a string (a pre-serialized document). */
const JSON_HEADERS: Headers = { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" };

export function sendJson(res: ServerResponse, status: number, body: unknown, headers?: Headers): void {
  send(res, status, JSON_HEADERS, typeof body === "string" ? body : JSON.stringify(body), headers);
}

/** Headers and an optional body exactly as given (the API's prepared replies). */
export function sendRaw(res: ServerResponse, status: number, headers: Record<string, string>, body: string | null): void {
  send(res, status, headers, body);
}

/** Bytes (a file), e.g. the SDK's tarball; `null` for a HEAD answer (then give content-length yourself). */
export function sendBytes(res: ServerResponse, status: number, headers: Record<string, string | number>, body: Buffer | null): void {
  send(res, status, headers, body);
}

export function sendHtml(res: ServerResponse, status: number, html: string): void {
  send(res, status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }, html);
}

/** A redirect without a body; 303 so a POST becomes a GET. */
export function sendRedirect(res: ServerResponse, location: string, status: 302 | 303 = 303): void {
  send(res, status, { location, "cache-control": "no-store", "content-length": 0 }, null);
}

/** The platform's JSON 500 (error envelope of SPEC.md), for a failure nothing else answered. */
export function sendInternalError(res: ServerResponse): void {
  sendJson(res, 500, { error: { code: "internal_error", message: INTERNAL_ERROR_MESSAGE } });
}
