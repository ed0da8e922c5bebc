import { AppError } from "../errors";
import type { ApiRequest } from "./http";

/**
 * Request bodies (PRODUCT.md: over 64 KiB ⇒ 413; SPEC Errors: 413 keeps `invalid_request`). The
 * declared Content-Length is checked before reading anything; a body without one (chunked) is
 * counted while it streams and abandoned the moment it passes the cap, so at most one chunk past
 * 64 KiB is ever held. The 413 closes the connection so the client stops sending.
 */
export const MAX_BODY_BYTES = 64 * 1024;

function tooLarge(): AppError {
  return new AppError("invalid_request", `The request body is larger than ${MAX_BODY_BYTES / 1024} KiB.`, {
    status: 413,
    headers: { connection: "close" },
  });
}

/** Throws 413 when the declared length is over the cap (cheap; done before authentication). */
export function assertDeclaredLength(request: ApiRequest): void {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > MAX_BODY_BYTES) throw tooLarge();
}

function isJsonContentType(value: string | null): boolean {
  if (!value) return false;
  const mediaType = value.split(";", 1)[0]!.trim().toLowerCase();
  return mediaType === "application/json";
}

async function readCapped(request: ApiRequest): Promise<Uint8Array> {
  if (request.readBody) return request.readBody(MAX_BODY_BYTES, tooLarge);
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_BODY_BYTES) {
      // Stop pulling; the response closes the connection (cancelling would reset the socket
      // before the 413 could be written).
      reader.releaseLock();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/** The parsed JSON body; 400 invalid_request for a wrong content type, invalid UTF-8 or malformed JSON. */
export async function readJsonBody(request: ApiRequest): Promise<unknown> {
  assertDeclaredLength(request);
  if (!isJsonContentType(request.headers.get("content-type"))) {
    throw new AppError("invalid_request", "The request body must be JSON with Content-Type: application/json.");
  }
  const bytes = await readCapped(request);
  if (bytes.byteLength === 0) throw new AppError("invalid_request", "The request body is empty; JSON is required.");
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw new AppError("invalid_request", "The request body is not valid UTF-8.");
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("invalid_request", "The request body is not valid JSON.");
  }
}
