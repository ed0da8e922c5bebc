import { dummyPasswordHash, hashPassword, needsRehash, verifyPassword } from "../crypto/passwords";
import { transactionWithChanges } from "../database/changes";
import { db, Prisma } from "../database/client";
import { env } from "../env";
import { AppError } from "../errors";
import { logger } from "../logger";
import { findCredentialRow } from "../queries/accounts";
import { HANDLE_PATTERN, type CreateUserInput, type UserPage, type UserView } from "../schemas/users";
import { LIVE_WORLD_ID } from "../schemas/sandboxes";
import { isAdminActor, type Actor } from "./actor";
import { recordAuthorizationEvents } from "../events/outbox";
import { recordAudit } from "./audit";

/**
 * Platform accounts: creation (CLI), admin flags (disable, mute), lookups for the admin area and the
 * sign-in service. Every change is audited.
 */

/** The platform's own account: owns first-party clients, cannot sign in, hidden from the directory. */
export const SYSTEM_USER_HANDLE = "platform";

const userViewSelect = {
  id: true,
  handle: true,
  displayName: true,
  role: true,
  disabled: true,
  muted: true,
  directoryVisible: true,
  avatarUrl: true,
  createdAt: true,
} as const;

type UserRow = Prisma.UserGetPayload<{ select: typeof userViewSelect }>;

function toUserView(row: UserRow): UserView {
  return { ...row };
}

/** Local avatar paths (no remote images): served by the site, generated from the handle. */
export function avatarPaths(handle: string): { avatarUrl: string; avatarUrlSmall: string } {
  return { avatarUrl: `/avatars/${handle}.svg`, avatarUrlSmall: `/avatars/${handle}.svg?size=48` };
}

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
}

export async function createUser(input: CreateUserInput, actor?: Actor): Promise<UserView> {
  const handle = input.handle.toLowerCase();
  if (!HANDLE_PATTERN.test(handle)) {
    throw new AppError("invalid_request", "A handle is 2–30 characters of a–z, 0–9 and _.", {
      fields: { handle: "must be 2–30 characters of a–z, 0–9 and _" },
    });
  }
  if (handle === SYSTEM_USER_HANDLE) {
    // The platform's own account owns the portal client; nobody may sign in as it.
    throw new AppError("conflict", `The handle "${handle}" is reserved.`, { fields: { handle: "is reserved" } });
  }
  if (actor && !isAdminActor(actor)) {
    await recordAudit({ actor, action: "user.create", targetType: "user", targetId: handle, outcome: "denied" });
    throw new AppError("forbidden", "Only an admin can create accounts.");
  }
  const passwordHash = await hashPassword(input.password);
  try {
    const row = await db.user.create({
      data: {
        handle,
        displayName: input.displayName ?? handle,
        passwordHash,
        role: input.admin ? "admin" : "user",
        ...avatarPaths(handle),
      },
      select: userViewSelect,
    });
    await recordAudit({
      actor: actor ?? { kind: "system", name: "platform" },
      action: "user.create",
      targetType: "user",
      targetId: handle,
      detail: { role: row.role },
    });
    return toUserView(row);
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new AppError("conflict", `The handle "${handle}" is already taken.`, { fields: { handle: "is already taken" } });
    }
    throw error;
  }
}

export async function findUserByHandle(handle: string): Promise<UserView | null> {
  const row = await db.user.findUnique({ where: { worldId_handle: { worldId: LIVE_WORLD_ID, handle: handle.toLowerCase() } }, select: userViewSelect });
  return row ? toUserView(row) : null;
}

export async function findUserById(id: number): Promise<UserView | null> {
  const row = await db.user.findUnique({ where: { id }, select: userViewSelect });
  return row ? toUserView(row) : null;
}

