"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { runGuardedAction } from "@/lib/actions/gate";
import type { ActionResult } from "@/lib/actions/result";
import { clientIdSchema, memberRoleSchema } from "@/lib/schemas/apps";
import { handleSchema } from "@/lib/schemas/users";
import {
  answerTransfer,
  cancelTransfer,
  removeMember,
  requestTransfer,
  setMember,
  type TransferOutcome,
} from "@/lib/services/app-members";

/**
 * The team card of the app page. Who may do what is decided by the services (the owner
 * and platform admins manage the team; a member may leave), after the session is checked here.
 */
const memberInputSchema = z.object({ handle: handleSchema, role: memberRoleSchema });

function refresh(clientId: string): void {
  revalidatePath(`/apps/${clientId}`);
  revalidatePath("/apps");
}

export async function setMemberAction(
  clientId: unknown,
  input: unknown,
): Promise<ActionResult<{ handle: string; role: string; added: boolean }>> {
  return runGuardedAction("apps.members.set", "app", async (actor) => {
    const id = clientIdSchema.parse(clientId);
    const { handle, role } = memberInputSchema.parse(input);
    const { member, added } = await setMember(id, handle, role, actor);
    refresh(id);
    return { handle: member.handle, role: member.role, added };
  });
}

/** `rollSecrets`: the person removed could handle the app's secrets; the panel offers rolling them. */
export async function removeMemberAction(
  clientId: unknown,
  handle: unknown,
): Promise<ActionResult<{ removed: boolean; rollSecrets: boolean }>> {
  return runGuardedAction("apps.members.remove", "app", async (actor) => {
    const id = clientIdSchema.parse(clientId);
    const result = await removeMember(id, handleSchema.parse(handle), actor);
    refresh(id);
    return result;
  });
}

/** Offers the app to someone: nothing changes until they accept it in their apps list. */
export async function transferAppAction(clientId: unknown, handle: unknown): Promise<ActionResult<{ to: string }>> {
  return runGuardedAction("apps.transfer", "app", async (actor) => {
    const id = clientIdSchema.parse(clientId);
    const { app } = await requestTransfer(id, handleSchema.parse(handle), actor);
    refresh(id);
    return { to: app.transferTo?.handle ?? "" };
  });
}

/** The person offered the app accepts or declines; an approved app's new owner then waits for review. */
export async function answerTransferAction(
  clientId: unknown,
  accept: unknown,
): Promise<ActionResult<{ outcome: TransferOutcome }>> {
  return runGuardedAction("apps.transfer.answer", "app", async (actor) => {
    const id = clientIdSchema.parse(clientId);
    const { outcome } = await answerTransfer(id, z.boolean().parse(accept), actor);
    refresh(id);
    return { outcome };
  });
}

/** The owner's side withdraws an offer not yet answered. */
export async function cancelTransferAction(clientId: unknown): Promise<ActionResult<null>> {
  return runGuardedAction("apps.transfer.cancel", "app", async (actor) => {
    const id = clientIdSchema.parse(clientId);
    await cancelTransfer(id, actor);
    refresh(id);
    return null;
  });
}
