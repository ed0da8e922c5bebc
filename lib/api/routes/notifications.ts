import { listNotificationsQuerySchema, notificationPageSchema } from "../../schemas/notifications";
import { listNotifications } from "../../services/notifications";
import { defineRoute } from "../handler";
import { serializeNotification } from "../serialize/notification";

/** SPEC.md endpoints of the notifications resource (declarations only; lib/api/routes/index.ts lists them all). */

export const getMyNotifications = defineRoute({
  method: "GET",
  path: "/me/notifications",
  operationId: "listMyNotifications",
  mcp: { tool: "list_my_notifications" },
  summary: "List the signed-in user's notifications",
  description:
    "Newest first, page-numbered. `limit` outside 1–50 (or not an integer) falls back to 10; a bad `page` falls back to 1. " +
    "`has_more` is exact. Optional fields appear only on the types that carry them (see the Notification schema).",
  tag: "Me",
  auth: "user",
  scope: "svc:notifications.read",
  query: listNotificationsQuerySchema,
  response: { status: 200, schema: notificationPageSchema, description: "A page of notifications." },
  errors: [],
  async handler({ caller, query }) {
    const { notifications, hasMore } = await listNotifications(caller.userId, query, caller);
    return { notifications: notifications.map(serializeNotification), page: query.page, limit: query.limit, has_more: hasMore };
  },
});
