import { z } from "zod";
import { eventTypeSchema, EVENT_TYPES, type EventType } from "./events";

/** Webhook endpoints and their delivery log: inputs and views, shared by the CLI, the portal and the docs. */
export const WEBHOOK_ID_PATTERN = /^wh_[a-z2-7]{24}$/;
export const DELIVERY_ID_PATTERN = /^dlv_[a-z2-7]{24}$/;

/**
 * Seconds between a failed attempt and the next, one per retry (WEBHOOK_RETRY_SCHEDULE's default;
 * ±20 % jitter): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, about 28 hours in all. The docs page shows it.
 */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 36000];

/** What the server accepts as an endpoint's URL (lib/events/deliver-http.ts), as the installation is configured. */
export interface WebhookUrlRule {
  /** WEBHOOKS_ALLOW_PRIVATE: loopback and private addresses, plain http, any port. */
  allowPrivate: boolean;
  /** WEBHOOK_ALLOWED_PORTS. */
  allowedPorts: readonly number[];
}

/** The rule in a sentence, for the portal's form and the docs. */
export function describeWebhookUrlRule(rule: WebhookUrlRule): string {
  if (rule.allowPrivate) {
    return "An https or http URL, on any port; this installation also reaches loopback and private addresses (development only).";
  }
  const ports = rule.allowedPorts.length === 1 ? `port ${rule.allowedPorts[0]}` : `port ${rule.allowedPorts.slice(0, -1).join(", ")} or ${rule.allowedPorts.at(-1)}`;
  return `An https URL on the public internet, on ${ports}${rule.allowedPorts.includes(443) ? " (443 when none is written)" : ""}.`;
}

export const webhookInputSchema = z.object({
  url: z.string().trim().min(1, "Enter the endpoint's URL.").max(2048, "At most 2048 characters."),
  /** Empty: every type the app may receive. */
  events: z.array(eventTypeSchema).max(EVENT_TYPES.length).default([]),
});
export type WebhookInput = z.input<typeof webhookInputSchema>;

export const deliveryFilterSchema = z.object({
  webhook: z.string().regex(WEBHOOK_ID_PATTERN, "not a webhook id (wh_…)").optional(),
  status: z.enum(["failed", "delivered"]).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type DeliveryFilter = z.input<typeof deliveryFilterSchema>;

export type WebhookStatus = "enabled" | "disabled";

export interface WebhookView {
  id: string;
  url: string;
  events: EventType[];
  status: WebhookStatus;
  /** Why it is disabled: owner | gone (410) | failing (3 days of failures). */
  disabled_reason: string | null;
  /** Unix seconds of the first failure since the last success, or null. */
  failing_since: number | null;
  created_at: number;
}

export interface DeliveryView {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  redelivery: boolean;
  /** pending | delivered | failed */
  state: string;
  status_code: number | null;
  ok: boolean;
  error: string | null;
  latency_ms: number | null;
  response: string | null;
  created_at: number;
  next_attempt_at: number | null;
}

/**
 * What waits to be sent to an app's endpoints (its live or its sandbox's): attempts due now and not
 * yet recorded (first attempts, retries that fell due, redeliveries, test events), the events they
 * carry, and how long the oldest has been due; retries scheduled for later apart.
 */
export interface WebhookBacklogView {
  waiting: number;
  events: number;
  /** Seconds the oldest waiting attempt has been due; null when none waits. */
  oldest_waiting_seconds: number | null;
  retries_scheduled: number;
}
