// Data layer (STYLE.md Layout): hot-path SQL over pg, one statement per export; the rules stay in lib/services/chat.ts.
import { pool } from "../database/client";
import type { Reader } from "../database/replicas";
import { CHAT_POST_INTERVAL_SECONDS } from "../schemas/chat";
import { insertEventSql } from "./events";

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

export interface ChatRow {
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

export const MESSAGE_COLUMNS = `
  m.id::text AS id, m.text, m."replyToId"::text AS reply_to_id, m.media, m.reactions,
  floor(extract(epoch FROM m."editedAt"))::int8 AS edited_at,
  floor(extract(epoch FROM m."createdAt"))::int8 AS created_at,
  u.handle, u."displayName" AS display_name, u."avatarUrl" AS avatar_url`;

/** A message as the chat statements return it: also the stored data of a `chat.message.created` event. */
export function toRecord(r: ChatRow): ChatMessageRecord {
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

/*
 * Two paging statements rather than `$1 IS NULL OR id < $1`, which a cached generic plan could not
 * use as an index bound. Both return at most `count` messages, newest first.
 */

/**
 * The statements of the two functions below; bench/explain.ts shows their plans. One
 * world's chat ($2), read on ChatMessage_worldId_id_idx, which the world leads, so the live chat
 * (`= 0`) costs what it did before worlds existed. The world is written as a range and named in the
 * order: PostgreSQL folds an equality out of the order, and then read the primary key backwards,
 * filtering by world and stepping over every sandbox message newer than the live ones (30,000 in
 * the bench, 7 ms a page); with a range, only the world-led index gives the order
 * (tests/sandbox/query-plans.test.ts).
 */
export const NEWEST_CHAT_MESSAGES_STATEMENT = {
  name: "api_chat_newest_v3",
  text: `SELECT ${MESSAGE_COLUMNS} FROM "ChatMessage" m JOIN "User" u ON u.id = m."authorId"
         WHERE m."worldId" BETWEEN $2 AND $2 ORDER BY m."worldId" DESC, m.id DESC LIMIT $1`,
};
export const CHAT_MESSAGES_BEFORE_STATEMENT = {
  name: "api_chat_before_v3",
  text: `SELECT ${MESSAGE_COLUMNS} FROM "ChatMessage" m JOIN "User" u ON u.id = m."authorId"
         WHERE m."worldId" BETWEEN $3 AND $3 AND m.id < $2::int8 ORDER BY m."worldId" DESC, m.id DESC LIMIT $1`,
};

/** The newest `count` messages of world `worldId`, newest first. */
export async function listNewestChatMessages(count: number, worldId: number, reader: Reader = pool): Promise<ChatMessageRecord[]> {
  const { rows } = await reader.query<ChatRow>({ ...NEWEST_CHAT_MESSAGES_STATEMENT, values: [count, worldId] });
  return rows.map(toRecord);
}

/** At most `count` messages of world `worldId` older than `before`, newest first. */
export async function listChatMessagesBefore(before: bigint, count: number, worldId: number, reader: Reader = pool): Promise<ChatMessageRecord[]> {
  const { rows } = await reader.query<ChatRow>({ ...CHAT_MESSAGES_BEFORE_STATEMENT, values: [count, before.toString(), worldId] });
  return rows.map(toRecord);
}

/**
 * ONE statement claims the user's posting slot with a conditional UPDATE of User.lastChatPostAt
 * (row lock: concurrent posts by one user serialize, and all but one find the slot taken, in every
 * process) and inserts the message only if the claim succeeded, with its `chat.message.created`
 * event (the message and its event commit together or not at all; the Event trigger
 * queues the fan-out). A muted or disabled user, a slot
 * still taken, or a reply to a missing message claims nothing.
 */
const POST_SQL = `
  WITH author AS (
    UPDATE "User" SET "lastChatPostAt" = timezone('UTC', now())::timestamp(3)
    WHERE id = $1 AND NOT muted AND NOT disabled
      AND ("lastChatPostAt" IS NULL
           OR "lastChatPostAt" <= timezone('UTC', now()) - interval '${CHAT_POST_INTERVAL_SECONDS} seconds')
      AND ($3::int8 IS NULL OR EXISTS (SELECT 1 FROM "ChatMessage" r WHERE r.id = $3::int8 AND r."worldId" = "User"."worldId"))
    RETURNING id, "worldId", handle, "displayName", "avatarUrl", "lastChatPostAt"
  ), m AS (
    INSERT INTO "ChatMessage" ("worldId", "authorId", text, "replyToId", "createdAt")
    SELECT "worldId", id, $2, $3::int8, "lastChatPostAt" FROM author
    RETURNING id, text, "replyToId", media, reactions, "editedAt", "createdAt"
  ), posted AS (
    SELECT ${MESSAGE_COLUMNS} FROM m, author u
  ), event AS (
    -- The event is of the author's world; fan-out and the stream deliver it in that world only.
    ${insertEventSql({ type: "'chat.message.created'", worldId: 'author."worldId"', data: "to_jsonb(posted)" }, "posted, author")}
  )
  SELECT * FROM posted`;

/**
 * `posted`: the message; `unclaimed`: nothing written (findChatPostState says why);
 * `reply_vanished`: the replied-to message was deleted between the check and the insert (foreign key).
 */
export type ChatInsertResult =
  | { outcome: "posted"; message: ChatMessageRecord }
  | { outcome: "unclaimed" }
  | { outcome: "reply_vanished" };

export async function insertChatMessage(userId: number, text: string, replyTo: bigint | null): Promise<ChatInsertResult> {
  let rows: ChatRow[];
  try {
    ({ rows } = await pool.query<ChatRow>({
      name: "api_chat_post_v2",
      text: POST_SQL,
      values: [userId, text, replyTo === null ? null : replyTo.toString()],
    }));
  } catch (error) {
    if ((error as { code?: string }).code === "23503") return { outcome: "reply_vanished" };
    throw error;
  }
  return rows[0] ? { outcome: "posted", message: toRecord(rows[0]) } : { outcome: "unclaimed" };
}

export interface ChatPostState {
  muted: boolean;
  disabled: boolean;
  /** No reply, or the replied-to message exists. */
  replyOk: boolean;
  /** Milliseconds until the user's posting slot opens (negative or null: open). */
  waitMs: number | null;
}

/** Why a post claimed nothing, read in a fresh statement; null when the user does not exist. */
export async function findChatPostState(userId: number, replyTo: bigint | null): Promise<ChatPostState | null> {
  const { rows: [why] } = await pool.query<{ muted: boolean; disabled: boolean; reply_ok: boolean; wait_ms: string | null }>(
    `SELECT muted, disabled,
            ($2::int8 IS NULL OR EXISTS (SELECT 1 FROM "ChatMessage" r WHERE r.id = $2::int8 AND r."worldId" = "User"."worldId")) AS reply_ok,
            floor(extract(epoch FROM ("lastChatPostAt" + interval '${CHAT_POST_INTERVAL_SECONDS} seconds' - timezone('UTC', now()))) * 1000)::int8 AS wait_ms
     FROM "User" WHERE id = $1`,
    [userId, replyTo === null ? null : replyTo.toString()],
  );
  if (!why) return null;
  return { muted: why.muted, disabled: why.disabled, replyOk: why.reply_ok, waitMs: why.wait_ms === null ? null : Number(why.wait_ms) };
}
