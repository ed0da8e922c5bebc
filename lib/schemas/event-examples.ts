import type { z } from "zod";
import { eventDataSchemas, type EventType } from "./events";

/**
 * One example body of each event type (issue 25), for the OpenAPI document's `webhooks` section and
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
