"use server";

import { revalidatePath } from "next/cache";
import { runGuardedAction } from "@/lib/actions/gate";
import type { ActionResult } from "@/lib/actions/result";
import { anyClientIdSchema } from "@/lib/schemas/apps";
import { handleSchema } from "@/lib/schemas/users";
import { revokeConnectedApp } from "@/lib/services/connected-apps";

/**
 * "Revoke access" on Connected apps: the person's own page, or an admin's view of someone's. The
 * service decides who may (the person or an admin; anyone else gets not_found) and audit-logs it.
 */
export async function revokeConnectedAppAction(
  handle: unknown,
  clientId: unknown,
): Promise<ActionResult<{ clientId: string; wasConnected: boolean }>> {
  return runGuardedAction("account.apps.revoke", { accountOf: handle }, async (actor) => {
    const target = handleSchema.parse(handle);
    // An AI agent is revoked like any app (its client ID is its metadata document's URL).
    const id = anyClientIdSchema.parse(clientId);
    const result = await revokeConnectedApp(target, id, actor);
    revalidatePath("/account/apps");
    revalidatePath(`/admin/users/${target}`);
    return { clientId: result.clientId, wasConnected: result.wasConnected };
  });
}
