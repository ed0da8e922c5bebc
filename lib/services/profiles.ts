import { readerFor, type ReadCaller } from "../database/replicas";
import { findOwnProfileById, findPublicProfile, type OwnProfileRecord, type ProfileRecord } from "../queries/profiles";

export type { OwnProfileRecord, ProfileRecord, StatsColumns } from "../queries/profiles";

/**
 * Profile reads (GET /users/{username}, GET /me): the API's hottest reads, ONE batched query each
 * (lib/queries/profiles.ts).
 */

/** Handles are stored lower-case and are at most this long; longer input cannot match. */
const MAX_HANDLE_LENGTH = 64;

/** A handle as typed by a client, in stored form; null when it cannot be anyone's handle. */
export function normalizeHandle(input: string): string | null {
  const handle = input.trim().replace(/^@/, "").toLowerCase();
  if (handle.length === 0 || handle.length > MAX_HANDLE_LENGTH || handle.includes("\u0000") || !handle.isWellFormed()) return null;
  return handle;
}

/**
 * The public profile of an enabled user of world `worldId` (the caller's: lib/api/auth.ts worldOf), personalized for `viewerId`; null when no such user.
 * Disabled accounts are hidden like unknown ones (as a suspended account's profile is elsewhere).
 */
export async function findProfileByHandle(username: string, worldId: number, viewerId?: number, readAs?: ReadCaller): Promise<ProfileRecord | null> {
  const handle = normalizeHandle(username);
  if (handle === null) return null;
  return findPublicProfile(handle, viewerId ?? null, worldId, readAs && readerFor(readAs));
}

/** The token user's own profile with the owner-only parts; null if the account vanished. */
export function findOwnProfile(userId: number): Promise<OwnProfileRecord | null> {
  return findOwnProfileById(userId);
}
