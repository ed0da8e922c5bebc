import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/server";
import { decodeClientDataJSON, isoBase64URL, isoUint8Array } from "@simplewebauthn/server/helpers";
import { db } from "../database/client";
import { env } from "../env";
import { AppError } from "../errors";
import { logger } from "../logger";
import type { AuthenticationResponseInput, RegistrationResponseInput } from "../schemas/passkeys";
import { recordAudit, type Actor } from "./audit";
import { checkAccountProof, issueFirstRecoveryCodes, notifySecurity, PASSKEY_KIND, removeRecoveryCodesIfNoFactor, selfOnly, type AccountProof } from "./second-factors";

/**
 * Passkeys (part 1): WebAuthn credentials with @simplewebauthn/server, kept as rows of
 * the second factors' list (SecondFactor.kind "passkey"), so a passkey meets REQUIRE_MFA and the
 * hosted sign-in's second step like an authenticator app.
 * - Discoverable credentials (residentKey required), so the hosted login page can sign a person in
 *   with the passkey alone, without a username; user verification is required then (the passkey
 *   and the PIN or biometric that unlocks it are two factors: amr `mfa`), and preferred when the
 *   passkey follows the password.
 * - The relying party is the configured public URL (APP_URL): its host is the RP ID, its origin the
 *   only origin accepted. The portal and the hosted pages are both served there.
 * - Each challenge is stored server-side (WebAuthnChallenge), one per purpose, and taken by the
 *   first answer that names it (single use), within CHALLENGE_TTL_SECONDS.
 * - The signature counter is kept; an assertion whose counter does not move forward (a cloned
 *   authenticator or a replay) is refused. Authenticators that keep no counter send 0 always.
 */
const RP_NAME = "Platform";
export const CHALLENGE_TTL_SECONDS = 120;
/** Enough for every device a person owns; bounds what one account can store. */
const MAX_PASSKEYS_PER_ACCOUNT = 20;
/** The credential's public key algorithms: ES256, EdDSA, RS256 (what authenticators make). */
const ALGORITHMS = [-7, -8, -257];

export interface PasskeyView {
  id: number;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  /** Synced by its provider (iCloud Keychain, Google Password Manager…) rather than bound to one device. */
  synced: boolean;
}

export function relyingParty(): { rpID: string; origin: string } {
  const url = new URL(env().APP_URL);
  return { rpID: url.hostname, origin: url.origin };
}

/** The WebAuthn user handle of an account: its id's digits (no personal data, stable). */
function userHandleOf(userId: number): Uint8Array<ArrayBuffer> {
  return isoUint8Array.fromUTF8String(String(userId)) as Uint8Array<ArrayBuffer>;
}

/** The `amr` value of a passkey (RFC 8176): a device-bound key is hardware-held, a synced one software-held. */
export function passkeyAmr(synced: boolean): "hwk" | "swk" {
  return synced ? "swk" : "hwk";
}

async function saveChallenge(key: string, challenge: string, userId: number | null): Promise<void> {
  const expiresAt = new Date(Date.now() + CHALLENGE_TTL_SECONDS * 1000);
  await db.webAuthnChallenge.deleteMany({ where: { expiresAt: { lt: new Date() } } });
  await db.webAuthnChallenge.upsert({ where: { key }, create: { key, challenge, userId, expiresAt }, update: { challenge, userId, expiresAt } });
}

/** The challenge the browser signed, read from its client data (null when unreadable). */
function signedChallenge(clientDataJSON: string): string | null {
  try {
    const { challenge } = decodeClientDataJSON(clientDataJSON);
    return typeof challenge === "string" && challenge.length > 0 ? challenge : null;
  } catch {
    return null;
  }
}

/**
 * Takes the challenge stored under `key` if the answer signed it and it has not expired: deleted
 * in the same statement, so of two answers with the same challenge only one gets it.
 */
async function takeChallenge(key: string, challenge: string): Promise<{ userId: number | null } | null> {
  const rows = await db.$queryRaw<{ userId: number | null }[]>`
    DELETE FROM "WebAuthnChallenge" WHERE key = ${key} AND challenge = ${challenge} AND "expiresAt" > now() RETURNING "userId"`;
  return rows[0] ?? null;
}

export async function listPasskeys(userId: number): Promise<PasskeyView[]> {
  const rows = await db.secondFactor.findMany({
    where: { userId, kind: PASSKEY_KIND, confirmedAt: { not: null } },
    select: { id: true, name: true, createdAt: true, lastUsedAt: true, backedUp: true },
    orderBy: { id: "asc" },
  });
  return rows.map((row) => ({ id: row.id, name: row.name ?? "Passkey", createdAt: row.createdAt, lastUsedAt: row.lastUsedAt, synced: Boolean(row.backedUp) }));
}

