import { AppError } from "../errors";
import { BodyError, isDeclaredTooLarge, mediaType } from "../http/body";
import type { ApiRequest } from "./request-reply";

/**
 * JSON request bodies of the API (PRODUCT.md: over 64 KiB ⇒ 413; SPEC Errors: 413 keeps
 * `invalid_request`), read through lib/http/body.ts. The 413 closes the connection so the client
 * stops sending.
 */
export const MAX_BODY_BYTES = 64 * 1024;

function tooLarge(): AppError {
  return new AppError("invalid_request", `The request body is larger than ${MAX_BODY_BYTES / 1024} KiB.`, {
    status: 413,
    headers: { connection: "close" },
  });
}

/** Throws 413 when the declared length is over the cap (cheap; done once, before authentication). */
export function assertDeclaredLength(request: ApiRequest): void {
  if (isDeclaredTooLarge(request.headers, MAX_BODY_BYTES)) throw tooLarge();
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/** The parsed JSON body; 400 invalid_request for a wrong content type, invalid UTF-8 or malformed JSON. */
export async function readJsonBody(request: ApiRequest): Promise<unknown> {
  if (mediaType(request.headers) !== "application/json") {
    throw new AppError("invalid_request", "The request body must be JSON with Content-Type: application/json.");
  }
  let bytes: Buffer;
  try {
    bytes = await request.readBody(MAX_BODY_BYTES);
  } catch (error) {
    if (error instanceof BodyError) throw error.status === 413 ? tooLarge() : new AppError("invalid_request", error.message);
    throw error;
  }
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
