import { createHash, randomBytes } from "node:crypto";
import { generateSecret, generateURI, verify } from "otplib";
import { db, type Tx } from "../database/client";
import { AppError } from "../errors";
import { openSecret, sealSecret } from "../events/secret-box";
import { recordAudit, type Actor } from "./audit";
import { clientThrottleKey, reserveLoginAttempt, reserveSecondFactorAttempt, settleLoginAttempt } from "./throttle";
import { runPasswordCheck } from "./password-checks";
import { findSignInChallengeUser } from "../queries/sign-in-challenges";
import { endSignInSessionsIn } from "./sign-in-sessions";
import { getUserByHandle, verifyUserCredentials } from "./users";

/**
 * Second factors: TOTP (RFC 6238, otplib) with ten single-use recovery codes. Factors
 * are rows of one list (SecondFactor.kind; passkeys too, lib/services/passkeys.ts); the hosted sign-in asks for
 * whichever the account has (lib/oidc/interactions.ts). TOTP secrets are sealed with the secret box
 * (AES-256-GCM, lib/events/secret-box.ts); recovery codes are kept as SHA-256 digests only (they
 * are random, 50 bits each: no slow hash needed, as for the apps' client secrets).
 */
export const TOTP_KIND = "totp";
/** Passkeys (WebAuthn credentials): lib/services/passkeys.ts. */
export const PASSKEY_KIND = "passkey";
export const RECOVERY_CODE_COUNT = 10;
/** The name authenticator apps show above the account. */
export const TOTP_ISSUER = "Social Dev Platform";
/** A code of the step before or after the current one is accepted (clock drift of the phone). */
const TOTP_TOLERANCE_SECONDS = 30;
const RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";

export interface SecondFactorStatus {
  passkeys: number;
  totp: boolean;
  totpEnrolledAt: Date | null;
  recoveryCodesLeft: number;
}

/** The account's confirmed passkeys (`tx`: inside a transaction that is changing its factors). */
export function countPasskeys(userId: number, tx: Pick<Tx, "secondFactor"> = db): Promise<number> {
  return tx.secondFactor.count({ where: { userId, kind: PASSKEY_KIND, confirmedAt: { not: null } } });
}

export async function getSecondFactorStatus(userId: number): Promise<SecondFactorStatus> {
  const [totp, passkeys, recoveryCodesLeft] = await Promise.all([
    db.secondFactor.findFirst({ where: { userId, kind: TOTP_KIND, confirmedAt: { not: null } }, select: { confirmedAt: true } }),
    countPasskeys(userId),
    db.recoveryCode.count({ where: { userId, usedAt: null } }),
  ]);
  return { passkeys, totp: Boolean(totp), totpEnrolledAt: totp?.confirmedAt ?? null, recoveryCodesLeft };
}

/** Which kinds of confirmed second factor the account has (the hosted second step offers those). */
export async function secondFactorKinds(userId: number): Promise<{ passkey: boolean; totp: boolean }> {
  const rows = await db.secondFactor.groupBy({ by: ["kind"], where: { userId, confirmedAt: { not: null } } });
  const kinds = new Set(rows.map((row) => row.kind));
  return { passkey: kinds.has(PASSKEY_KIND), totp: kinds.has(TOTP_KIND) };
}

/**
 * Whether the account has a confirmed second factor (the sign-in asks for it, REQUIRE_MFA is met);
 * `tx`: inside a transaction that is changing its factors.
 */
export async function hasSecondFactor(userId: number, tx: Pick<Tx, "secondFactor"> = db): Promise<boolean> {
  return (await tx.secondFactor.count({ where: { userId, confirmedAt: { not: null } } })) > 0;
}

export function selfOnly(actor: Actor): Extract<Actor, { kind: "user" }> {
  if (actor.kind !== "user") throw new AppError("forbidden", "Only the account's owner can change its second factors.");
  return actor;
}

export interface TotpEnrolment {
  /** Base32, for typing into the app by hand. */
  secret: string;
  /** otpauth:// URI, for the QR code. */
  uri: string;
}

/**
 * Starts (or restarts) a TOTP enrolment: a new secret, stored sealed and unconfirmed until a code
 * from it is entered. A confirmed TOTP factor must be removed first (one per account). The person
 * proves who they are first (checkAccountProof): a stolen portal session alone must not be able to
 * put its own authenticator on the account.
 */
