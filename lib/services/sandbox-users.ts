import { randomBytes, randomInt } from "node:crypto";
import { hashPassword } from "../crypto/passwords";
import { transactionWithChanges } from "../database/changes";
import { db, Prisma, type Tx } from "../database/client";
import { AppError } from "../errors";
import {
  addSandboxTestUserSchema,
  SANDBOX_TEST_USER_LIMIT,
  type AddSandboxTestUserInput,
  type SandboxTestUser,
  type SandboxTestUserCredentials,
} from "../schemas/sandboxes";
import { handleSchema } from "../schemas/users";
import type { Actor } from "./actor";
import { recordAudit } from "./audit";
import { loadSandboxFor, lockSandbox, lockSandboxWithWorld, WORLD_BUILD_TIMEOUT_MS } from "./sandboxes";
import { avatarPaths, SYSTEM_USER_HANDLE } from "./users";

/**
 * A sandbox's test users. The team (those who may manage the app: owner, team
 * admins, platform admins, the operator) adds up to SANDBOX_TEST_USER_LIMIT of them; each is a User
 * row of the sandbox's world marked `isTestUser`, with a generated password shown once and stored
 * hashed as every password is (lib/crypto/passwords.ts). They sign in on the hosted login page
 * through the sandbox's client only: the sign-in looks credentials up in the client's world
 * (lib/queries/accounts.ts), and a live client's world has no test users.
 *
 * Why a column and not a table of its own: the sign-in's credential lookup reads the user row
 * anyway, so the mark costs no join on that hot path, and the cap is a count over the world's
 * leading index (a few dozen rows). A reset keeps them (lib/services/sandboxes.ts resetSandbox).
 */

/** 24 characters of base64url: 144 random bits. */
function generatePassword(): string {
  return randomBytes(18).toString("base64url");
}

const HANDLE_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

/** `test_` and six random characters: a handle the live rules accept (2–30 of a–z, 0–9, _). */
function generateHandle(): string {
  let suffix = "";
  for (let i = 0; i < 6; i++) suffix += HANDLE_ALPHABET[randomInt(HANDLE_ALPHABET.length)];
  return `test_${suffix}`;
}

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
}

async function isHandleTaken(tx: Tx, worldId: number, handle: string): Promise<boolean> {
  return (await tx.user.count({ where: { worldId, handle } })) > 0;
}

/** The sandbox's test users, oldest first. Anyone who may see the app. */
export async function listSandboxTestUsers(appClientId: string, actor: Actor): Promise<SandboxTestUser[]> {
  const { sandbox } = await loadSandboxFor(appClientId, actor, "view", "app.sandbox.users.list");
  return db.user.findMany({
    where: { worldId: sandbox.id, isTestUser: true },
    select: { handle: true, createdAt: true },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
}

/**
 * Adds a test user to the app's sandbox; its password is returned once. The handle follows the
 * live rules (handleSchema) and must be free in the sandbox's world, generated people included
 * (the world is built first, in the same transaction, so a later build cannot collide with it); without one, a `test_…`
 * handle is generated. 409 `conflict` for a taken handle and past the cap.
 */
export async function addSandboxTestUser(
  appClientId: string,
  actor: Actor,
  input: AddSandboxTestUserInput = {},
): Promise<SandboxTestUserCredentials> {
  const parsed = addSandboxTestUserSchema.safeParse(input);
  if (!parsed.success) {
    throw new AppError("invalid_request", "A handle is 2–30 characters of a–z, 0–9 and _.", {
      fields: { handle: "must be 2–30 characters of a–z, 0–9 and _" },
    });
  }
  const wanted = parsed.data.handle;
  if (wanted === SYSTEM_USER_HANDLE) {
    throw new AppError("conflict", `The handle "${wanted}" is reserved.`, { fields: { handle: "is reserved" } });
  }
  const { app, sandbox } = await loadSandboxFor(appClientId, actor, "manage", "app.sandbox.users.add");
  const password = generatePassword();
  // Hashed before the transaction: the sandbox's row lock is not held over a password hash.
  const passwordHash = await hashPassword(password);
  try {
    const handle = await db.$transaction(async (tx) => {
      // Serializes adds (the cap) with each other and with a reset or the world's first build; the
      // world is built first if it never was, so no later build can draw a test user's handle.
      await lockSandboxWithWorld(tx, sandbox.id);
      const count = await tx.user.count({ where: { worldId: sandbox.id, isTestUser: true } });
      if (count >= SANDBOX_TEST_USER_LIMIT) {
        throw new AppError(
          "conflict",
          `This sandbox already has ${SANDBOX_TEST_USER_LIMIT} test users, the most it can have. Remove one to add another.`,
        );
      }
      let handle = wanted;
      if (handle === undefined) {
        for (let attempt = 0; attempt < 5 && handle === undefined; attempt++) {
          const candidate = generateHandle();
          if (!(await isHandleTaken(tx, sandbox.id, candidate))) handle = candidate;
        }
        if (handle === undefined) throw new AppError("conflict", "Could not find a free handle. Try again, or choose one.");
      } else if (await isHandleTaken(tx, sandbox.id, handle)) {
        throw new AppError("conflict", `The handle "${handle}" is already taken in this sandbox.`, { fields: { handle: "is already taken" } });
      }
      await tx.user.create({
        data: { worldId: sandbox.id, handle, displayName: handle, passwordHash, isTestUser: true, ...avatarPaths(handle) },
      });
      await recordAudit({ actor, action: "app.sandbox.users.add", targetType: "app", targetId: app.clientId, detail: { handle } }, tx);
      return handle;
    }, { timeout: WORLD_BUILD_TIMEOUT_MS, maxWait: WORLD_BUILD_TIMEOUT_MS });
    return { handle, password };
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new AppError("conflict", `The handle "${wanted ?? ""}" is already taken in this sandbox.`, { fields: { handle: "is already taken" } });
    }
    throw error;
  }
}

/**
 * Removes a test user: its account goes with everything it had in the sandbox; its sign-ins and
 * tokens stop at once (the change channel drops it from every process's caches). 404
 * `user_not_found` when the sandbox has no test user by that handle.
 */
export async function removeSandboxTestUser(appClientId: string, actor: Actor, handle: string): Promise<void> {
  const parsed = handleSchema.safeParse(handle);
  const { app, sandbox } = await loadSandboxFor(appClientId, actor, "manage", "app.sandbox.users.remove");
  const notFound = new AppError("user_not_found", `This sandbox has no test user "${String(handle).slice(0, 40)}".`);
  if (!parsed.success) throw notFound;
  await transactionWithChanges(async (tx, announce) => {
    await lockSandbox(tx, sandbox.id);
    const user = await tx.user.findFirst({ where: { worldId: sandbox.id, handle: parsed.data, isTestUser: true }, select: { id: true } });
    if (!user) throw notFound;
    await tx.user.delete({ where: { id: user.id } });
    await recordAudit({ actor, action: "app.sandbox.users.remove", targetType: "app", targetId: app.clientId, detail: { handle: parsed.data } }, tx);
    await announce({ kind: "user", userId: user.id });
  });
}
