import { beforeAll, describe, expect, it } from "vitest";
import { explainStatement, type Statement } from "../../bench/explain";
import { CHAT_MESSAGES_BEFORE_STATEMENT, NEWEST_CHAT_MESSAGES_STATEMENT } from "../../lib/queries/chat";
import { LIST_DIRECTORY_USERS_STATEMENT } from "../../lib/queries/directory";
import { LIVE_WORLD_ID } from "../../lib/schemas/sandboxes";
import { withClient } from "../helpers/db";
import { newDatabase } from "../helpers/server";

/**
 * The live world's hot lists cost what they did before sandboxes existed, and a sandbox's
 * lists never walk the live rows. Sandbox people and messages are created after the live ones, so
 * they hold the newest ids; a plan that walks the primary key and filters by world steps over all
 * of them on every live chat page (the bench's 7c fell from 3,456 to 161 requests/s with 100
 * sandboxes). Each list must read the index its world leads, stepping over nothing, as a warm pool
 * connection runs it (bench/explain.ts: prepared, executed past the custom-plan tries, then
 * EXPLAIN ANALYZE).
 */
const LIVE_USERS = 20_000;
const LIVE_MESSAGES = 30_000;
const SANDBOX = 7;
const SANDBOX_USERS = 3_000;
const SANDBOX_MESSAGES = 5_000;

let databaseUrl: string;
let lastLiveUserId: number;
let oldestSandboxMessageId: string;

beforeAll(async () => {
  databaseUrl = await newDatabase({ seed: false });
  await withClient(databaseUrl, async (c) => {
    await c.query(`INSERT INTO "User" (handle, "displayName", "updatedAt") SELECT 'live' || g, 'Live ' || g, now() FROM generate_series(1, $1) g`, [LIVE_USERS]);
    lastLiveUserId = (await c.query<{ id: number }>(`SELECT max(id) AS id FROM "User"`)).rows[0]!.id;
    await c.query(
      `INSERT INTO "ChatMessage" ("authorId", text) SELECT $2 - (g % 1000), 'live message ' || g FROM generate_series(1, $1) g`,
      [LIVE_MESSAGES, lastLiveUserId],
    );
    // The sandbox, built later: newer ids than every live row.
    await c.query(
      `INSERT INTO "User" ("worldId", handle, "displayName", "updatedAt") SELECT $2, 'sbx' || g, 'Synthetic ' || g, now() FROM generate_series(1, $1) g`,
      [SANDBOX_USERS, SANDBOX],
    );
    await c.query(
      `INSERT INTO "ChatMessage" ("worldId", "authorId", text) SELECT $2, $3 + 1 + (g % 100), 'sandbox message ' || g FROM generate_series(1, $1) g`,
      [SANDBOX_MESSAGES, SANDBOX, lastLiveUserId],
    );
    oldestSandboxMessageId = (await c.query<{ id: string }>(`SELECT min(id)::text AS id FROM "ChatMessage" WHERE "worldId" = $1`, [SANDBOX])).rows[0]!.id;
    await c.query(`ANALYZE "User"; ANALYZE "ChatMessage"`);
  });
}, 120_000);

async function plan(statement: Statement, values: (string | number)[]): Promise<string> {
  return (await explainStatement(databaseUrl, "test", statement, values)).plan;
}

/** Rows the plan read and threw away, summed over its nodes. */
function rowsStepped(text: string): number {
  return [...text.matchAll(/Rows Removed by Filter: (\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
}

describe("the hot lists of one world never step over another world's rows", () => {
  it("the live chat's newest page reads ChatMessage_worldId_id_idx, past none of the newer sandbox messages", async () => {
    const text = await plan(NEWEST_CHAT_MESSAGES_STATEMENT, [21, LIVE_WORLD_ID]);
    expect(text).toContain("ChatMessage_worldId_id_idx");
    expect(rowsStepped(text), text).toBe(0);
  });

  it("a deep live chat page and a sandbox's pages do the same", async () => {
    for (const [statement, values] of [
      [CHAT_MESSAGES_BEFORE_STATEMENT, [21, oldestSandboxMessageId, LIVE_WORLD_ID]],
      [NEWEST_CHAT_MESSAGES_STATEMENT, [21, SANDBOX]],
      [CHAT_MESSAGES_BEFORE_STATEMENT, [21, String(BigInt(oldestSandboxMessageId) + 100n), SANDBOX]],
    ] as const) {
      const text = await plan(statement, [...values]);
      expect(text).toContain("ChatMessage_worldId_id_idx");
      expect(rowsStepped(text), `${statement.name}(${values.join(", ")})\n${text}`).toBe(0);
    }
  });

  it("the live directory's last page and a sandbox's first page read User_worldId_directoryVisible_id_idx, past no other world's people", async () => {
    for (const values of [
      [lastLiveUserId - 10, 26, LIVE_WORLD_ID],
      [0, 26, LIVE_WORLD_ID],
      [0, 26, SANDBOX],
    ]) {
      const text = await plan(LIST_DIRECTORY_USERS_STATEMENT, values);
      expect(text).toContain("User_worldId_directoryVisible_id_idx");
      expect(rowsStepped(text), `${LIST_DIRECTORY_USERS_STATEMENT.name}(${values.join(", ")})\n${text}`).toBe(0);
    }
  });
});
