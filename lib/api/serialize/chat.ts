import { chatMediaSchema, chatReactionSchema, type ChatMessageView } from "../../schemas/chat";
import type { ChatMessageRecord } from "../../services/chat";
import { publicUrl } from "../../schemas/wire";
import { validItems } from "./json";

export function serializeChatMessage(m: ChatMessageRecord): ChatMessageView {
  const media = validItems(chatMediaSchema, m.media).map((item) => ({
    ...item,
    url: publicUrl(item.url),
    thumbnail_url: publicUrl(item.thumbnail_url),
  }));
  const reactions = validItems(chatReactionSchema, m.reactions);
  return {
    id: m.id,
    author: { handle: m.author.handle, display_name: m.author.displayName, avatar_url: publicUrl(m.author.avatarUrl) },
    text: m.text,
    created_at: m.createdAt,
    ...(m.replyToId !== null ? { reply_to_id: m.replyToId } : {}),
    ...(media.length ? { media } : {}),
    ...(reactions.length ? { reactions } : {}),
    ...(m.editedAt !== null ? { edited_at: m.editedAt } : {}),
  };
}
