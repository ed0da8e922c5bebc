"use server";

import { revalidatePath } from "next/cache";
import { runAction, type ActionResult } from "@/lib/actions";
import { createAppSchema } from "@/lib/schemas/apps";
import { requireUserActor } from "@/lib/session";
import { createApp } from "@/lib/services/apps";

/** Registers an app for the signed-in developer; the form's schema is re-parsed here (STYLE: Validation). */
export async function createAppAction(input: unknown): Promise<ActionResult<{ clientId: string }>> {
  return runAction("apps.create", async () => {
    const actor = await requireUserActor();
    const parsed = createAppSchema.parse(input);
    if (actor.kind !== "user") throw new Error("unreachable: portal actors are users");
    const app = await createApp(parsed, { id: actor.id }, actor);
    revalidatePath("/apps");
    return { clientId: app.clientId };
  });
}