/** Options for navigator.credentials.create() (Account security's "Add a passkey"). */
export async function startPasskeyRegistration(actor: Actor, proof: AccountProof): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const user = selfOnly(actor);
  const existing = await db.secondFactor.findMany({ where: { userId: user.id, kind: PASSKEY_KIND }, select: { credentialId: true, transports: true } });
  if (existing.length >= MAX_PASSKEYS_PER_ACCOUNT) {
    throw new AppError("conflict", `An account can have ${MAX_PASSKEYS_PER_ACCOUNT} passkeys. Remove one to add another.`);
  }
  // Proof first, as for the authenticator app: the challenge that finishing needs exists only after it.
  await checkAccountProof(user, proof);
  const options = await generateRegistrationOptions({
    rpName: RP_NAME,
    rpID: relyingParty().rpID,
    userName: user.handle,
    userDisplayName: `@${user.handle}`,
    userID: userHandleOf(user.id),
    timeout: CHALLENGE_TTL_SECONDS * 1000,
    attestationType: "none",
    // The same authenticator twice would be one factor counted twice.
    excludeCredentials: existing.flatMap((row) => (row.credentialId ? [{ id: row.credentialId, transports: row.transports }] : [])),
    authenticatorSelection: { residentKey: "required", requireResidentKey: true, userVerification: "required" },
    supportedAlgorithmIDs: ALGORITHMS,
  });
  await saveChallenge(`register:${user.id}`, options.challenge, user.id);
  return options;
}

/**
 * Verifies the browser's answer to startPasskeyRegistration and stores the passkey. The account's
 * first second factor brings recovery codes (returned once, as for the authenticator app).
 */
export async function finishPasskeyRegistration(
  actor: Actor,
  input: { name: string; response: RegistrationResponseInput },
): Promise<PasskeyView & { recoveryCodes: string[] | null }> {
  const user = selfOnly(actor);
  const challenge = signedChallenge(input.response.response.clientDataJSON);
  const taken = challenge ? await takeChallenge(`register:${user.id}`, challenge) : null;
  if (!challenge || !taken) throw new AppError("conflict", "This request to add a passkey expired or was already used. Start again.");
  const { rpID, origin } = relyingParty();
  let verification: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verification = await verifyRegistrationResponse({
      response: input.response,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: true,
      supportedAlgorithmIDs: ALGORITHMS,
    });
  } catch (error) {
    throw new AppError("invalid_request", "The passkey could not be verified. Try again.", { cause: error });
  }
  if (!verification.verified) throw new AppError("invalid_request", "The passkey could not be verified. Try again.");
  const { credential, credentialBackedUp } = verification.registrationInfo;
  try {
    return await db.$transaction(async (tx) => {
      const row = await tx.secondFactor.create({
        data: {
          userId: user.id,
          kind: PASSKEY_KIND,
          name: input.name,
          credentialId: credential.id,
          publicKey: Buffer.from(credential.publicKey),
          signCount: BigInt(credential.counter),
          transports: input.response.response.transports ?? [],
          backedUp: credentialBackedUp,
          confirmedAt: new Date(),
        },
      });
      await recordAudit(
        { actor, action: "user.mfa.enrol", targetType: "user", targetId: user.handle, detail: { kind: PASSKEY_KIND, passkey_id: row.id, name: input.name } },
        tx,
      );
      const recoveryCodes = await issueFirstRecoveryCodes(user.id, tx);
      await notifySecurity(user.id, `A passkey ("${input.name}") was added to your account.`, tx);
      return { id: row.id, name: input.name, createdAt: row.createdAt, lastUsedAt: null, synced: credentialBackedUp, recoveryCodes };
    });
  } catch (error) {
    if ((error as { code?: string }).code === "P2002") throw new AppError("conflict", "This passkey is already registered.");
    throw error;
  }
}

async function ownPasskey(userId: number, id: number): Promise<{ id: number; name: string | null }> {
  const row = await db.secondFactor.findFirst({ where: { id, userId, kind: PASSKEY_KIND }, select: { id: true, name: true } });
  if (!row) throw new AppError("not_found", "No such passkey on your account.");
  return row;
}

export async function renamePasskey(actor: Actor, id: number, name: string): Promise<void> {
  const user = selfOnly(actor);
  const row = await ownPasskey(user.id, id);
  await db.$transaction(async (tx) => {
    await tx.secondFactor.update({ where: { id: row.id }, data: { name } });
    await recordAudit({ actor, action: "user.mfa.rename", targetType: "user", targetId: user.handle, detail: { kind: PASSKEY_KIND, passkey_id: row.id, name } }, tx);
  });
}

