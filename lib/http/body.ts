import { Readable } from "node:stream";
import * as contentType from "content-type";
import getRawBody from "raw-body";
import { header, type HeaderSource } from "./headers";

/**
 * Request bodies, for every reader in the app (the API, the client-credentials fast path, the
 * hosted pages' form posts): one rule for the declared length, the byte limit and the media type.
 * raw-body reads the stream with events, refuses a declared length over the limit before reading
 * a byte, and stops reading (pauses) the moment a chunked body passes it, so at most one chunk past
 * the limit is ever held; the caller's 413 then closes the connection.
 */
export class BodyError extends Error {
  constructor(
    /** 413: over the limit; 400: the body ended before its declared length or is malformed. */
    readonly status: 400 | 413,
    message: string,
  ) {
    super(message);
  }
}

/** The media type of Content-Type, lower-cased, without parameters; null when absent or malformed. */
export function mediaType(headers: HeaderSource): string | null {
  const value = header(headers, "content-type");
  if (!value) return null;
  try {
    return contentType.parse(value).type;
  } catch {
    return null;
  }
}

/** The declared Content-Length, or undefined when there is none (chunked) or it is not a number. */
export function declaredLength(headers: HeaderSource): number | undefined {
  const value = header(headers, "content-length");
  if (value === undefined || !/^\d{1,15}$/.test(value.trim())) return undefined;
  return Number(value);
}

/** Cheap, before anything else is done for a request: is its declared body already too large? */
export function isDeclaredTooLarge(headers: HeaderSource, limit: number): boolean {
  const length = declaredLength(headers);
  return length !== undefined && length > limit;
}

/**
 * The whole body, at most `limit` bytes. `source` is Node's request (or any readable) or a Web
 * stream (Next's Request). Rejects with BodyError(413) over the limit, BodyError(400) when the
 * stream ends short of its declared length, and rethrows an aborted stream's error as is.
 */
export async function readBody(
  source: Readable | ReadableStream<Uint8Array> | null,
  options: { limit: number; headers?: HeaderSource },
): Promise<Buffer> {
  if (source === null) return Buffer.alloc(0);
  const stream = source instanceof Readable ? source : Readable.fromWeb(source as import("node:stream/web").ReadableStream);
  const length = options.headers ? declaredLength(options.headers) : undefined;
  try {
    return await getRawBody(stream, { limit: options.limit, length });
  } catch (error) {
    const type = (error as { type?: string }).type;
    if (type === "entity.too.large") throw new BodyError(413, `The request body is larger than ${options.limit} bytes.`);
    if (type === "request.size.invalid") throw new BodyError(400, "The request body is shorter than its Content-Length.");
    throw error;
  }
}
