import { EVENT_AUDIENCE, type EventType } from "../schemas/events";
import { isAppLiveIn, LIVE_WORLD_ID } from "../schemas/sandboxes";

/**
 * Who may receive an event: the one rule (STYLE: Surfaces share the rules) behind the event stream,
 * every webhook attempt (first, retry, redelivery, test event) and the redelivery button. The
 * fan-out's SQL (lib/events/worker.ts) writes the same rule for a batch at once; a test over every
 * type in the catalog holds the two together (tests/events/audience.test.ts).
 *
 * Pure: the caller brings what it knows of the receiver (its app's status and scopes, a stream
 * token's scopes and person) and of each person's consent, read however its path reads them.
 */
export interface AudienceEvent {
  type: EventType;
  /** The app the event is about (app.* and ping); null for events decided per app (chat, notifications). */
  clientId: string | null;
  userId: number | null;
  /** 0 live, else the sandbox it happened in. */
  worldId: number;
  data: Record<string, unknown>;
}

export interface Audience {
  /** The client it hears as: the app's client id, or its sandbox's (`sbx_…`). */
  clientId: string;
  /** 0 for a live app; its sandbox's id (Sandbox.id) for the sandbox's endpoints and tokens. */
  worldId: number;
  /**
   * The app's review status. Null where the caller stands for it: a stream's token was issued to an
   * app allowed to have one, and the app's suspension or the token's end closes the stream.
   */
  status: string | null;
  /** What it may read: a live app's approved scopes, a sandbox's current ones (its pending change's), or a stream token's. */
  scopes: readonly string[];
  /** A user-delegated stream: only that person's own events (plus the app-wide ones its scopes allow). */
  userId: number | null;
  via: "webhook" | "stream";
  /** Whether the person still authorizes this client with `scope` (a consent holding it, the account not disabled). */
  granted(userId: number, scope: string): boolean;
}

/**
 * Notification kinds that are the person's own, shown in the portal only (lib/services/portal-notifications.ts):
 * an account's security notices, and `app_review` developer notices (they can name a webhook URL with its
 * query string). Never listed by the API nor sent as notification.created (the Notification trigger
 * writes no event for them; this keeps an older one from going out).
 */
export const PORTAL_ONLY_NOTIFICATION_TYPES = ["security", "app_review"] as const;

/**
 * Why an event may not go to this receiver; the delivery log shows it as the attempt's error.
 * `app_not_approved`: a live app hears about others only while approved; `app_suspended`: a sandbox
 * hears nothing while its app is suspended; `scope_missing`: the scope the type needs is not (or no
 * longer) the app's; `consent_revoked`: the person no longer authorizes the app (or was disabled).
 */
export type AudienceRefusal =
  | "other_world"
  | "webhook_only"
  | "portal_only"
  | "app_not_approved"
  | "app_suspended"
  | "not_own"
  | "other_person"
  | "scope_missing"
  | "consent_revoked";

export function audienceRefusal(audience: Audience, event: AudienceEvent): AudienceRefusal | null {
  if (event.worldId !== audience.worldId) return "other_world";
  if (event.type === "ping" && audience.via === "stream") return "webhook_only";
  if (event.type === "notification.created" && (PORTAL_ONLY_NOTIFICATION_TYPES as readonly unknown[]).includes(event.data.type)) return "portal_only";
  const rule = EVENT_AUDIENCE[event.type];
  const live = audience.worldId === LIVE_WORLD_ID;
  // The one liveness rule (lib/schemas/sandboxes.ts), except that a live app always hears about
  // itself (its own suspension included); a sandbox of a suspended app hears nothing.
  if (audience.status !== null && !(live && rule.own) && !isAppLiveIn(audience.status, live ? "live" : "sandbox")) {
    return live ? "app_not_approved" : "app_suspended";
  }
  if (rule.own && event.clientId !== audience.clientId) return "not_own";
  const personal = rule.grant || (rule.own && event.userId !== null);
  if (personal && audience.userId !== null && audience.userId !== event.userId) return "other_person";
  if (rule.scope !== null && !audience.scopes.includes(rule.scope)) return "scope_missing";
  // In a sandbox every synthetic person counts as having authorized it.
  if (rule.grant && live && (event.userId === null || rule.scope === null || !audience.granted(event.userId, rule.scope))) return "consent_revoked";
  return null;
}

export function mayReceive(audience: Audience, event: AudienceEvent): boolean {
  return audienceRefusal(audience, event) === null;
}
