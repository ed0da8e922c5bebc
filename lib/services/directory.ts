import { readerFor, type ReadCaller } from "../database/replicas";
import { findDirectoryIdentities, listDirectoryUsersAfter, type DirectoryIdentityRecord } from "../queries/directory";
import type { Identifier, IdentifierType } from "../schemas/directory";

export type { DirectoryIdentityRecord } from "../queries/directory";

/**
 * The user directory (SQL: lib/queries/directory.ts): only users with `directoryVisible` and an
 * enabled account are listed or resolved. Links are stored normalized (lower-case, no leading @),
 * so lookups are exact matches on the (type, value) unique index.
 */

/** The stored form of an identifier value. */
export function normalizeIdentifier(_type: IdentifierType, value: string): string {
  return value.trim().replace(/^@/, "").toLowerCase();
}

/** Resolves identifiers in ONE query: one entry per identifier, in request order, null for a miss. */
export function resolveIdentifiers(identifiers: Identifier[], worldId: number, readAs?: ReadCaller): Promise<(DirectoryIdentityRecord | null)[]> {
  return findDirectoryIdentities(
    identifiers.map((i) => ({ type: i.type, value: normalizeIdentifier(i.type, i.value) })),
    worldId,
    readAs && readerFor(readAs),
  );
}

/** A page of the directory in id order (keyset: `afterId` is the last id of the previous page). */
export async function listDirectoryUsers(options: {
  afterId: number;
  limit: number;
  /** The caller's world (0 live). */
  worldId: number;
  /** The API caller; its read may go to a read replica (lib/database/replicas.ts). Absent: the primary. */
  readAs?: ReadCaller;
}): Promise<{ users: (DirectoryIdentityRecord & { id: number })[]; hasMore: boolean }> {
  // One extra row tells whether a next page exists.
  const rows = await listDirectoryUsersAfter(options.afterId, options.limit + 1, options.worldId, options.readAs && readerFor(options.readAs));
  return { users: rows.slice(0, options.limit), hasMore: rows.length > options.limit };
}
