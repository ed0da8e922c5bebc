import { noteWrite, readerFor, type ReadCaller } from "../database/replicas";
import { AppError } from "../errors";
import {
  findChatPostState,
  insertChatMessage,
  listChatMessagesBefore,
  listNewestChatMessages,
  type ChatMessageRecord,
} from "../queries/chat";
import { CHAT_POST_INTERVAL_SECONDS } from "../schemas/chat";

export type { ChatMessageRecord } from "../queries/chat";
/** The message a `chat.message.created` event stores (its statement's row), as the chat reads return it. */
export { toRecord as chatRecordFromRow, type ChatRow } from "../queries/chat";

/**
 * The global chat (SQL: lib/queries/chat.ts). Ids are 64-bit and grow with time, so paging is a
 * keyset on the primary key (a deep page costs what the first does). Reads are one indexed query each.
 */

/** One page, oldest first within the page; `before` pages to older messages. */
export async function listChatMessages(options: {
  limit: number;
  before?: bigint;
  /** The caller's world (0 live); a post is in its author's world. */
  worldId: number;
  /** The API caller; its read may go to a read replica (lib/database/replicas.ts). Absent: the primary. */
  readAs?: ReadCaller;
}): Promise<{ messages: ChatMessageRecord[]; hasMore: boolean }> {
  const { limit, before, worldId, readAs } = options;
  const reader = readAs && readerFor(readAs);
  // One extra row tells whether an older page exists.
  const rows =
    before === undefined
      ? await listNewestChatMessages(limit + 1, worldId, reader)
      : await listChatMessagesBefore(before, limit + 1, worldId, reader);
  const page = rows.slice(0, limit).reverse();
  return { messages: page, hasMore: rows.length > limit };
}

/**
 * Posts as `userId`: ONE statement claims the user's CHAT_POST_INTERVAL_SECONDS slot and inserts the
 * message only if the claim succeeded (concurrent posts by one user serialize on the user's row, in
 * every process). A muted user or a reply to a missing message claims nothing; the follow-up read
 * says which rule failed.
 */
export async function postChatMessage(
  userId: number,
  input: { text: string; replyToId?: bigint },
  /** The API client posting; its and the user's reads stay on the primary until replicas have the post. */
  clientId?: string,
): Promise<ChatMessageRecord> {
  const replyTo = input.replyToId ?? null;
  const result = await insertChatMessage(userId, input.text, replyTo);
  if (result.outcome === "posted") {
    // Read-your-writes (lib/database/replicas.ts); returns at once without read replicas.
    const announced = noteWrite({ kind: "user", userId, clientId });
    if (announced) await announced;
    return result.message;
  }
  if (result.outcome === "reply_vanished") throw new AppError("invalid_reply", "reply_to_id does not reference a message.");

  const why = await findChatPostState(userId, replyTo);
  if (!why || why.disabled) throw new AppError("forbidden", "This account cannot post.");
  if (why.muted) throw new AppError("forbidden", "You are muted and cannot post to the global chat.");
  if (!why.replyOk) throw new AppError("invalid_reply", "reply_to_id does not reference a message.");
  const retryAfter = Math.max(1, Math.ceil((why.waitMs ?? 0) / 1000));
  throw new AppError("rate_limited", `You can post one message every ${CHAT_POST_INTERVAL_SECONDS} seconds.`, {
    headers: { "Retry-After": String(retryAfter) },
  });
}