/** Removes a passkey after a current proof (a code or the password), as removing the authenticator app does. */
export async function removePasskey(actor: Actor, id: number, proof: AccountProof): Promise<void> {
  const user = selfOnly(actor);
  const row = await ownPasskey(user.id, id);
  await checkAccountProof(user, proof);
  await db.$transaction(async (tx) => {
    await tx.secondFactor.deleteMany({ where: { id: row.id, userId: user.id } });
    await removeRecoveryCodesIfNoFactor(user.id, tx);
    await recordAudit({ actor, action: "user.mfa.remove", targetType: "user", targetId: user.handle, detail: { kind: PASSKEY_KIND, passkey_id: row.id } }, tx);
    await notifySecurity(user.id, `The passkey "${row.name ?? "Passkey"}" was removed from your account.`, tx);
  });
}

/**
 * Options for navigator.credentials.get() at the hosted sign-in: `userId` null for the passkey as
 * the only step (any discoverable passkey of this site, user verification required), or the
 * account whose password was right (its passkeys only, user verification preferred).
 */
export async function startPasskeySignIn(interactionUid: string, userId: number | null): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const allow = userId === null ? [] : await db.secondFactor.findMany({ where: { userId, kind: PASSKEY_KIND, confirmedAt: { not: null } }, select: { credentialId: true, transports: true } });
  const options = await generateAuthenticationOptions({
    rpID: relyingParty().rpID,
    timeout: CHALLENGE_TTL_SECONDS * 1000,
    userVerification: userId === null ? "required" : "preferred",
    allowCredentials: allow.flatMap((row) => (row.credentialId ? [{ id: row.credentialId, transports: row.transports as never[] }] : [])),
  });
  await saveChallenge(`sign-in:${interactionUid}`, options.challenge, userId);
  return options;
}

/** The account a credential belongs to (for the sign-in throttle, before the signature is checked). */
export async function findPasskeyAccount(credentialId: string): Promise<number | null> {
  const row = await db.secondFactor.findUnique({ where: { credentialId }, select: { userId: true, kind: true, confirmedAt: true } });
  return row && row.kind === PASSKEY_KIND && row.confirmedAt ? row.userId : null;
}

export type PasskeySignIn =
  | { ok: true; userId: number; amr: "hwk" | "swk"; userVerified: boolean }
  | { ok: false; reason: "challenge" | "unknown_credential" | "wrong_account" | "invalid" };

/**
 * Checks a hosted sign-in's passkey answer: its challenge (this interaction's, taken once), the
 * credential (known; the expected account's when the challenge was made for one), the signature,
 * the user verification a passkey-only sign-in needs, and a counter that moves forward.
 */
export async function verifyPasskeySignIn(interactionUid: string, response: AuthenticationResponseInput): Promise<PasskeySignIn> {
  const challenge = signedChallenge(response.response.clientDataJSON);
  const taken = challenge ? await takeChallenge(`sign-in:${interactionUid}`, challenge) : null;
  if (!challenge || !taken) return { ok: false, reason: "challenge" };
  const row = await db.secondFactor.findUnique({ where: { credentialId: response.id } });
  if (!row || row.kind !== PASSKEY_KIND || !row.confirmedAt || !row.publicKey || row.signCount === null) return { ok: false, reason: "unknown_credential" };
  if (taken.userId !== null && row.userId !== taken.userId) return { ok: false, reason: "wrong_account" };
  // A discoverable credential names its account; it must be the one the credential was registered to.
  const userHandle = response.response.userHandle;
  if (userHandle && userHandle !== isoBase64URL.fromBuffer(userHandleOf(row.userId))) return { ok: false, reason: "wrong_account" };
  const usernameless = taken.userId === null;
  const { rpID, origin } = relyingParty();
  try {
    const { verified, authenticationInfo } = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      credential: { id: row.credentialId!, publicKey: new Uint8Array(row.publicKey), counter: Number(row.signCount), transports: row.transports as never[] },
      requireUserVerification: usernameless,
    });
    if (!verified) return { ok: false, reason: "invalid" };
    // The counter moves forward once: of two answers racing with the same count, one wins.
    const moved = await db.secondFactor.updateMany({
      where: { id: row.id, signCount: row.signCount },
      data: { signCount: BigInt(authenticationInfo.newCounter), lastUsedAt: new Date(), backedUp: authenticationInfo.credentialBackedUp },
    });
    if (moved.count !== 1) return { ok: false, reason: "invalid" };
    return { ok: true, userId: row.userId, amr: passkeyAmr(authenticationInfo.credentialBackedUp), userVerified: authenticationInfo.userVerified };
  } catch (error) {
    // A bad signature, a counter that went back, a foreign origin: refused, the detail logged.
    logger.info("passkey assertion refused", { reason: (error as Error).message });
    return { ok: false, reason: "invalid" };
  }
}
