"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { runAction, type ActionResult } from "@/lib/actions/result";
import { clientIdSchema, memberRoleSchema } from "@/lib/schemas/apps";
import { handleSchema } from "@/lib/schemas/users";
import { requireUserActor } from "@/lib/portal/session";
import { removeMember, setMember, transferOwnership } from "@/lib/services/app-members";

/**
 * The team card of the app page (issue 15). Who may do what is decided by the services (the owner
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
  return runAction("apps.members.set", async () => {
    const actor = await requireUserActor();
    const id = clientIdSchema.parse(clientId);
    const { handle, role } = memberInputSchema.parse(input);
    const { member, added } = await setMember(id, handle, role, actor);
    refresh(id);
    return { handle: member.handle, role: member.role, added };
  });
}

export async function removeMemberAction(clientId: unknown, handle: unknown): Promise<ActionResult<{ removed: boolean }>> {
  return runAction("apps.members.remove", async () => {
    const actor = await requireUserActor();
    const id = clientIdSchema.parse(clientId);
    const result = await removeMember(id, handleSchema.parse(handle), actor);
    refresh(id);
    return result;
  });
}

export async function transferAppAction(clientId: unknown, handle: unknown): Promise<ActionResult<{ owner: string }>> {
  return runAction("apps.transfer", async () => {
    const actor = await requireUserActor();
    const id = clientIdSchema.parse(clientId);
    const app = await transferOwnership(id, handleSchema.parse(handle), actor);
    refresh(id);
    return { owner: app.owner.handle };
  });
}
