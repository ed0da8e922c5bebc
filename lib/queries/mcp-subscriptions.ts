// Data layer (STYLE.md Layout): SQL over pg, one statement per export; the rules stay in lib/services/mcp-sessions.ts.
import type pg from "pg";
import { pool } from "../database/client";

/** Whose session it is: the app and, for a user token, the person whose token subscribed first. */
export interface McpSessionOwner {
  clientId: string;
  userId: number | null;
}

/** A session's owner and subscribed URIs (no owner: the session subscribed to nothing yet). */
export interface McpSessionRow {
  owner: McpSessionOwner | null;
  uris: string[];
}

type Queryable = Pick<pg.ClientBase, "query">;

export async function readMcpSession(sessionId: string, client: Queryable = pool): Promise<McpSessionRow> {
  const { rows } = await client.query<{ uri: string; clientId: string; userId: number | null }>(
    `SELECT uri, "clientId", "userId" FROM "McpSubscription" WHERE "sessionId" = $1 ORDER BY uri`,
    [sessionId],
  );
  return { owner: rows[0] ? { clientId: rows[0].clientId, userId: rows[0].userId } : null, uris: rows.map((r) => r.uri) };
}

/** Serializes the changes of one session (until the transaction ends): each announces the URIs it leaves. */
export async function lockMcpSession(client: Queryable, sessionId: string): Promise<void> {
  await client.query(`SELECT pg_advisory_xact_lock(hashtext('McpSubscription:' || $1))`, [sessionId]);
}

export async function insertMcpSubscription(client: Queryable, sessionId: string, uri: string, owner: McpSessionOwner): Promise<void> {
  await client.query(
    `INSERT INTO "McpSubscription" ("sessionId", uri, "clientId", "userId", "createdAt", "seenAt")
     VALUES ($1, $2, $3, $4, timezone('UTC', now()), timezone('UTC', now())) ON CONFLICT ("sessionId", uri) DO NOTHING`,
    [sessionId, uri, owner.clientId, owner.userId],
  );
}

export async function deleteMcpSubscriptions(client: Queryable, sessionId: string, uri: string | null): Promise<number> {
  const { rowCount } = await client.query(`DELETE FROM "McpSubscription" WHERE "sessionId" = $1 AND ($2::text IS NULL OR uri = $2)`, [sessionId, uri]);
  return rowCount ?? 0;
}

/** The session's stream opened or closed: it is in use (retention counts from here). */
export async function touchMcpSession(sessionId: string): Promise<void> {
  await pool.query(`UPDATE "McpSubscription" SET "seenAt" = timezone('UTC', now()) WHERE "sessionId" = $1`, [sessionId]);
}

/** Retention: sessions whose stream has been gone for `idleSeconds`. */
export async function deleteIdleMcpSessions(idleSeconds: number): Promise<number> {
  const { rowCount } = await pool.query(
    `DELETE FROM "McpSubscription" WHERE "sessionId" IN (
       SELECT "sessionId" FROM "McpSubscription" GROUP BY "sessionId" HAVING max("seenAt") <= timezone('UTC', now()) - make_interval(secs => $1))`,
    [idleSeconds],
  );
  return rowCount ?? 0;
}
