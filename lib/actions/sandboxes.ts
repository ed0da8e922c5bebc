"use server";

import { revalidatePath } from "next/cache";
import { runAction, type ActionResult } from "@/lib/actions/result";
import { clientIdSchema } from "@/lib/schemas/apps";
import type { SandboxSecret } from "@/lib/schemas/sandboxes";
import { requireUserActor } from "@/lib/portal/session";
import { resetSandbox, rollSandboxSecret } from "@/lib/services/sandboxes";

/**
 * The Sandbox tab's actions (issue 26). The session is checked here; who may do what is decided by
 * lib/services/sandboxes.ts (capabilities in app-access.ts), so a viewer's forged call is refused there.
 */

/** A new sandbox secret for an API client, returned once to this browser; the old one stops working. */
export async function rollSandboxSecretAction(clientId: unknown): Promise<ActionResult<SandboxSecret>> {
  return runAction("apps.sandbox.secret.roll", async () => {
    const actor = await requireUserActor();
    const id = clientIdSchema.parse(clientId);
    const secret = await rollSandboxSecret(id, actor);
    revalidatePath(`/apps/${id}/sandbox`);
    return secret;
  });
}

/** "Reset sandbox": the synthetic world is deleted and generated again. */
export async function resetSandboxAction(clientId: unknown): Promise<ActionResult<{ people: number }>> {
  return runAction("apps.sandbox.reset", async () => {
    const actor = await requireUserActor();
    const id = clientIdSchema.parse(clientId);
    const { people } = await resetSandbox(id, actor);
    revalidatePath(`/apps/${id}/sandbox`);
    return { people };
  });
}
