import { pool } from "../database/client";
import { AppError } from "../errors";
import { CHAT_POST_INTERVAL_SECONDS } from "../schemas/chat";

/**
 * The global chat. Ids are 64-bit and grow with time, so paging is a keyset on the primary key
 * (a deep page costs what the first does). Reads are one indexed query each.
 */
export interface ChatMessageRecord {
  id: string;
  text: string;
  replyToId: string | null;
  media: unknown;
  reactions: unknown;
  editedAt: number | null;
  createdAt: number;
  author: { handle: string; displayName: string; avatarUrl: string };
}

interface ChatRow {
  id: string;
  text: string;
  reply_to_id: string | null;
  media: unknown;
  reactions: unknown;
  edited_at: string | null;
  created_at: string;
  handle: string;
  display_name: string;
  avatar_url: string;
}

const MESSAGE_COLUMNS = `
  m.id::text AS id, m.text, m."replyToId"::text AS reply_to_id, m.media, m.reactions,
  floor(extract(epoch FROM m."editedAt"))::int8 AS edited_at,
  floor(extract(epoch FROM m."createdAt"))::int8 AS created_at,
  u.handle, u."displayName" AS display_name, u."avatarUrl" AS avatar_url`;

function toRecord(r: ChatRow): ChatMessageRecord {
  return {
    id: r.id,
    text: r.text,
    replyToId: r.reply_to_id,
    media: r.media,
    reactions: r.reactions,
    editedAt: r.edited_at === null ? null : Number(r.edited_at),
    createdAt: Number(r.created_at),
    author: { handle: r.handle, displayName: r.display_name, avatarUrl: r.avatar_url },
  };
}

/**
 * One page, oldest first within the page; `before` pages to older messages. Two statements rather
 * than `$1 IS NULL OR id < $1`, which a cached generic plan could not use as an index bound.
 */
export async function listChatMessages(options: {
  limit: number;
  before?: bigint;
}): Promise<{ messages: ChatMessageRecord[]; hasMore: boolean }> {
  const { limit, before } = options;
  const { rows } =
    before === undefined
      ? await pool.query<ChatRow>({
          name: "api_chat_newest",
          text: `SELECT ${MESSAGE_COLUMNS} FROM "ChatMessage" m JOIN "User" u ON u.id = m."authorId"
                 ORDER BY m.id DESC LIMIT $1`,
          values: [limit + 1],
        })
      : await pool.query<ChatRow>({
          name: "api_chat_before",
          text: `SELECT ${MESSAGE_COLUMNS} FROM "ChatMessage" m JOIN "User" u ON u.id = m."authorId"
                 WHERE m.id < $2::int8 ORDER BY m.id DESC LIMIT $1`,
          values: [limit + 1, before.toString()],
        });
  const page = rows.slice(0, limit).reverse().map(toRecord);
  return { messages: page, hasMore: rows.length > limit };
}

/**
 * Posts as `userId`. ONE statement claims the user's 2-second slot with a conditional UPDATE of
 * User.lastChatPostAt (row lock: concurrent posts by one user serialize, and all but one find the
 * slot taken, in every process) and inserts the message only if the claim succeeded. A muted user
 * or a reply to a missing message claims nothing; the follow-up read says which rule failed.
 */
const POST_SQL = `
  WITH author AS (
    UPDATE "User" SET "lastChatPostAt" = timezone('UTC', now())::timestamp(3)
    WHERE id = $1 AND NOT muted AND NOT disabled
      AND ("lastChatPostAt" IS NULL
           OR "lastChatPostAt" <= timezone('UTC', now()) - interval '${CHAT_POST_INTERVAL_SECONDS} seconds')
      AND ($3::int8 IS NULL OR EXISTS (SELECT 1 FROM "ChatMessage" WHERE id = $3::int8))
    RETURNING id, handle, "displayName", "avatarUrl", "lastChatPostAt"
  ), m AS (
    INSERT INTO "ChatMessage" ("authorId", text, "replyToId", "createdAt")
    SELECT id, $2, $3::int8, "lastChatPostAt" FROM author
    RETURNING id, text, "replyToId", media, reactions, "editedAt", "createdAt"
  )
  SELECT ${MESSAGE_COLUMNS} FROM m, author u`;

export async function postChatMessage(userId: number, input: { text: string; replyToId?: bigint }): Promise<ChatMessageRecord> {
  const replyTo = input.replyToId === undefined ? null : input.replyToId.toString();
  let rows: ChatRow[];
  try {
    ({ rows } = await pool.query<ChatRow>({ name: "api_chat_post", text: POST_SQL, values: [userId, input.text, replyTo] }));
  } catch (error) {
    // The replied-to message vanished between the check and the insert (foreign key).
    if ((error as { code?: string }).code === "23503") throw new AppError("invalid_reply", "reply_to_id does not reference a message.");
    throw error;
  }
  if (rows[0]) return toRecord(rows[0]);

  const { rows: [why] } = await pool.query<{ muted: boolean; disabled: boolean; reply_ok: boolean; wait_ms: string | null }>(
    `SELECT muted, disabled,
            ($2::int8 IS NULL OR EXISTS (SELECT 1 FROM "ChatMessage" WHERE id = $2::int8)) AS reply_ok,
            floor(extract(epoch FROM ("lastChatPostAt" + interval '${CHAT_POST_INTERVAL_SECONDS} seconds' - timezone('UTC', now()))) * 1000)::int8 AS wait_ms
     FROM "User" WHERE id = $1`,
    [userId, replyTo],
  );
  if (!why || why.disabled) throw new AppError("forbidden", "This account cannot post.");
  if (why.muted) throw new AppError("forbidden", "You are muted and cannot post to the global chat.");
  if (!why.reply_ok) throw new AppError("invalid_reply", "reply_to_id does not reference a message.");
  const retryAfter = Math.max(1, Math.ceil(Number(why.wait_ms ?? 0) / 1000));
  throw new AppError("rate_limited", `You can post one message every ${CHAT_POST_INTERVAL_SECONDS} seconds.`, {
    headers: { "Retry-After": String(retryAfter) },
  });
}
