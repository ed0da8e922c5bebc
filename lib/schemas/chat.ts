import { z } from "zod";
import { cappedLimitParam, isNumericId, isStorableText, unixSecondsSchema, userRefSchema } from "./api";

/** Global chat (SPEC.md "Global chat message", GET and POST /global-chat/messages). */
export const CHAT_DEFAULT_LIMIT = 20;
export const CHAT_MAX_LIMIT = 100;
export const CHAT_TEXT_MAX_BYTES = 8192;
export const CHAT_POST_INTERVAL_SECONDS = 2;

const messageId = z.string().refine(isNumericId, "must be a numeric message id");

export const listChatQuerySchema = z.object({
  limit: cappedLimitParam({ fallback: CHAT_DEFAULT_LIMIT, cap: CHAT_MAX_LIMIT }),
  before: messageId
    .transform((s) => BigInt(s))
    .optional()
    .meta({ type: "string", pattern: "^[0-9]+$", description: "A message id: return messages older than it. Omit for the newest page." } as Record<string, unknown>),
});

export const postChatBodySchema = z
  .object({
    text: z
      .string()
      .refine((t) => t.trim().length > 0, "is required")
      .refine((t) => Buffer.byteLength(t, "utf8") <= CHAT_TEXT_MAX_BYTES, `must be at most ${CHAT_TEXT_MAX_BYTES} bytes (UTF-8)`)
      .refine(isStorableText, "must be valid Unicode text without NUL characters")
      .meta({ description: "The message: not blank, at most 8192 bytes UTF-8." }),
    reply_to_id: messageId
      .nullish()
      .transform((s) => (s == null ? undefined : BigInt(s)))
      .meta({
        type: "string",
        pattern: "^[0-9]+$",
        description: "Id of an existing message this one replies to (numeric string).",
      } as Record<string, unknown>),
  })
  .meta({ id: "PostChatMessage" });

export const MEDIA_KINDS = ["image", "gif", "video", "sticker"] as const;

export const chatMediaSchema = z
  .object({
    kind: z.enum(MEDIA_KINDS),
    url: z.string().meta({ description: "URL of the full-size media" }),
    thumbnail_url: z.string().meta({ description: "URL of a small preview image" }),
    width: z.int().nonnegative().meta({ description: "Pixels" }),
    height: z.int().nonnegative().meta({ description: "Pixels" }),
    is_animated: z.boolean(),
  })
  .meta({ id: "ChatMedia" });

export const chatReactionSchema = z
  .object({ emoji: z.string(), count: z.int().positive() })
  .meta({ id: "ChatReaction" });

export const chatMessageSchema = z
  .object({
    id: z.string().regex(/^\d+$/).meta({ description: "Numeric string; ids grow with time" }),
    author: userRefSchema,
    text: z.string(),
    created_at: unixSecondsSchema,
    reply_to_id: z.string().regex(/^\d+$/).optional().meta({ description: "Present on replies" }),
    media: z.array(chatMediaSchema).optional().meta({ description: "Present when the message has attachments" }),
    reactions: z.array(chatReactionSchema).optional().meta({ description: "Present when someone reacted" }),
    edited_at: unixSecondsSchema.optional().meta({ description: "Present when the message was edited" }),
  })
  .meta({ id: "ChatMessage" });
export type ChatMessageView = z.infer<typeof chatMessageSchema>;

export const chatPageSchema = z
  .object({
    messages: z.array(chatMessageSchema).meta({ description: "Oldest first within the page" }),
    has_more: z.boolean().meta({ description: "Older messages exist" }),
    next_cursor: z.string().meta({
      description:
        "Pass as `before` to fetch the next-older page. The id of the oldest message on this page (empty string when the page is empty).",
    }),
  })
  .meta({ id: "ChatPage" });
