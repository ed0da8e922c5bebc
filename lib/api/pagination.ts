import { AppError } from "../errors";

/**
 * Opaque keyset cursors for GET /users (PRODUCT.md: keyset on a unique, indexed order; cursors
 * are opaque; a malformed one is 400). The cursor is base64url of `u1:<last id>`; the version
 * prefix lets the format change without breaking cursors clients still hold.
 */
const PREFIX = "u1:";
const MAX_USER_ID = 2_147_483_647;

export function encodeUsersCursor(lastId: number): string {
  return Buffer.from(`${PREFIX}${lastId}`, "utf8").toString("base64url");
}

/** The last id of the previous page; 400 invalid_request for anything this server did not issue. */
export function decodeUsersCursor(cursor: string): number {
  const malformed = () => new AppError("invalid_request", "Invalid query parameter `cursor`: malformed cursor; pass next_cursor back verbatim.");
  if (cursor.length === 0 || cursor.length > 64 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw malformed();
  const decoded = Buffer.from(cursor, "base64url").toString("utf8");
  const match = /^u1:(0|[1-9][0-9]{0,9})$/.exec(decoded);
  if (!match) throw malformed();
  const id = Number(match[1]);
  // Only the canonical encoding is accepted, so one position has exactly one cursor.
  if (id > MAX_USER_ID || encodeUsersCursor(id) !== cursor) throw malformed();
  return id;
}
