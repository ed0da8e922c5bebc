"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { runGuardedAction } from "@/lib/actions/gate";
import type { ActionResult } from "@/lib/actions/result";
import { isAppError } from "@/lib/errors";
import { anyClientIdSchema, revisionSchema, reviewRejectionSchema, suspendAppSchema, type AppView } from "@/lib/schemas/apps";
import { disableUserSchema, enableUserSchema, handleSchema, type UserView } from "@/lib/schemas/users";
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
import { setAgentRule } from "@/lib/services/agents";
import { agentRuleSchema } from "@/lib/schemas/agents";
import { requestQuotaSchema } from "@/lib/schemas/rate-limits";

/**
 * Admin actions. Every one passes the gate's admin kind first (lib/actions/gate.ts: the admin role,
 * then the admins' second-factor rule), whatever the UI showed: a server action is a public POST
 * endpoint that anyone signed in can call. The target is what a refusal is audited against.
 */
// Any app's client ID: a developer's app's, or an AI agent's URL (the Agents page reviews, suspends and reinstates agents).
const appTarget = (clientId: unknown) => () => ({ type: "app" as const, id: anyClientIdSchema.parse(clientId) });
/** Bulk review: one audit row naming every app of the batch. */
const appListTarget = (parse: () => string[]) => () => ({ type: "app" as const, id: parse().join(" ") });
const agentRuleTarget = (kind: unknown, value: unknown, policy: unknown) => () => {
  const rule = agentRuleSchema.parse({ kind, value, policy });
  return { type: "setting" as const, id: `agent-${rule.kind}:${rule.value}` };
};
const userTarget = (handle: unknown) => () => ({ type: "user" as const, id: handleSchema.parse(handle) });

/**
 * An admin's rule for AI agents (issue 40): a domain trusted, sent to review or blocked, or one
 * agent's URL blocked; `policy` null removes the rule. Blocking suspends the agents it covers at once.
 */
export async function setAgentRuleAction(kind: unknown, value: unknown, policy: unknown): Promise<ActionResult<{ kind: string; value: string }>> {
  return runGuardedAction("admin.agents.rule", { admin: "agent.rule", target: agentRuleTarget(kind, value, policy) }, async (actor) => {
    const input = agentRuleSchema.parse({ kind, value, policy });
    const rule = await setAgentRule(input.kind, input.value, input.policy, actor);
    revalidatePath("/admin/agents");
    return { kind: rule.kind, value: rule.value };
  });
}

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
  return runGuardedAction("admin.apps.approve", { admin: "app.approve", target: appTarget(clientId) }, async (actor) => {
    const id = anyClientIdSchema.parse(clientId);
    const app = await approveApp(id, actor, { revision: revisionSchema.parse(revision) });
    refreshApp(id);
    return { clientId: app.clientId, status: app.status };
  });
}

const clientIdListSchema = z
  .array(anyClientIdSchema)
  .min(1, "Select at least one application")
  .max(MAX_BULK_APPROVE, `Approve at most ${MAX_BULK_APPROVE} applications at once`);

/** Bulk approval: each app with the revision the queue rendered. */
const reviewedListSchema = z
  .array(z.object({ clientId: anyClientIdSchema, revision: revisionSchema }))
  .min(1, "Select at least one application")
  .max(MAX_BULK_APPROVE, `Approve at most ${MAX_BULK_APPROVE} applications at once`);

/** Bulk approve (the queue's "Approve selected", one confirmation): each app on its own, failures listed. */
export async function approveAppsAction(
  items: unknown,
): Promise<ActionResult<{ approved: string[]; failed: { clientId: string; message: string }[] }>> {
  return runGuardedAction("admin.apps.approve-bulk", { admin: "app.approve", target: appListTarget(() => reviewedListSchema.parse(items).map((r) => r.clientId)) }, async (actor) => {
    const reviewed = reviewedListSchema.parse(items);
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
  return runGuardedAction("admin.apps.approve-undo", { admin: "app.approve.undo", target: appListTarget(() => clientIdListSchema.parse(clientIds)) }, async (actor) => {
    const ids = clientIdListSchema.parse(clientIds);
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
  return runGuardedAction("admin.apps.reject", { admin: "app.reject", target: appTarget(clientId) }, async (actor) => {
    const id = anyClientIdSchema.parse(clientId);
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
  return runGuardedAction("admin.apps.suspend", { admin: "app.suspend", target: appTarget(clientId) }, async (actor) => {
    const id = anyClientIdSchema.parse(clientId);
    const { reason } = suspendAppSchema.parse(input);
    const app = await suspendApp(id, reason, actor);
    refreshApp(id);
    return { clientId: app.clientId, status: app.status };
  });
}

export async function reinstateAppAction(clientId: unknown): Promise<ActionResult<Pick<AppView, "clientId" | "status">>> {
  return runGuardedAction("admin.apps.reinstate", { admin: "app.reinstate", target: appTarget(clientId) }, async (actor) => {
    const id = anyClientIdSchema.parse(clientId);
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
  return runGuardedAction("admin.users.disable", { admin: disabled === true ? "user.disable" : "user.enable", target: userTarget(handle) }, async (actor) => {
    const target = handleSchema.parse(handle);
    const value = flagSchema.parse(disabled);
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
  return runGuardedAction("admin.users.mute", { admin: muted === true ? "user.mute" : "user.unmute", target: userTarget(handle) }, async (actor) => {
    const target = handleSchema.parse(handle);
    const value = flagSchema.parse(muted);
    const user = await setUserMuted(target, value, actor);
    revalidatePath("/admin/users");
    return { handle: user.handle, disabled: user.disabled, muted: user.muted };
  });
}

/** Approves the change waiting on an approved app: its requested values apply now. */
export async function approveChangeAction(clientId: unknown, revision: unknown): Promise<ActionResult<{ clientId: string }>> {
  return runGuardedAction("admin.apps.change.approve", { admin: "app.change.approve", target: appTarget(clientId) }, async (actor) => {
    const id = anyClientIdSchema.parse(clientId);
    await approvePendingChange(id, actor, { revision: revisionSchema.parse(revision) });
    refreshApp(id);
    return { clientId: id };
  });
}

/** Refuses the change waiting on an app, with a reason its team sees; the approved configuration stays. */
export async function rejectChangeAction(clientId: unknown, input: unknown): Promise<ActionResult<{ clientId: string }>> {
  return runGuardedAction("admin.apps.change.reject", { admin: "app.change.reject", target: appTarget(clientId) }, async (actor) => {
    const id = anyClientIdSchema.parse(clientId);
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
  return runGuardedAction("admin.apps.quota", { admin: "app.quota", target: appTarget(clientId) }, async (actor) => {
    const id = anyClientIdSchema.parse(clientId);
    const app = await setAppRequestQuota(id, requestQuotaSchema.parse(input), actor);
    refreshApp(id);
    return { clientId: app.clientId, requestsPerMinute: app.requestsPerMinute, customQuota: app.customQuota };
  });
}