export async function startTotpEnrolment(actor: Actor, proof: AccountProof): Promise<TotpEnrolment> {
  const user = selfOnly(actor);
  if ((await getSecondFactorStatus(user.id)).totp) {
    throw new AppError("conflict", "An authenticator app is already set up. Remove it first to set up another.");
  }
  await checkAccountProof(user, proof);
  const secret = generateSecret();
  const secretBox = await sealSecret(secret);
  await db.$transaction(async (tx) => {
    await tx.secondFactor.deleteMany({ where: { userId: user.id, kind: TOTP_KIND, confirmedAt: null } });
    await tx.secondFactor.create({ data: { userId: user.id, kind: TOTP_KIND, secretBox } });
  });
  return { secret, uri: generateURI({ issuer: TOTP_ISSUER, label: user.handle, secret }) };
}

/** The current code check: the time step it matched, or null. `afterTimeStep` refuses a replay. */
async function matchTotp(secretBox: string, code: string, afterTimeStep: number | null): Promise<number | null> {
  if (!/^[0-9]{6}$/.test(code)) return null;
  const secret = await openSecret(secretBox);
  const result = await verify({
    secret,
    token: code,
    epochTolerance: TOTP_TOLERANCE_SECONDS,
    ...(afterTimeStep !== null ? { afterTimeStep } : {}),
  });
  return result.valid && "timeStep" in result ? result.timeStep : null;
}

/** A recovery code as shown: `xxxxx-xxxxx`. Typed with or without the dash, in any case. */
function newRecoveryCode(): string {
  const bytes = randomBytes(10);
  const chars = [...bytes].map((b) => RECOVERY_ALPHABET[b % RECOVERY_ALPHABET.length]).join("");
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

function recoveryDigest(code: string): string {
  const normalized = code.trim().toLowerCase().replace(/[\s-]/g, "");
  return createHash("sha256").update(`recovery:${normalized}`).digest("hex");
}

/** Serializes changes to one account's recovery codes (two at once would leave both sets, 20 codes). */
async function lockRecoveryCodes(userId: number, tx: Tx): Promise<void> {
  await tx.$queryRaw`SELECT 1 FROM "User" WHERE id = ${userId} FOR NO KEY UPDATE`;
}

/** New codes in place of the account's old ones; the caller holds lockRecoveryCodes. */
async function writeRecoveryCodes(userId: number, tx: Tx): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await tx.recoveryCode.deleteMany({ where: { userId } });
  await tx.recoveryCode.createMany({ data: codes.map((code) => ({ userId, codeHash: recoveryDigest(code) })) });
  return codes;
}

async function replaceRecoveryCodes(userId: number, tx: Tx): Promise<string[]> {
  await lockRecoveryCodes(userId, tx);
  return writeRecoveryCodes(userId, tx);
}

/**
 * Recovery codes come with the account's first second factor, whichever it is (a passkey too: it
 * can be lost like a phone), and stay while any factor does. Returns the new codes, or null when the
 * account already has codes (used or not: "Make new recovery codes" replaces them).
 */
export async function issueFirstRecoveryCodes(userId: number, tx: Tx): Promise<string[] | null> {
  await lockRecoveryCodes(userId, tx);
  if ((await tx.recoveryCode.count({ where: { userId } })) > 0) return null;
  return writeRecoveryCodes(userId, tx);
}

/** The recovery codes go with the account's last second factor (`tx`: the one removing it). */
export async function removeRecoveryCodesIfNoFactor(userId: number, tx: Tx): Promise<void> {
  if (await hasSecondFactor(userId, tx)) return;
  await tx.recoveryCode.deleteMany({ where: { userId } });
}

export async function notifySecurity(userId: number, message: string, tx: Tx): Promise<void> {
  await tx.notification.create({ data: { userId, type: "security", message } });
}

/**
 * Confirms the enrolment with a code from the app: the factor is on, and ten recovery codes are
 * made (returned once, never readable again).
 */
