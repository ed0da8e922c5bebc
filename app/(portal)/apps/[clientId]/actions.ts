"use server";

import { revalidatePath } from "next/cache";
import { runAction, type ActionResult } from "@/lib/actions";
import { clearClientCache } from "@/lib/oidc/clients";
import { clientIdSchema, updateAppSchema, type RevealedSecret } from "@/lib/schemas/apps";
import { requireUserActor } from "@/lib/session";
import { deleteApp, regenerateSecret, updateApp } from "@/lib/services/apps";

/**
 * Owner actions on one app. Who may do what is decided by the services (owner or admin; only the
 * owner sees a secret), after the session is checked here.
 */

export async function updateAppAction(clientId: unknown, input: unknown): Promise<ActionResult<{ clientId: string }>> {
  return runAction("apps.update", async () => {
    const actor = await requireUserActor();
    const id = clientIdSchema.parse(clientId);
    const app = await updateApp(id, updateAppSchema.parse(input), actor);
    clearClientCache(id);
    revalidatePath(`/apps/${id}`);
    revalidatePath("/apps");
    return { clientId: app.clientId };
  });
}

/** Deleting revokes every grant and token of the app (lib/services/apps.ts deleteApp). */
export async function deleteAppAction(clientId: unknown): Promise<ActionResult<null>> {
  return runAction("apps.delete", async () => {
    const actor = await requireUserActor();
    const id = clientIdSchema.parse(clientId);
    await deleteApp(id, actor);
    clearClientCache(id);
    revalidatePath("/apps");
    return null;
  });
}

/** The new secret goes back to the owner's browser once, in this response only; it is never stored in clear. */
export async function regenerateSecretAction(clientId: unknown): Promise<ActionResult<RevealedSecret>> {
  return runAction("apps.secret.regenerate", async () => {
    const actor = await requireUserActor();
    const id = clientIdSchema.parse(clientId);
    const revealed = await regenerateSecret(id, actor);
    // The old secret must fail at once, not after the sign-in service's client cache expires.
    clearClientCache(id);
    revalidatePath(`/apps/${id}`);
    return revealed;
  });
}
