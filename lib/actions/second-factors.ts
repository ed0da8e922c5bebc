"use server";

import QRCode from "qrcode";
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { runAction, type ActionResult } from "@/lib/actions/result";
import { requireUserActor } from "@/lib/portal/session";
import {
  confirmTotpEnrolment,
  regenerateRecoveryCodes,
  removeTotp,
  startTotpEnrolment,
} from "@/lib/services/second-factors";

/**
 * Account security (issue 29): the signed-in person's own second factors. Each action checks the
 * session on the server; the service only ever touches the actor's own account.
 */
const codeSchema = z.string().trim().min(1, "Enter the code.").max(40);
const removeSchema = z.union([
  z.object({ code: codeSchema, password: z.undefined().optional() }),
  z.object({ password: z.string().min(1, "Enter your password.").max(1024), code: z.undefined().optional() }),
]);

export async function startTotpEnrolmentAction(): Promise<ActionResult<{ secret: string; uri: string; qrSvg: string }>> {
  return runAction("account.mfa.start", async () => {
    const actor = await requireUserActor();
    const enrolment = await startTotpEnrolment(actor);
    // qrcode writes the SVG from the otpauth URI only (no outside input in it): safe to inline.
    const qrSvg = await QRCode.toString(enrolment.uri, { type: "svg", margin: 1, errorCorrectionLevel: "M" });
    return { ...enrolment, qrSvg };
  });
}

export async function confirmTotpEnrolmentAction(code: unknown): Promise<ActionResult<{ recoveryCodes: string[] }>> {
  return runAction("account.mfa.confirm", async () => {
    const actor = await requireUserActor();
    const result = await confirmTotpEnrolment(actor, codeSchema.parse(code));
    revalidatePath("/account/security");
    return result;
  });
}

export async function regenerateRecoveryCodesAction(): Promise<ActionResult<{ recoveryCodes: string[] }>> {
  return runAction("account.mfa.recovery_codes", async () => {
    const actor = await requireUserActor();
    const result = await regenerateRecoveryCodes(actor);
    revalidatePath("/account/security");
    return result;
  });
}

export async function removeTotpAction(proof: unknown): Promise<ActionResult<{ removed: true }>> {
  return runAction("account.mfa.remove", async () => {
    const actor = await requireUserActor();
    await removeTotp(actor, removeSchema.parse(proof));
    revalidatePath("/account/security");
    return { removed: true as const };
  });
}
