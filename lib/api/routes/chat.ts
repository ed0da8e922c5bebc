import { chatMessageSchema, chatPageSchema, listChatQuerySchema, postChatBodySchema } from "../../schemas/chat";
import { listChatMessages, postChatMessage } from "../../services/chat";
import { worldOf } from "../auth";
import { defineRoute } from "../handler";
import { serializeChatMessage } from "../serialize/chat";

/** SPEC.md endpoints of the chat resource (declarations only; lib/api/routes/index.ts lists them all). */

export const listChatRoute = defineRoute({
  method: "GET",
  path: "/global-chat/messages",
  operationId: "listGlobalChatMessages",
  mcp: { tool: "list_chat_messages" },
  summary: "Read the global chat",
  description:
    "Messages oldest first within a page. Omit `before` for the newest page; while `has_more` is true pass `next_cursor` as `before` " +
    "for the next-older page (no gaps, no duplicates).",
  tag: "Global chat",
  auth: "any",
  scope: "svc:chat.read",
  query: listChatQuerySchema,
  response: { status: 200, schema: chatPageSchema, description: "A page of messages." },
  errors: ["invalid_request"],
  async handler({ query, caller }) {
    const { messages, hasMore } = await listChatMessages({ ...query, worldId: worldOf(caller), readAs: caller });
    return {
      messages: messages.map(serializeChatMessage),
      has_more: hasMore,
      next_cursor: messages[0]?.id ?? "",
    };
  },
});

export const postChatRoute = defineRoute({
  method: "POST",
  path: "/global-chat/messages",
  operationId: "postGlobalChatMessage",
  mcp: { tool: "post_chat_message" },
  summary: "Post to the global chat",
  description:
    "Posts as the token's user. `text` is required (not blank) and at most 8192 bytes UTF-8; `reply_to_id` must be the numeric id of an existing message. " +
    "Muted users get 403 `forbidden`. One message per 2 seconds per user (429 `rate_limited` with `Retry-After`). Bodies over 64 KiB: 413 `invalid_request`.",
  tag: "Global chat",
  auth: "user",
  scope: "svc:chat.write",
  body: postChatBodySchema,
  response: { status: 201, schema: chatMessageSchema, description: "The message as stored." },
  errors: ["invalid_request", "invalid_reply", "forbidden", "rate_limited", "idempotency_key_in_use", "idempotency_key_reused"],
  limit: "chat-post",
  idempotent: true,
  async handler({ caller, body }) {
    return serializeChatMessage(await postChatMessage(caller.userId, { text: body.text, replyToId: body.reply_to_id }, caller.clientId));
  },
});
