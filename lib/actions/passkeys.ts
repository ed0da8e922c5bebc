"use server";

import type { PublicKeyCredentialCreationOptionsJSON } from "@simplewebauthn/server";
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { runGuardedAction } from "@/lib/actions/gate";
import type { ActionResult } from "@/lib/actions/result";
import { passkeyNameSchema, registrationResponseSchema } from "@/lib/schemas/passkeys";
import { accountProofSchema } from "@/lib/schemas/second-factors";
import { finishPasskeyRegistration, removePasskey, renamePasskey, startPasskeyRegistration } from "@/lib/services/passkeys";

/**
 * Account security's passkeys: the signed-in person's own. Each action checks the
 * session on the server and re-parses its input; the service touches only the actor's account.
 */
const idSchema = z.number().int().positive();
const finishSchema = z.object({ name: passkeyNameSchema, response: registrationResponseSchema });
const removeSchema = z.object({ id: idSchema, proof: accountProofSchema });

/** `proof`: the password or a current code (accountProofSchema); a stolen session alone adds no passkey. */
export async function startPasskeyRegistrationAction(proof: unknown): Promise<ActionResult<{ options: PublicKeyCredentialCreationOptionsJSON }>> {
  return runGuardedAction("account.passkey.start", "account", async (actor) => ({
    options: await startPasskeyRegistration(actor, accountProofSchema.parse(proof)),
  }));
}

export async function finishPasskeyRegistrationAction(input: unknown): Promise<ActionResult<{ id: number; name: string; recoveryCodes: string[] | null }>> {
  return runGuardedAction("account.passkey.finish", "account", async (actor) => {
    const passkey = await finishPasskeyRegistration(actor, finishSchema.parse(input));
    revalidatePath("/account/security");
    return { id: passkey.id, name: passkey.name, recoveryCodes: passkey.recoveryCodes };
  });
}

export async function renamePasskeyAction(input: unknown): Promise<ActionResult<{ renamed: true }>> {
  return runGuardedAction("account.passkey.rename", "account", async (actor) => {
    const { id, name } = z.object({ id: idSchema, name: passkeyNameSchema }).parse(input);
    await renamePasskey(actor, id, name);
    revalidatePath("/account/security");
    return { renamed: true as const };
  });
}

export async function removePasskeyAction(input: unknown): Promise<ActionResult<{ removed: true }>> {
  return runGuardedAction("account.passkey.remove", "account", async (actor) => {
    const { id, proof } = removeSchema.parse(input);
    await removePasskey(actor, id, proof);
    revalidatePath("/account/security");
    return { removed: true as const };
  });
}
