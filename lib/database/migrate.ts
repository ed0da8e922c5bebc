import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { inPgTransaction } from "./transaction";

/**
 * Applies pending Prisma migrations over plain `pg`, recording them in Prisma's own
 * `_prisma_migrations` layout so `prisma migrate deploy`/`status` elsewhere see the same state.
 * Prisma's migrate commands cannot run through the driver adapter here (prisma/prisma#27403).
 * One transaction per migration; an advisory lock makes concurrent start-ups safe.
 */
const LOCK_ID = 72707369; // Prisma's own advisory lock id for migrations.

const CREATE_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export const MIGRATIONS_DIR = path.resolve(process.cwd(), "prisma", "migrations");

export async function listMigrations(dir = MIGRATIONS_DIR): Promise<{ name: string; sql: string; checksum: string }[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    }),
  );
}

/** Returns the names of the migrations it applied. */
export async function migrate(databaseUrl: string, dir = MIGRATIONS_DIR): Promise<string[]> {
  const migrations = await listMigrations(dir);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query("SELECT pg_advisory_lock($1)", [LOCK_ID]);
    await client.query(CREATE_TABLE);
    const done = await client.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
      `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
    );
    const finished = new Map(done.rows.filter((r) => r.finished_at).map((r) => [r.migration_name, r.checksum]));
    const failed = done.rows.find((r) => !r.finished_at);
    if (failed) {
      throw new Error(`Migration ${failed.migration_name} failed earlier and must be resolved by hand.`);
    }
    for (const m of migrations) {
      const known = finished.get(m.name);
      if (known !== undefined) {
        if (known !== m.checksum) {
          throw new Error(`Migration ${m.name} was changed after it was applied.`);
        }
        continue;
      }
      const id = randomUUID();
      try {
        await inPgTransaction(client, async () => {
          await client.query(m.sql);
          await client.query(
            `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count)
             VALUES ($1, $2, now(), $3, now(), 1)`,
            [id, m.checksum, m.name],
          );
        });
      } catch (error) {
        throw new Error(`Migration ${m.name} failed: ${(error as Error).message}`);
      }
      applied.push(m.name);
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [LOCK_ID]).catch(() => {});
    await client.end();
  }
  return applied;
}
