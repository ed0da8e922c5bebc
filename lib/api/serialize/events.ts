import type { EventEnvelope } from "../../schemas/events";
import { chatRecordFromRow, type ChatRow } from "../../services/chat";
import type { NotificationRecord } from "../../services/notifications";
import type { StoredEvent } from "../../events/worker";
import { serializeChatMessage } from "./chat";
import { serializeNotification } from "./notification";

/**
 * An event as apps receive it, by webhook and on the stream alike. Chat and notification
 * events store the record their statement or trigger wrote; they are rendered here by the API's own
 * serializers, so `data` is exactly what `GET /global-chat/messages` and `GET /me/notifications`
 * return. The other types store their `data` as it is sent.
 */
export function renderEvent(event: StoredEvent): EventEnvelope {
  return { id: event.id, type: event.type, created_at: event.createdAt, data: renderData(event) };
}

function renderData(event: StoredEvent): Record<string, unknown> {
  switch (event.type) {
    case "chat.message.created":
      return serializeChatMessage(chatRecordFromRow(event.data as unknown as ChatRow));
    case "notification.created": {
      const { user, ...record } = event.data as unknown as NotificationRecord & { user: string };
      return { ...serializeNotification(record), user };
    }
    default:
      return event.data;
  }
}
