// Data layer (STYLE.md Layout): the Event table's one writer in TypeScript.

/**
 * SQL expressions for one event row. `id` defaults to a fresh `evt_…` made by the database;
 * `createdAt` is always the commit's UTC wall-clock (as Prisma writes its timestamp(3) columns), so
 * no writer picks its own. `clientId` and `userId` are left out of the column list when absent
 * (their default is null), which keeps each statement's text what it was before it was built here.
 */
export interface EventRowSql {
  id?: string;
  type: string;
  clientId?: string;
  userId?: string;
  worldId: string;
  data: string;
}

/**
 * The `INSERT INTO "Event"` of every statement that writes an event: `recordEvent`
 * (lib/events/outbox.ts), a consent (lib/services/consents.ts), a chat post (POST_SQL in
 * lib/queries/chat.ts, a CTE of the hot path's one statement) and the sandbox's synthetic post.
 * With `from`, one row per row of `SELECT … FROM from` (a CTE's: no row, no event); without it,
 * one row from `VALUES (…)`. The database side has one more writer, the Notification trigger
 * (prisma/migrations), which SQL cannot share with TypeScript; tests/lint/event-writer.test.ts
 * refuses any other.
 */
export function insertEventSql(row: EventRowSql, from?: string): string {
  const columns: [string, string | undefined][] = [
    ["id", row.id ?? "platform_public_id('evt')"],
    ["type", row.type],
    ['"clientId"', row.clientId],
    ['"userId"', row.userId],
    ['"worldId"', row.worldId],
    ["data", row.data],
    ['"createdAt"', "timezone('UTC', now())"],
  ];
  const set = columns.filter((c): c is [string, string] => c[1] !== undefined);
  const names = set.map(([name]) => name).join(", ");
  const values = set.map(([, value]) => value).join(", ");
  return from === undefined
    ? `INSERT INTO "Event" (${names})\n    VALUES (${values})`
    : `INSERT INTO "Event" (${names})\n    SELECT ${values}\n    FROM ${from}`;
}
