"use server";

import QRCode from "qrcode";
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { runGuardedAction } from "@/lib/actions/gate";
import { accountProofSchema } from "@/lib/schemas/second-factors";
import type { ActionResult } from "@/lib/actions/result";
import {
  confirmTotpEnrolment,
  regenerateRecoveryCodes,
  removeTotp,
  startTotpEnrolment,
} from "@/lib/services/second-factors";

/**
 * Account security: the signed-in person's own second factors. Each action checks the
 * session on the server; the service only ever touches the actor's own account.
 */
const codeSchema = z.string().trim().min(1, "Enter the code.").max(40);

/** `proof`: the password or a current code (accountProofSchema); a stolen session alone adds no factor. */
export async function startTotpEnrolmentAction(proof: unknown): Promise<ActionResult<{ secret: string; uri: string; qrSvg: string }>> {
  return runGuardedAction("account.mfa.start", "account", async (actor) => {
    const enrolment = await startTotpEnrolment(actor, accountProofSchema.parse(proof));
    // qrcode writes the SVG from the otpauth URI only (no outside input in it): safe to inline.
    const qrSvg = await QRCode.toString(enrolment.uri, { type: "svg", margin: 1, errorCorrectionLevel: "M" });
    return { ...enrolment, qrSvg };
  });
}

export async function confirmTotpEnrolmentAction(code: unknown): Promise<ActionResult<{ recoveryCodes: string[] }>> {
  return runGuardedAction("account.mfa.confirm", "account", async (actor) => {
    const result = await confirmTotpEnrolment(actor, codeSchema.parse(code));
    revalidatePath("/account/security");
    return result;
  });
}

export async function regenerateRecoveryCodesAction(): Promise<ActionResult<{ recoveryCodes: string[] }>> {
  return runGuardedAction("account.mfa.recovery_codes", "account", async (actor) => {
    const result = await regenerateRecoveryCodes(actor);
    revalidatePath("/account/security");
    return result;
  });
}

export async function removeTotpAction(proof: unknown): Promise<ActionResult<{ removed: true }>> {
  return runGuardedAction("account.mfa.remove", "account", async (actor) => {
    await removeTotp(actor, accountProofSchema.parse(proof));
    revalidatePath("/account/security");
    return { removed: true as const };
  });
}
