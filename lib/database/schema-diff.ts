import { execFile } from "node:child_process";
import path from "node:path";
import pg from "pg";

/**
 * Development tools around `prisma/schema.prisma` and `prisma/migrations` (scripts/new-migration.ts
 * and the drift test in migrate.test.ts). Prisma's own `migrate dev` cannot run here through the
 * driver adapter (prisma/prisma#27403), but `migrate diff` between two schema files can; it only
 * needs a reachable PostgreSQL for the adapter, which is never written to.
 */
const ROOT = path.resolve(import.meta.dirname, "..", "..");
export const SCHEMA_FILE = path.join(ROOT, "prisma", "schema.prisma");
const PRISMA = path.join(ROOT, "node_modules", "prisma", "build", "index.js");

/** The SQL that takes a database from `from` (a schema file, or nothing) to the schema file `to`. */
export function migrationSql(options: { from: string | "empty"; to?: string; databaseUrl: string }): Promise<string> {
  const from = options.from === "empty" ? ["--from-empty"] : ["--from-schema-datamodel", options.from];
  const args = [PRISMA, "migrate", "diff", ...from, "--to-schema-datamodel", options.to ?? SCHEMA_FILE, "--script"];
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      args,
      { cwd: ROOT, env: { ...process.env, DATABASE_URL: options.databaseUrl, PRISMA_HIDE_UPDATE_MESSAGE: "1" }, maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`prisma migrate diff failed: ${stderr.trim().split("\n").pop() ?? error.message}`));
        else resolve(stdout);
      },
    );
  });
}

/** True when the SQL has no statement (Prisma answers "-- This is an empty migration."). */
export function isEmptyMigration(sql: string): boolean {
  return sql.split("\n").every((line) => line.trim() === "" || line.trim().startsWith("--"));
}

/**
 * Everything about the `public` schema that a migration can change, in a stable order: tables and
 * columns, enums, indexes and constraints (Prisma's own `_prisma_migrations` left out). Two
 * databases with equal snapshots have the same schema, up to column order (a column added by a
 * later migration comes last; Prisma does not care).
 */
/**
 * The partitions of partitioned tables (the usage tables, partitioned by day in their
 * migration, which Prisma's schema cannot express): left out, the parent stands for them. The parent's
 * indexes read `ON ONLY` in pg_indexes; the comparison reads them as the plain table's.
 */
const PARTITIONS = `SELECT c.relname::text FROM pg_class c WHERE c.relispartition AND c.relnamespace = 'public'::regnamespace`;

export async function schemaSnapshot(databaseUrl: string): Promise<Record<string, unknown[]>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const rows = async (sql: string) => (await client.query(sql)).rows;
  try {
    return {
      columns: await rows(`
        SELECT table_name, column_name, data_type, udt_name, is_nullable, column_default,
               character_maximum_length, numeric_precision, datetime_precision
        FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name <> '_prisma_migrations' AND table_name NOT IN (${PARTITIONS})
        ORDER BY table_name, column_name`),
      enums: await rows(`
        SELECT t.typname, array_agg(e.enumlabel ORDER BY e.enumsortorder) AS labels
        FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid
        WHERE t.typnamespace = 'public'::regnamespace GROUP BY t.typname ORDER BY t.typname`),
      indexes: await rows(`
        SELECT tablename, indexname, replace(indexdef, ' ON ONLY ', ' ON ') AS indexdef FROM pg_indexes
        WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' AND tablename NOT IN (${PARTITIONS})
        ORDER BY tablename, indexname`),
      constraints: await rows(`
        SELECT conrelid::regclass::text AS table_name, conname, pg_get_constraintdef(oid) AS definition
        FROM pg_constraint
        WHERE connamespace = 'public'::regnamespace AND conrelid::regclass::text <> '_prisma_migrations'
          AND NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = conrelid AND c.relispartition)
        ORDER BY 1, 2`),
    };
  } finally {
    await client.end();
  }
}
