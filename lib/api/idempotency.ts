import { createHash } from "node:crypto";
import { AppError } from "../errors";
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  releaseIdempotencyKey,
  type IdempotencyScope,
} from "../services/idempotency-keys";
import type { UserCaller } from "./auth";
import { apiHeaders, type ApiReply, type ApiRequest } from "./request-reply";

/**
 * `Idempotency-Key` on the POSTs that write (chat post, poke), after Stripe's and the IETF
 * draft's (draft-ietf-httpapi-idempotency-key-header). Within 24 hours the same key from the same
 * app and user (and world) with the same request replays the first success, marked
 * `Idempotent-Replayed: true`, without running the endpoint again (so it spends neither the chat nor
 * the poke limit); another request under the key is 422 `idempotency_key_reused`; while the first
 * still runs, 409 `idempotency_key_in_use`. Errors are not stored: the key is released and a retry
 * runs again (a 429 must not replay forever). Without the header nothing here runs.
 */
const IDEMPOTENCY_KEY_HEADER = "idempotency-key";
const IDEMPOTENT_REPLAYED_HEADER = "idempotent-replayed";
/** 1–255 printable ASCII characters (space through tilde). */
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/** The request's key, or null without the header; 400 `invalid_request` for a malformed one. */
export function readIdempotencyKey(request: ApiRequest): string | null {
  const key = request.headers.get(IDEMPOTENCY_KEY_HEADER);
  if (key === null) return null;
  if (!KEY_PATTERN.test(key)) {
    throw new AppError("invalid_request", "Idempotency-Key must be 1 to 255 printable ASCII characters.");
  }
  return key;
}

/** SHA-256 of what makes two requests "the same": method, path and the JSON body (null without one). */
function requestHashOf(request: ApiRequest, rawBody: unknown): Buffer {
  const path = new URL(request.url).pathname;
  return createHash("sha256")
    .update(`${request.method.toUpperCase()} ${path}\n${JSON.stringify(rawBody ?? null)}`)
    .digest();
}

/**
 * Runs `execute` once per key: claims the key (one statement), runs, stores a 2xx reply (one more)
 * and returns it; or answers from the stored row without running.
 */
export async function runIdempotent(
  key: string,
  caller: UserCaller,
  request: ApiRequest,
  rawBody: unknown,
  requestId: string,
  execute: () => Promise<ApiReply>,
): Promise<ApiReply> {
  const scope: IdempotencyScope = { clientId: caller.clientId, worldId: caller.worldId, userId: caller.userId, key };
  const hash = requestHashOf(request, rawBody);
  const claim = await claimIdempotencyKey(scope, hash);
  if (claim.outcome === "exists" && !claim.requestHash.equals(hash)) {
    throw new AppError(
      "idempotency_key_reused",
      "This Idempotency-Key was used with a different request in the last 24 hours; use a new key for a new request.",
    );
  }
  if (claim.outcome === "busy" || (claim.outcome === "exists" && (claim.status === null || claim.body === null))) {
    throw new AppError("idempotency_key_in_use", "A request with this Idempotency-Key is still in progress; retry after it finished.", {
      headers: { "Retry-After": "1" },
    });
  }
  if (claim.outcome === "exists") {
    return { status: claim.status!, headers: apiHeaders({ [IDEMPOTENT_REPLAYED_HEADER]: "true" }, requestId), body: claim.body };
  }
  let reply: ApiReply;
  try {
    reply = await execute();
  } catch (error) {
    await releaseIdempotencyKey(scope, hash);
    throw error;
  }
  if (reply.status >= 200 && reply.status < 300 && reply.body !== null) {
    await completeIdempotencyKey(scope, hash, reply.status, reply.body);
  } else {
    await releaseIdempotencyKey(scope, hash);
  }
  return reply;
}
