import { z } from "zod";
import { EVENT_AUDIENCE, eventDataSchemas, type EventType } from "./events";

/**
 * The event catalog as the OpenAPI document's `webhooks` section and the docs page "Events and webhooks"
 * show it, generated from EVENT_TYPES, EVENT_AUDIENCE and eventDataSchemas.
 *
 * One example body of each event type, for the OpenAPI document's `webhooks` section and
 * the docs' event catalog. Typed by the payload schemas, and tests/api/openapi.test.ts validates each
 * against the schema the document publishes, so an example cannot drift from what is sent.
 */
type Example<T extends EventType> = { id: string; type: T; created_at: number; data: z.input<(typeof eventDataSchemas)[T]> };

const author = { handle: "alice", display_name: "Alice Moreau", avatar_url: "https://dev.example.com/media/avatars/alice.png" };

export const EVENT_EXAMPLES: { [T in EventType]: Example<T> } = {
  "chat.message.created": {
    id: "evt_3kq7m2xw5rnb4tyh6fzc2dpa",
    type: "chat.message.created",
    created_at: 1764000000,
    data: { id: "104729", author, text: "Anyone up for a Beetle rematch?", created_at: 1764000000 },
  },
  "notification.created": {
    id: "evt_7hx2p4qn6wzk3mrd5tbc4yfe",
    type: "notification.created",
    created_at: 1764000060,
    data: { type: "poke", read: false, from: author, created_at: 1764000060, count: 3, user: "bob" },
  },
  "app.authorization.granted": {
    id: "evt_5tb2yk7wq3mzr6hxd4pnc2fa",
    type: "app.authorization.granted",
    created_at: 1764000120,
    data: { user: "bob", scopes: ["openid", "svc:notifications.read"] },
  },
  "app.authorization.revoked": {
    id: "evt_2mzr6hxd4pnc7tb2yk3wq5fa",
    type: "app.authorization.revoked",
    created_at: 1764000180,
    data: { user: "bob", scopes: ["openid", "svc:notifications.read"] },
  },
  "app.status.changed": {
    id: "evt_6wq3mzr2hxd4tb5yk7pnc2fa",
    type: "app.status.changed",
    created_at: 1764000240,
    data: { status: "suspended", reason: "Spam reports from several people" },
  },
  ping: {
    id: "evt_4pnc2fa6wq3mzr7hxd5tb2yk",
    type: "ping",
    created_at: 1764000300,
    data: { message: "Test event from the developer portal for Stats bot.", webhook_id: "wh_q3mzr6hxd4pnc7tb2yk5wfa2" },
  },
};

/** Who receives an event type, in words (from EVENT_AUDIENCE). */
export function eventAudienceText(type: EventType): string {
  const { scope, grant, own } = EVENT_AUDIENCE[type];
  if (type === "ping") return "Only the endpoint it is sent to (webhooks only).";
  if (own) return "Only the app the event is about.";
  if (grant) return `Apps with \`${scope}\`, only for people who authorized the app with that scope and have not revoked it.`;
  return `Every approved app with \`${scope}\`.`;
}

interface JsonSchema {
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  allOf?: JsonSchema[];
  properties?: Record<string, unknown>;
  required?: string[];
}

/** The top-level fields of an event type's `data`, in schema order, and whether each is always there. */
export function eventDataFields(type: EventType): { name: string; required: boolean }[] {
  const root = z.toJSONSchema(eventDataSchemas[type], { io: "output", unrepresentable: "any" }) as JsonSchema;
  const resolve = (s: JsonSchema): JsonSchema[] => {
    if (s.$ref) return resolve(root.$defs?.[s.$ref.replace("#/$defs/", "")] ?? {});
    if (s.allOf) return s.allOf.flatMap(resolve);
    return [s];
  };
  return resolve(root).flatMap((part) =>
    Object.keys(part.properties ?? {}).map((name) => ({ name, required: (part.required ?? []).includes(name) })),
  );
}

/** 5 → "5 s", 300 → "5 min", 9000 → "2 h 30 min". */
export function formatSeconds(total: number): string {
  const s = Math.round(total);
  if (s < 60) return `${s} s`;
  const h = Math.floor(s / 3600);
  const min = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return [h ? `${h} h` : "", min ? `${min} min` : "", sec && !h ? `${sec} s` : ""].filter(Boolean).join(" ");
}
