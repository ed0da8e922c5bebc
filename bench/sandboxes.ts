/**
 * "with sandboxes of 100 apps present in the database": before the cases, N pending API
 * clients, each with its sandbox and the sandbox's synthetic world built by the product itself
 * (lib/services/sandboxes.ts ensureSandboxWorld: the demo-world generator, 50 people and 300 chat
 * messages each, in the live tables under its own worldId), so the live hot paths are measured
 * beside N × 50 sandbox people and N × 300 sandbox messages.
 *
 * The apps and sandbox rows are written with SQL (as the migration made sandboxes for older apps);
 * only the worlds need the product's code. Idempotent: a second run on the same database (bench
 * DATABASE_URL reuse) builds only the worlds still missing.
 *
 *   DATABASE_URL=… npx tsx bench/sandboxes.ts --count 100 --owner-id 1
 * prints one JSON line at the end: { "apps", "built", "people", "messages", "seconds" }.
 */
import { parseArgs } from "node:util";
import pg from "pg";
import { generateClientId } from "../lib/services/apps";
import { sandboxClientId } from "../lib/schemas/sandboxes";

/** Names of the bench's sandbox apps: "Bench sandbox app 001"… */
export const SANDBOX_APP_PREFIX = "Bench sandbox app ";
/** Worlds built at once: each build is one transaction of a few thousand rows; two keep both cores busy. */
const CONCURRENCY = 2;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { count: { type: "string" }, "owner-id": { type: "string" } }, strict: true });
  const count = Number(values.count);
  const ownerId = Number(values["owner-id"]);
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(ownerId)) throw new Error("usage: bench/sandboxes.ts --count N --owner-id ID");
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set");
  const started = Date.now();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows: existing } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM "Application" WHERE name LIKE $1`, [`${SANDBOX_APP_PREFIX}%`]);
    const missing = count - Number(existing[0]!.n);
    if (missing > 0) {
      const ids = Array.from({ length: missing }, () => generateClientId("api"));
      const names = Array.from({ length: missing }, (_, i) => `${SANDBOX_APP_PREFIX}${String(Number(existing[0]!.n) + i + 1).padStart(3, "0")}`);
      await client.query(
        `WITH apps AS (
           INSERT INTO "Application" ("clientId", name, type, status, "ownerId", "redirectUris", "postLogoutRedirectUris", scopes, "firstParty", "deviceFlow", "updatedAt")
           SELECT c, n, 'api', 'pending', $3, '{}', '{}', ARRAY['svc:chat.read','svc:directory.read'], false, false, now()
           FROM unnest($1::text[], $2::text[]) AS t(c, n)
           RETURNING id, "clientId"
         )
         INSERT INTO "Sandbox" ("applicationId", "clientId") SELECT id, $4 || "clientId" FROM apps`,
        [ids, names, ownerId, sandboxClientId("")],
      );
    }
    const { rows: pending } = await client.query<{ id: number }>(
      `SELECT s.id FROM "Sandbox" s JOIN "Application" a ON a.id = s."applicationId"
       WHERE a.name LIKE $1 AND s."generatedAt" IS NULL ORDER BY s.id`,
      [`${SANDBOX_APP_PREFIX}%`],
    );
    // The product's own world builder, imported only now: its database client reads DATABASE_URL.
    const { ensureSandboxWorld } = await import("../lib/services/sandboxes");
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < pending.length) await ensureSandboxWorld(pending[next++]!.id);
      }),
    );
    const { rows: sizes } = await client.query<{ people: string; messages: string }>(
      `SELECT (SELECT count(*) FROM "User" WHERE "worldId" <> 0) AS people, (SELECT count(*) FROM "ChatMessage" WHERE "worldId" <> 0) AS messages`,
    );
    // Fresh statistics, as after the large seed (bench/seed-large.ts).
    await client.query(`ANALYZE "User"; ANALYZE "ChatMessage"; ANALYZE "DirectoryLink"`);
    process.stdout.write(
      `${JSON.stringify({ apps: count, built: pending.length, people: Number(sizes[0]!.people), messages: Number(sizes[0]!.messages), seconds: (Date.now() - started) / 1000 })}\n`,
    );
  } finally {
    await client.end();
  }
  const { db } = await import("../lib/database/client");
  await db.$disconnect();
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`Error: ${error.message}\n`);
    process.exit(1);
  },
);