export async function confirmTotpEnrolment(actor: Actor, code: string): Promise<{ recoveryCodes: string[] }> {
  const user = selfOnly(actor);
  const pending = await db.secondFactor.findFirst({ where: { userId: user.id, kind: TOTP_KIND, confirmedAt: null }, orderBy: { id: "desc" } });
  if (!pending?.secretBox) throw new AppError("conflict", "Start the set-up again: no authenticator app is waiting for a code.");
  const timeStep = await matchTotp(pending.secretBox, code.trim(), null);
  if (timeStep === null) throw new AppError("invalid_request", "That code is not right. Enter the 6-digit code the app shows now.", { fields: { code: "That code is not right." } });
  return db.$transaction(async (tx) => {
    const confirmed = await tx.secondFactor.updateMany({
      where: { id: pending.id, confirmedAt: null },
      data: { confirmedAt: new Date(), lastTimeStep: timeStep },
    });
    if (confirmed.count !== 1) throw new AppError("conflict", "This set-up was finished or restarted elsewhere.");
    const recoveryCodes = await replaceRecoveryCodes(user.id, tx);
    await recordAudit({ actor, action: "user.mfa.enrol", targetType: "user", targetId: user.handle, detail: { kind: TOTP_KIND } }, tx);
    await notifySecurity(user.id, "An authenticator app was set up as the second factor of your account.", tx);
    return { recoveryCodes };
  });
}

/** New recovery codes; the old ones stop working. */
export async function regenerateRecoveryCodes(actor: Actor): Promise<{ recoveryCodes: string[] }> {
  const user = selfOnly(actor);
  if (!(await hasSecondFactor(user.id))) throw new AppError("conflict", "Set up a second factor first.");
  return db.$transaction(async (tx) => {
    const recoveryCodes = await replaceRecoveryCodes(user.id, tx);
    await recordAudit({ actor, action: "user.mfa.recovery_codes", targetType: "user", targetId: user.handle }, tx);
    await notifySecurity(user.id, "New recovery codes were made for your account; the old ones no longer work.", tx);
    return { recoveryCodes };
  });
}

export type SecondFactorMethod = "otp" | "recovery_code";

/**
 * Checks a second-factor code of `userId`: a 6-digit TOTP code (each accepted once: a later code
 * only), or an unused recovery code (used up by this). Null when it is neither.
 */
export async function verifySecondFactorCode(userId: number, code: string): Promise<SecondFactorMethod | null> {
  const typed = code.trim().replace(/\s/g, "");
  if (/^[0-9]{6}$/.test(typed)) {
    const factor = await db.secondFactor.findFirst({ where: { userId, kind: TOTP_KIND, confirmedAt: { not: null } } });
    if (!factor?.secretBox) return null;
    const timeStep = await matchTotp(factor.secretBox, typed, factor.lastTimeStep);
    if (timeStep === null) return null;
    // Of two sign-ins with the same code at once, one wins (RFC 6238 §5.2: one use per code).
    const won = await db.secondFactor.updateMany({
      where: { id: factor.id, OR: [{ lastTimeStep: null }, { lastTimeStep: { lt: timeStep } }] },
      data: { lastTimeStep: timeStep, lastUsedAt: new Date() },
    });
    return won.count === 1 ? "otp" : null;
  }
  if (typed.length < 10 || typed.length > 20) return null;
  const used = await db.recoveryCode.updateMany({
    where: { userId, codeHash: recoveryDigest(typed), usedAt: null },
    data: { usedAt: new Date() },
  });
  return used.count === 1 ? "recovery_code" : null;
}

/**
 * Removes the TOTP factor after proof: a current code (or a recovery code) or the account's password;
 * the recovery codes too unless a passkey is left. Wrong proofs count in the sign-in throttle of the
 * account and address.
 */
export async function removeTotp(actor: Actor, proof: AccountProof): Promise<void> {
  const user = selfOnly(actor);
  if (!(await hasSecondFactor(user.id))) throw new AppError("conflict", "No second factor is set up.");
  await checkAccountProof(user, proof);
  await db.$transaction(async (tx) => {
    await tx.secondFactor.deleteMany({ where: { userId: user.id, kind: TOTP_KIND } });
    await removeRecoveryCodesIfNoFactor(user.id, tx);
    await recordAudit({ actor, action: "user.mfa.remove", targetType: "user", targetId: user.handle, detail: { kind: TOTP_KIND } }, tx);
    // A passkey left is still a second factor: the person is told what signing in asks for now.
    const passkeysLeft = await countPasskeys(user.id, tx);
    await notifySecurity(
      user.id,
      passkeysLeft > 0
        ? "The authenticator app was removed from your account: after your password, signing in asks for one of your passkeys."
        : "The authenticator app was removed from your account: signing in needs only your password now.",
      tx,
    );
  });
}

