import { randomBytes } from "node:crypto";
import type { PoolClient } from "pg";
import { onChange, pgTransactionWithChanges } from "../database/changes";
import { logger } from "../logger";
import { AppError } from "../errors";
import {
  deleteIdleMcpSessions,
  deleteMcpSubscriptions,
  insertMcpSubscription,
  lockMcpSession,
  readMcpSession,
  type McpSessionOwner,
  type McpSessionRow,
} from "../queries/mcp-subscriptions";

/**
 * MCP sessions (lib/api/mcp): the server issues an `Mcp-Session-Id` at initialize and keeps nothing
 * for it until the client subscribes to a resource. Subscriptions are rows (lib/queries/mcp-subscriptions.ts),
 * so a subscribe sent to any process reaches the process that holds the session's stream: each change
 * is announced on the change channel (`mcp_session`) with the session's URIs as they now are.
 * A session belongs to the app and person whose token first subscribed; another token naming it is
 * told the session does not exist.
 */
export type { McpSessionOwner };
export { touchMcpSession } from "../queries/mcp-subscriptions";

export const MCP_SESSION_ID_PATTERN = /^mcs_[A-Za-z0-9_-]{24}$/;

/** A session's rows go a day after its stream was last seen (its tokens live an hour; a client reconnects). */
const MCP_SESSION_IDLE_SECONDS = 24 * 3600;

export function newMcpSessionId(): string {
  return `mcs_${randomBytes(18).toString("base64url")}`;
}

function sameOwner(a: McpSessionOwner, b: McpSessionOwner): boolean {
  return a.clientId === b.clientId && a.userId === b.userId;
}

function noSuchSession(): AppError {
  return new AppError("not_found", "This MCP session does not exist (or belongs to another token); initialize a new one.");
}

/** The session's subscriptions, as `owner` may see them: another's session does not exist. */
function urisOwnedBy(session: McpSessionRow, owner: McpSessionOwner): string[] {
  if (session.owner && !sameOwner(session.owner, owner)) throw noSuchSession();
  return session.uris;
}

export async function mcpSessionFor(sessionId: string, owner: McpSessionOwner): Promise<string[]> {
  return urisOwnedBy(await readMcpSession(sessionId), owner);
}

export async function subscribeMcpResource(sessionId: string, uri: string, owner: McpSessionOwner): Promise<void> {
  await changeSession(sessionId, owner, async (client, uris) => {
    await insertMcpSubscription(client, sessionId, uri, owner);
    return [...new Set([...uris, uri])].sort();
  });
}

export async function unsubscribeMcpResource(sessionId: string, uri: string, owner: McpSessionOwner): Promise<void> {
  await changeSession(sessionId, owner, async (client, uris) => {
    await deleteMcpSubscriptions(client, sessionId, uri);
    return uris.filter((u) => u !== uri);
  });
}

/** The client ended the session (DELETE /mcp): its subscriptions go, and its stream closes wherever it is. */
export async function endMcpSession(sessionId: string, owner: McpSessionOwner): Promise<void> {
  await changeSession(sessionId, owner, async (client) => {
    await deleteMcpSubscriptions(client, sessionId, null);
    return null;
  });
}

/**
 * One change of `owner`'s session, serialized with the session's others: `apply` writes it and
 * returns the URIs it leaves (null: the session ended), which the change channel announces.
 */
async function changeSession(
  sessionId: string,
  owner: McpSessionOwner,
  apply: (client: PoolClient, uris: string[]) => Promise<string[] | null>,
): Promise<void> {
  await pgTransactionWithChanges(async (client, announce) => {
    await lockMcpSession(client, sessionId);
    const uris = urisOwnedBy(await readMcpSession(sessionId, client), owner);
    await announce({ kind: "mcp_session", sessionId, uris: await apply(client, uris) });
  });
}

/** Told a session's subscribed URIs as they change, or null once the session ended. */
type SessionWatcher = (uris: readonly string[] | null) => void;

/** This process's watchers (the session streams it holds), by session id. */
const watchers = new Map<string, Set<SessionWatcher>>();
let listening = false;

function tell(sessionId: string, uris: readonly string[] | null): void {
  for (const watcher of watchers.get(sessionId) ?? []) watcher(uris);
}

/**
 * Follows session `sessionId`'s subscriptions, wherever they are changed: each change comes on the
 * change channel with the URIs it leaves; after the channel was interrupted each watched session is
 * read again. Returns the function that stops watching.
 */
export function watchMcpSession(sessionId: string, watcher: SessionWatcher): () => void {
  if (!listening) {
    listening = true;
    onChange((change) => {
      if (change.kind === "mcp_session") tell(change.sessionId, change.uris);
      if (change.kind !== "all") return;
      for (const id of watchers.keys()) {
        readMcpSession(id)
          .then((session) => tell(id, session.uris))
          .catch((error: Error) => logger.warn("mcp: session reread failed", { error: error.message }));
      }
    });
  }
  const held = watchers.get(sessionId) ?? new Set();
  watchers.set(sessionId, held);
  held.add(watcher);
  return () => {
    held.delete(watcher);
    if (!held.size && watchers.get(sessionId) === held) watchers.delete(sessionId);
  };
}

/** Retention (lib/services/usage.ts): drops sessions idle for a day. */
export function deleteIdleMcpSubscriptions(): Promise<number> {
  return deleteIdleMcpSessions(MCP_SESSION_IDLE_SECONDS);
}
