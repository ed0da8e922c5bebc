"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { runGuardedAction } from "@/lib/actions/gate";
import type { ActionResult } from "@/lib/actions/result";
import { clientIdSchema } from "@/lib/schemas/apps";
import { DELIVERY_ID_PATTERN, WEBHOOK_ID_PATTERN, webhookInputSchema, type WebhookView } from "@/lib/schemas/webhooks";
import {
  addWebhook,
  redeliver,
  removeWebhook,
  rotateWebhookSecret,
  sendTestEvent,
  setWebhookEnabled,
} from "@/lib/services/webhooks";

/**
 * The app page's Webhooks tab. Who may do what is decided by the service (the owner and
 * team admins manage endpoints, since they hold signing secrets); the session is checked here and
 * every input re-parsed. A signing secret goes back to the browser once, in this response only.
 * Each action's last argument says whether it works on the app's sandbox endpoints.
 */
const worldSchema = z.boolean().optional().transform((sandbox) => ({ sandbox: sandbox === true }));
const webhookIdSchema = z.string().regex(WEBHOOK_ID_PATTERN, "Not a webhook id (wh_…).");
const deliveryIdSchema = z.string().regex(DELIVERY_ID_PATTERN, "Not a delivery id (dlv_…).");

function refresh(clientId: string): void {
  revalidatePath(`/apps/${clientId}/webhooks`);
}

export async function addWebhookAction(clientId: unknown, input: unknown, sandbox?: unknown): Promise<ActionResult<WebhookView & { secret: string }>> {
  return runGuardedAction("apps.webhooks.add", "app", async (actor) => {
    const id = clientIdSchema.parse(clientId);
    const created = await addWebhook(id, webhookInputSchema.parse(input), actor, worldSchema.parse(sandbox));
    refresh(id);
    return created;
  });
}

export async function removeWebhookAction(clientId: unknown, webhookId: unknown, sandbox?: unknown): Promise<ActionResult<{ id: string }>> {
  return runGuardedAction("apps.webhooks.remove", "app", async (actor) => {
    const id = clientIdSchema.parse(clientId);
    const removed = await removeWebhook(id, webhookIdSchema.parse(webhookId), actor, worldSchema.parse(sandbox));
    refresh(id);
    return { id: removed.id };
  });
}

export async function setWebhookEnabledAction(clientId: unknown, webhookId: unknown, enabled: unknown, sandbox?: unknown): Promise<ActionResult<WebhookView>> {
  return runGuardedAction("apps.webhooks.enable", "app", async (actor) => {
    const id = clientIdSchema.parse(clientId);
    const view = await setWebhookEnabled(id, webhookIdSchema.parse(webhookId), z.boolean().parse(enabled), actor, worldSchema.parse(sandbox));
    refresh(id);
    return view;
  });
}

/** A new signing secret, shown once; the previous one keeps signing alongside it for 24 hours. */
export async function rotateWebhookSecretAction(clientId: unknown, webhookId: unknown, sandbox?: unknown): Promise<ActionResult<{ id: string; secret: string }>> {
  return runGuardedAction("apps.webhooks.rotate", "app", async (actor) => {
    const id = clientIdSchema.parse(clientId);
    return rotateWebhookSecret(id, webhookIdSchema.parse(webhookId), actor, worldSchema.parse(sandbox));
  });
}

export async function sendTestEventAction(clientId: unknown, webhookId: unknown, sandbox?: unknown): Promise<ActionResult<{ event_id: string; delivery_id: string }>> {
  return runGuardedAction("apps.webhooks.test", "app", async (actor) => {
    const id = clientIdSchema.parse(clientId);
    const sent = await sendTestEvent(id, webhookIdSchema.parse(webhookId), actor, worldSchema.parse(sandbox));
    refresh(id);
    return sent;
  });
}

export async function redeliverAction(clientId: unknown, deliveryId: unknown, sandbox?: unknown): Promise<ActionResult<{ delivery_id: string }>> {
  return runGuardedAction("apps.webhooks.redeliver", "app", async (actor) => {
    const id = clientIdSchema.parse(clientId);
    const queued = await redeliver(id, deliveryIdSchema.parse(deliveryId), actor, worldSchema.parse(sandbox));
    refresh(id);
    return queued;
  });
}