/** Like findUserByHandle but throws `user_not_found` (CLI "unknown user", app owners). */
export async function getUserByHandle(handle: string): Promise<UserView> {
  const user = await findUserByHandle(handle);
  if (!user) throw new AppError("user_not_found", `No user with the handle "${handle}".`);
  return user;
}

export type CredentialCheck =
  | { ok: true; user: { id: number; handle: string; hasSecondFactor: boolean } }
  | { ok: false; reason: "invalid_credentials" | "disabled" };

/**
 * Password check for the hosted login page. Unknown handles and accounts without a password cost
 * one hash like a real check (no account enumeration by timing); `disabled` is only reported
 * after the right password, so it reveals nothing to a guesser. Throttling is the caller's job, and
 * so is the hash's turn (`turn`: the gate holds the hash only, not the row's lookup).
 */
/** Runs one password check when its turn comes (the sign-in's gate, lib/services/password-checks.ts). */
export type PasswordCheckTurn = <T>(check: () => Promise<T>) => Promise<T>;

const NO_GATE: PasswordCheckTurn = (check) => check();

export async function verifyUserCredentials(
  handle: string,
  password: string,
  turn: PasswordCheckTurn = NO_GATE,
  worldId: number = LIVE_WORLD_ID,
): Promise<CredentialCheck> {
  const normalized = handle.trim().replace(/^@/, "").toLowerCase();
  // The hot path's raw statement (lib/queries/accounts.ts), not Prisma: every sign-in reads it.
  // In the signing-in client's world only (live people, or that sandbox's test users).
  const row = HANDLE_PATTERN.test(normalized) ? await findCredentialRow({ worldId, handle: normalized }) : null;
  if (!row?.passwordHash) {
    const dummy = await dummyPasswordHash();
    await turn(() => verifyPassword(password, dummy));
    return { ok: false, reason: "invalid_credentials" };
  }
  const stored = row.passwordHash;
  if (!(await turn(() => verifyPassword(password, stored)))) return { ok: false, reason: "invalid_credentials" };
  if (env().PASSWORD_REHASH && needsRehash(row.passwordHash)) await rehashPassword(row.id, row.passwordHash, password);
  if (row.disabled) return { ok: false, reason: "disabled" };
  return { ok: true, user: { id: row.id, handle: row.handle, hasSecondFactor: row.hasSecondFactor } };
}

/**
 * Replaces a hash made with older parameters, now that the password is known to be right. The
 * UPDATE is conditional on the old hash: of two sign-ins at once one writes, the other changes
 * nothing (either hash verifies), and a password changed meanwhile is never overwritten. A failure
 * is logged, not shown: the sign-in itself succeeded, and the next one tries again.
 */
async function rehashPassword(userId: number, oldHash: string, password: string): Promise<void> {
  try {
    const passwordHash = await hashPassword(password);
    await db.user.updateMany({ where: { id: userId, passwordHash: oldHash }, data: { passwordHash } });
  } catch (error) {
    logger.warn("password rehash failed", { userId, error: (error as Error).message });
  }
}

async function setFlag(
  handle: string,
  flag: "disabled" | "muted",
  value: boolean,
  actor: Actor,
  reason?: string,
): Promise<UserView> {
  const action = `user.${flag === "disabled" ? (value ? "disable" : "enable") : value ? "mute" : "unmute"}`;
  const target = handle.toLowerCase();
  if (!isAdminActor(actor)) {
    await recordAudit({ actor, action, targetType: "user", targetId: target, outcome: "denied" });
    throw new AppError("forbidden", "Only an admin can change accounts.");
  }
  const user = await findUserByHandle(target);
  if (!user) throw new AppError("user_not_found", `No user with the handle "${target}".`);
  if (actor.kind === "user" && actor.id === user.id && flag === "disabled" && value) {
    // An admin locking themselves out of the admin area is never what they meant.
    await recordAudit({ actor, action, targetType: "user", targetId: target, outcome: "denied", detail: { why: "self" } });
    throw new AppError("forbidden", "You cannot disable your own account.");
  }
  // Announced in the transaction: every process's cached status of this user is dropped at once.
  const row = await transactionWithChanges(async (tx, announce) => {
    const updated = await tx.user.update({ where: { id: user.id }, data: { [flag]: value }, select: userViewSelect });
    if (flag === "disabled" && value !== user.disabled) {
      // A disabled person's authorizations stop working (revoked), and work again when enabled (granted).
      const consents = await tx.consent.findMany({ where: { userId: user.id }, select: { userId: true, clientId: true, scopes: true } });
      await recordAuthorizationEvents(tx, value ? "app.authorization.revoked" : "app.authorization.granted", consents, user.handle);
    }
    await recordAudit({ actor, action, targetType: "user", targetId: target, detail: { previous: user[flag], ...(reason ? { reason } : {}) } }, tx);
    await announce({ kind: "user", userId: user.id });
    return updated;
  });
  return toUserView(row);
}

