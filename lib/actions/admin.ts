"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { runAction, type ActionResult } from "@/lib/actions/result";
import { isAppError } from "@/lib/errors";
import { clientIdSchema, revisionSchema, reviewRejectionSchema, suspendAppSchema, type AppView } from "@/lib/schemas/apps";
import { disableUserSchema, enableUserSchema, handleSchema, type UserView } from "@/lib/schemas/users";
import { requireAdminActor } from "@/lib/portal/session";
import {
  approveApp,
  approveApps,
  approvePendingChange,
  MAX_BULK_APPROVE,
  reinstateApp,
  rejectApp,
  rejectPendingChange,
  suspendApp,
  undoApproval,
} from "@/lib/services/app-review";
import { setUserDisabled, setUserMuted } from "@/lib/services/users";
import { setAppRequestQuota } from "@/lib/services/api-quota";
import { requestQuotaSchema } from "@/lib/schemas/rate-limits";

/**
 * Admin actions. Every one checks the admin role on the server first (requireAdminActor), whatever
 * the UI showed: a server action is a public POST endpoint that anyone signed in can call.
 */

/** Re-renders the pages that show the app; the service already told every process's caches. */
function refreshApp(clientId: string): void {
  revalidatePath("/admin", "layout");
  revalidatePath(`/apps/${clientId}`);
}

/** Approves the app as the admin saw it: refused (conflict) if it changed since that revision. */
export async function approveAppAction(
  clientId: unknown,
  revision: unknown,
): Promise<ActionResult<Pick<AppView, "clientId" | "status">>> {
  return runAction("admin.apps.approve", async () => {
    const id = clientIdSchema.parse(clientId);
    const actor = await requireAdminActor("app.approve", { type: "app", id });
    const app = await approveApp(id, actor, { revision: revisionSchema.parse(revision) });
    refreshApp(id);
    return { clientId: app.clientId, status: app.status };
  });
}

const clientIdListSchema = z
  .array(clientIdSchema)
  .min(1, "Select at least one application")
  .max(MAX_BULK_APPROVE, `Approve at most ${MAX_BULK_APPROVE} applications at once`);

/** Bulk approval: each app with the revision the queue rendered. */
const reviewedListSchema = z
  .array(z.object({ clientId: clientIdSchema, revision: revisionSchema }))
  .min(1, "Select at least one application")
  .max(MAX_BULK_APPROVE, `Approve at most ${MAX_BULK_APPROVE} applications at once`);

/** Bulk approve (the queue's "Approve selected", one confirmation): each app on its own, failures listed. */
export async function approveAppsAction(
  items: unknown,
): Promise<ActionResult<{ approved: string[]; failed: { clientId: string; message: string }[] }>> {
  return runAction("admin.apps.approve-bulk", async () => {
    const reviewed = reviewedListSchema.parse(items);
    const actor = await requireAdminActor("app.approve", { type: "app", id: reviewed.map((r) => r.clientId).join(" ") });
    const result = await approveApps(reviewed, actor);
    for (const app of result.approved) refreshApp(app.clientId);
    return { approved: result.approved.map((a) => a.clientId), failed: result.failed };
  });
}

/**
 * The undo toast after an approval (single or bulk): each app goes back to the status it had, and
 * what the approval let it get (secrets, grants, tokens) is taken back (lib/services/apps.ts).
 */
export async function undoApprovalsAction(
  clientIds: unknown,
): Promise<ActionResult<{ undone: string[]; failed: { clientId: string; message: string }[] }>> {
  return runAction("admin.apps.approve-undo", async () => {
    const ids = clientIdListSchema.parse(clientIds);
    const actor = await requireAdminActor("app.approve.undo", { type: "app", id: ids.join(" ") });
    const undone: string[] = [];
    const failed: { clientId: string; message: string }[] = [];
    for (const id of ids) {
      try {
        await undoApproval(id, actor);
        undone.push(id);
        refreshApp(id);
      } catch (error) {
        if (!isAppError(error) || error.code === "forbidden") throw error;
        failed.push({ clientId: id, message: error.message });
      }
    }
    return { undone, failed };
  });
}

export async function rejectAppAction(
  clientId: unknown,
  input: unknown,
): Promise<ActionResult<Pick<AppView, "clientId" | "status">>> {
  return runAction("admin.apps.reject", async () => {
    const id = clientIdSchema.parse(clientId);
    const actor = await requireAdminActor("app.reject", { type: "app", id });
    const { reason, revision } = reviewRejectionSchema.parse(input);
    const app = await rejectApp(id, reason, actor, { revision });
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

/** Disabling needs a reason (kept in the audit log); enabling takes an optional note. */
export async function setUserDisabledAction(
  handle: unknown,
  disabled: unknown,
  input?: unknown,
): Promise<ActionResult<Pick<UserView, "handle" | "disabled" | "muted">>> {
  return runAction("admin.users.disable", async () => {
    const target = handleSchema.parse(handle);
    const value = flagSchema.parse(disabled);
    const actor = await requireAdminActor(value ? "user.disable" : "user.enable", { type: "user", id: target });
    const { reason } = (value ? disableUserSchema : enableUserSchema).parse(input ?? {});
    const user = await setUserDisabled(target, value, actor, reason);
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

/** Approves the change waiting on an approved app (issue 15): its requested values apply now. */
export async function approveChangeAction(clientId: unknown, revision: unknown): Promise<ActionResult<{ clientId: string }>> {
  return runAction("admin.apps.change.approve", async () => {
    const id = clientIdSchema.parse(clientId);
    const actor = await requireAdminActor("app.change.approve", { type: "app", id });
    await approvePendingChange(id, actor, { revision: revisionSchema.parse(revision) });
    refreshApp(id);
    return { clientId: id };
  });
}

/** Refuses the change waiting on an app, with a reason its team sees; the approved configuration stays. */
export async function rejectChangeAction(clientId: unknown, input: unknown): Promise<ActionResult<{ clientId: string }>> {
  return runAction("admin.apps.change.reject", async () => {
    const id = clientIdSchema.parse(clientId);
    const actor = await requireAdminActor("app.change.reject", { type: "app", id });
    const { reason, revision } = reviewRejectionSchema.parse(input);
    await rejectPendingChange(id, reason, actor, { revision });
    refreshApp(id);
    return { clientId: id };
  });
}

/** An app's API request quota per minute (null: the platform default). */
export async function setAppQuotaAction(
  clientId: unknown,
  input: unknown,
): Promise<ActionResult<Pick<AppView, "clientId" | "requestsPerMinute" | "customQuota">>> {
  return runAction("admin.apps.quota", async () => {
    const id = clientIdSchema.parse(clientId);
    const actor = await requireAdminActor("app.quota", { type: "app", id });
    const app = await setAppRequestQuota(id, requestQuotaSchema.parse(input), actor);
    refreshApp(id);
    return { clientId: app.clientId, requestsPerMinute: app.requestsPerMinute, customQuota: app.customQuota };
  });
}
