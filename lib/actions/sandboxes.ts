"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { runGuardedAction } from "@/lib/actions/gate";
import type { ActionResult } from "@/lib/actions/result";
import { clientIdSchema } from "@/lib/schemas/apps";
import { addSandboxTestUserSchema, type SandboxSecret, type SandboxTestUserCredentials } from "@/lib/schemas/sandboxes";
import { TRIGGERABLE_EVENT_TYPES } from "@/lib/schemas/events";
import { handleSchema } from "@/lib/schemas/users";
import { triggerSandboxEvent } from "@/lib/services/sandbox-events";
import { addSandboxTestUser, removeSandboxTestUser } from "@/lib/services/sandbox-users";
import { resetSandbox, rollSandboxSecret } from "@/lib/services/sandboxes";

/**
 * The Sandbox tab's actions. The session is checked here; who may do what is decided by
 * lib/services/sandboxes.ts (capabilities in app-access.ts), so a viewer's forged call is refused there.
 */

/** A new sandbox secret for an API client, returned once to this browser; the old one stops working. */
export async function rollSandboxSecretAction(clientId: unknown): Promise<ActionResult<SandboxSecret>> {
  return runGuardedAction("apps.sandbox.secret.roll", "app", async (actor) => {
    const id = clientIdSchema.parse(clientId);
    const secret = await rollSandboxSecret(id, actor);
    revalidatePath(`/apps/${id}/sandbox`);
    return secret;
  });
}

/** "Reset sandbox": the synthetic world is deleted and generated again. */
export async function resetSandboxAction(clientId: unknown): Promise<ActionResult<{ people: number }>> {
  return runGuardedAction("apps.sandbox.reset", "app", async (actor) => {
    const id = clientIdSchema.parse(clientId);
    const { people } = await resetSandbox(id, actor);
    revalidatePath(`/apps/${id}/sandbox`);
    return { people };
  });
}

const triggerableEventTypeSchema = z.enum(TRIGGERABLE_EVENT_TYPES, { message: "Choose an event type from the list." });

/** A test user; its generated password comes back once, to this browser only. */
export async function addSandboxTestUserAction(clientId: unknown, input: unknown): Promise<ActionResult<SandboxTestUserCredentials>> {
  return runGuardedAction("apps.sandbox.users.add", "app", async (actor) => {
    const id = clientIdSchema.parse(clientId);
    const added = await addSandboxTestUser(id, actor, addSandboxTestUserSchema.parse(input));
    revalidatePath(`/apps/${id}/sandbox`);
    return added;
  });
}

/** Removes a test user: its sign-ins and tokens stop at once. */
export async function removeSandboxTestUserAction(clientId: unknown, handle: unknown): Promise<ActionResult<{ handle: string }>> {
  return runGuardedAction("apps.sandbox.users.remove", "app", async (actor) => {
    const id = clientIdSchema.parse(clientId);
    const parsed = handleSchema.parse(handle);
    await removeSandboxTestUser(id, actor, parsed);
    revalidatePath(`/apps/${id}/sandbox`);
    return { handle: parsed };
  });
}

/** "Trigger event": one event of a triggerable type with synthetic data, in the sandbox only. */
export async function triggerSandboxEventAction(clientId: unknown, type: unknown): Promise<ActionResult<{ eventId: string }>> {
  return runGuardedAction("apps.sandbox.trigger", "app", async (actor) => {
    const id = clientIdSchema.parse(clientId);
    const parsed = triggerableEventTypeSchema.parse(type);
    return triggerSandboxEvent(id, actor, parsed);
  });
}