/**
 * A disabled account cannot sign in, and every API call with its tokens answers 403 forbidden (and
 * userinfo 401) from that moment, in every process; enabling it again makes its unexpired tokens
 * work again (they were not voided).
 */
export function setUserDisabled(handle: string, disabled: boolean, actor: Actor, reason?: string): Promise<UserView> {
  // The reason (the admin area asks for one) goes to the audit entry, where admins read it.
  return setFlag(handle, "disabled", disabled, actor, reason);
}

/** A muted account cannot post to the global chat (403 forbidden there). */
export function setUserMuted(handle: string, muted: boolean, actor: Actor): Promise<UserView> {
  return setFlag(handle, "muted", muted, actor);
}

/** Admin list in id order with a keyset cursor (the last id seen); `search` matches handle or name. */
export async function listUsers(
  options: { search?: string; cursor?: string; limit?: number } = {},
): Promise<UserPage> {
  const limit = Math.min(Math.max(Math.trunc(options.limit ?? 50), 1), 100);
  let after: number | undefined;
  if (options.cursor !== undefined) {
    if (!/^[0-9]{1,9}$/.test(options.cursor)) throw new AppError("invalid_request", "Malformed cursor.");
    after = Number(options.cursor);
  }
  const search = options.search?.trim();
  const rows = await db.user.findMany({
    where: {
      worldId: LIVE_WORLD_ID,
      ...(after !== undefined ? { id: { gt: after } } : {}),
      ...(search
        ? {
            OR: [
              { handle: { contains: search.toLowerCase().replace(/^@/, "") } },
              { displayName: { contains: search, mode: "insensitive" as const } },
            ],
          }
        : {}),
    },
    orderBy: { id: "asc" },
    take: limit + 1,
    select: userViewSelect,
  });
  const page = rows.slice(0, limit);
  return {
    users: page.map(toUserView),
    nextCursor: rows.length > limit ? String(page[page.length - 1]!.id) : null,
  };
}

/**
 * The platform's own account (owner of the portal client). Created on demand so a database without
 * demo data still has it; it has no password and is hidden from the directory.
 */
export async function ensureSystemUser(): Promise<UserView> {
  // Insert-if-absent, then read: instances starting at once agree on one row. Not `upsert`: with an
  // empty update Prisma does SELECT then INSERT, and the slower instance failed on the unique handle.
  await db.user.createMany({
    data: [
      {
        handle: SYSTEM_USER_HANDLE,
        displayName: "Platform",
        bio: "The platform's own account.",
        directoryVisible: false,
        passwordHash: null,
        ...avatarPaths(SYSTEM_USER_HANDLE),
      },
    ],
    skipDuplicates: true,
  });
  const row = await db.user.findUniqueOrThrow({
    where: { worldId_handle: { worldId: LIVE_WORLD_ID, handle: SYSTEM_USER_HANDLE } },
    select: userViewSelect,
  });
  return toUserView(row);
}