export type AccountProof = { code?: string; password?: string };

/**
 * The proof adding or removing a factor asks for (TOTP, passkeys): a current code (or a recovery
 * code) or the account's password. Wrong proofs count in the sign-in throttle of the account and
 * address, and wrong codes also on the account's second-factor limit (lib/services/throttle.ts);
 * a wrong one throws `invalid_request` naming the field.
 */
export async function checkAccountProof(user: Extract<Actor, { kind: "user" }>, proof: AccountProof): Promise<void> {
  const ip = user.ip ?? "0.0.0.0";
  const tooMany = () => new AppError("rate_limited", "Too many wrong attempts. Wait a few minutes, then try again.");
  const admission = await reserveLoginAttempt(user.handle, ip);
  if (!admission.ok) throw tooMany();
  let right = false;
  if (proof.code) {
    const factorAdmission = await reserveSecondFactorAttempt(user.handle);
    if (!factorAdmission.ok) {
      await settleLoginAttempt(admission.reservation, "unchecked");
      throw tooMany();
    }
    right = (await verifySecondFactorCode(user.id, proof.code)) !== null;
    await factorAdmission.settle(right ? "success" : "failure");
  } else if (proof.password) {
    const gate = async <T>(check: () => Promise<T>): Promise<T> => {
      const outcome = await runPasswordCheck(clientThrottleKey(ip), admission.reservation.counters.ip.count, check);
      if (!outcome.ok) throw new AppError("service_unavailable", "Too many people are signing in right now. Try again in a moment.");
      return outcome.value;
    };
    right = (await verifyUserCredentials(user.handle, proof.password, gate)).ok;
  }
  await settleLoginAttempt(admission.reservation, right ? "success" : "failure");
  if (!right) {
    const field = proof.code ? "code" : "password";
    throw new AppError("invalid_request", proof.code ? "That code is not right." : "That password is not right.", { fields: { [field]: "Not right." } });
  }
}

/**
 * Operators (CLI `users mfa reset`): a person who lost their factor. Every factor and recovery code
 * is removed, audited with the reason, and the person is told.
 */
export async function resetSecondFactors(
  handle: string,
  reason: string,
  actor: Actor,
): Promise<{ userId: number; removed: number; recoveryCodesRemoved: number; sessionsEnded: number }> {
  const user = await getUserByHandle(handle);
  return db.$transaction(async (tx) => {
    const removed = await tx.secondFactor.deleteMany({ where: { userId: user.id } });
    const codes = await tx.recoveryCode.deleteMany({ where: { userId: user.id } });
    await tx.signInChallenge.deleteMany({ where: { userId: user.id } });
    await tx.webAuthnChallenge.deleteMany({ where: { userId: user.id } });
    // The person's sign-in sessions end, at the sign-in service and in the portal (every process
    // hears it): the next sign-in starts from the password.
    const sessionsEnded = await endSignInSessionsIn(tx, user.id, null);
    await recordAudit(
      { actor, action: "user.mfa.reset", targetType: "user", targetId: user.handle, detail: { reason, removed: removed.count, sessions_ended: sessionsEnded } },
      tx,
    );
    await notifySecurity(user.id, "An operator removed the second factors of your account and signed you out everywhere. Set a second factor up again on Account security.", tx);
    return { userId: user.id, removed: removed.count, recoveryCodesRemoved: codes.count, sessionsEnded };
  });
}

/** A sign-in whose password was right waits for the second factor (lib/oidc/interactions.ts). */
export async function createSignInChallenge(interactionUid: string, userId: number, ttlSeconds: number): Promise<void> {
  const expiresAt = new Date(Date.now() + ttlSeconds * 1000);
  await db.signInChallenge.deleteMany({ where: { expiresAt: { lt: new Date() } } });
  await db.signInChallenge.upsert({
    where: { interactionUid },
    create: { interactionUid, userId, expiresAt },
    update: { userId, expiresAt },
  });
}

export async function findSignInChallenge(interactionUid: string): Promise<{ userId: number } | null> {
  const userId = await findSignInChallengeUser(interactionUid);
  return userId === null ? null : { userId };
}

export async function deleteSignInChallenge(interactionUid: string): Promise<void> {
  await db.signInChallenge.deleteMany({ where: { interactionUid } });
}
