"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { runAction, type ActionResult } from "@/lib/actions/result";
import { clientIdSchema, rejectAppSchema, suspendAppSchema, type AppView } from "@/lib/schemas/apps";
import { handleSchema, type UserView } from "@/lib/schemas/users";
import { requireAdminActor } from "@/lib/portal/session";
import { approveApp, reinstateApp, rejectApp, suspendApp } from "@/lib/services/apps";
import { setUserDisabled, setUserMuted } from "@/lib/services/users";

/**
 * Admin actions. Every one checks the admin role on the server first (requireAdminActor), whatever
 * the UI showed: a server action is a public POST endpoint that anyone signed in can call.
 */

/** Re-renders the pages that show the app; the service already told every process's caches. */
function refreshApp(clientId: string): void {
  revalidatePath("/admin", "layout");
  revalidatePath(`/apps/${clientId}`);
}

export async function approveAppAction(clientId: unknown): Promise<ActionResult<Pick<AppView, "clientId" | "status">>> {
  return runAction("admin.apps.approve", async () => {
    const id = clientIdSchema.parse(clientId);
    const actor = await requireAdminActor("app.approve", { type: "app", id });
    const app = await approveApp(id, actor);
    refreshApp(id);
    return { clientId: app.clientId, status: app.status };
  });
}

export async function rejectAppAction(
  clientId: unknown,
  input: unknown,
): Promise<ActionResult<Pick<AppView, "clientId" | "status">>> {
  return runAction("admin.apps.reject", async () => {
    const id = clientIdSchema.parse(clientId);
    const actor = await requireAdminActor("app.reject", { type: "app", id });
    const { reason } = rejectAppSchema.parse(input);
    const app = await rejectApp(id, reason, actor);
    refreshApp(id);
    return { clientId: app.clientId, status: app.status };
  });
}

export async function suspendAppAction(
  clientId: unknown,
  input: unknown,
): Promise<ActionResult<Pick<AppView, "clientId" | "status">>> {
  return runAction("admin.apps.suspend", async () => {
    const id = clientIdSchema.parse(clientId);
    const actor = await requireAdminActor("app.suspend", { type: "app", id });
    const { reason } = suspendAppSchema.parse(input);
    const app = await suspendApp(id, reason, actor);
    refreshApp(id);
    return { clientId: app.clientId, status: app.status };
  });
}

export async function reinstateAppAction(clientId: unknown): Promise<ActionResult<Pick<AppView, "clientId" | "status">>> {
  return runAction("admin.apps.reinstate", async () => {
    const id = clientIdSchema.parse(clientId);
    const actor = await requireAdminActor("app.reinstate", { type: "app", id });
    const app = await reinstateApp(id, actor);
    refreshApp(id);
    return { clientId: app.clientId, status: app.status };
  });
}

const flagSchema = z.boolean();

export async function setUserDisabledAction(
  handle: unknown,
  disabled: unknown,
): Promise<ActionResult<Pick<UserView, "handle" | "disabled" | "muted">>> {
  return runAction("admin.users.disable", async () => {
    const target = handleSchema.parse(handle);
    const value = flagSchema.parse(disabled);
    const actor = await requireAdminActor(value ? "user.disable" : "user.enable", { type: "user", id: target });
    const user = await setUserDisabled(target, value, actor);
    revalidatePath("/admin/users");
    return { handle: user.handle, disabled: user.disabled, muted: user.muted };
  });
}

export async function setUserMutedAction(
  handle: unknown,
  muted: unknown,
): Promise<ActionResult<Pick<UserView, "handle" | "disabled" | "muted">>> {
  return runAction("admin.users.mute", async () => {
    const target = handleSchema.parse(handle);
    const value = flagSchema.parse(muted);
    const actor = await requireAdminActor(value ? "user.mute" : "user.unmute", { type: "user", id: target });
    const user = await setUserMuted(target, value, actor);
    revalidatePath("/admin/users");
    return { handle: user.handle, disabled: user.disabled, muted: user.muted };
  });
}
