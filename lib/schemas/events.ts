import { z } from "zod";
import { chatMessageSchema } from "./chat";
import { notificationSchema } from "./notifications";

/**
 * The event catalog: what an app may hear, by webhook or on the event stream, each with
 * its payload schema (the OpenAPI document's `webhooks` section is built from these). Every event is
 * `{ id: "evt_…", type, created_at: <unix seconds>, data }`; `id` is stable across every retry and
 * redelivery, so receivers deduplicate by it.
 */
export const EVENT_TYPES = [
  "chat.message.created",
  "notification.created",
  "app.authorization.granted",
  "app.authorization.revoked",
  "app.status.changed",
  "ping",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export const eventTypeSchema = z.enum(EVENT_TYPES);

/**
 * Who may receive each type (an app never receives an event it could not read through the API):
 * `scope`: the app's approved scopes must include it; `grant`: the event's user must have authorized
 * the app with that scope and not revoked it; `own`: only the app the event is about.
 */
export const EVENT_AUDIENCE: Record<EventType, { scope: string | null; grant: boolean; own: boolean; description: string }> = {
  "chat.message.created": { scope: "svc:chat.read", grant: false, own: false, description: "A message was posted to the global chat. `data` is the message exactly as `GET /global-chat/messages` returns it." },
  "notification.created": {
    scope: "svc:notifications.read",
    grant: true,
    own: false,
    description: "A person who authorized the app with `svc:notifications.read` (and has not revoked it) got a notification. `data` is the notification as `GET /me/notifications` returns it, plus `user` (the handle).",
  },
  "app.authorization.granted": { scope: null, grant: false, own: true, description: "A person authorized the app (first consent, or more scopes). `data`: `user`, `scopes` (all scopes now granted)." },
  "app.authorization.revoked": { scope: null, grant: false, own: true, description: "A person's authorization of the app ended (Connected apps, the operator CLI, or an admin disabling the person). `data`: `user`, `scopes` (what was granted)." },
  "app.status.changed": { scope: null, grant: false, own: true, description: "The app was approved, rejected, suspended or reinstated, or a pending change was approved or rejected. `data`: `status`, `reason?`, `change?`." },
  ping: { scope: null, grant: false, own: true, description: "Sent by “Send test event” (portal) or `apps webhooks test` (CLI), to one endpoint." },
};

const authorizationData = z.object({ user: z.string(), scopes: z.array(z.string()) });

export const eventDataSchemas = {
  "chat.message.created": chatMessageSchema,
  "notification.created": notificationSchema.and(z.object({ user: z.string().describe("The handle of the person notified.") })),
  "app.authorization.granted": authorizationData,
  "app.authorization.revoked": authorizationData,
  "app.status.changed": z.object({
    status: z.enum(["pending", "approved", "rejected", "suspended"]),
    reason: z.string().optional(),
    change: z.enum(["approved", "rejected"]).optional().describe("Set when a pending change of the app was decided."),
  }),
  ping: z.object({ message: z.string(), webhook_id: z.string() }),
} satisfies Record<EventType, z.ZodType>;

export const EVENT_ID_PATTERN = /^evt_[a-z2-7]{24}$/;

/** The envelope of every event. */
export function eventEnvelopeSchema<T extends EventType>(type: T) {
  return z.object({
    id: z.string().regex(EVENT_ID_PATTERN).describe("`evt_…`, the same on every retry and redelivery of the event (and its `webhook-id` header): deduplicate by it."),
    type: z.literal(type),
    created_at: z.number().int().describe("Unix seconds at which what the event reports was committed."),
    data: eventDataSchemas[type],
  });
}

export interface EventEnvelope {
  id: string;
  type: EventType;
  created_at: number;
  data: Record<string, unknown>;
}

/** Webhook endpoints per app, and the stream's connections per app in each server process (lib/events/stream.ts counts in memory). */
export const MAX_WEBHOOKS_PER_APP = 5;
export const MAX_STREAMS_PER_APP = 20;
/**
 * A user-delegated token's person's share of MAX_STREAMS_PER_APP (per app and process): a login
 * app's slots serve all its users, so one of them cannot hold them all.
 */
export const MAX_STREAMS_PER_USER = 5;
/** How far back Last-Event-ID may reach (the docs' promise; the table keeps events longer, for webhooks). */
export const STREAM_RESUME_WINDOW_HOURS = 24;

/**
 * The event types "Trigger event" (portal Sandbox tab, `apps sandbox trigger`) writes in an
 * app's sandbox with synthetic data: every type of the catalog but `ping`, which "Send test event"
 * sends to one endpoint (sandbox endpoints too). A new type is triggerable at once, so the sandbox's
 * writer (lib/services/sandbox-events.ts) does not compile until it can write one, and
 * tests/sandbox/events.test.ts triggers each and receives it by webhook and on the stream.
 */
export const TRIGGERABLE_EVENT_TYPES = EVENT_TYPES.filter((t): t is Exclude<EventType, "ping"> => t !== "ping");
export type TriggerableEventType = (typeof TRIGGERABLE_EVENT_TYPES)[number];
