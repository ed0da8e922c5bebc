/**
 * Authors the migration for the changes made to prisma/schema.prisma:
 *
 *   npm run db:migration -- add_user_pronouns            # diff against the last migration's schema
 *   npm run db:migration -- add_user_pronouns --from v1  # …or against the schema at a git revision
 *
 * Writes prisma/migrations/<UTC timestamp>_<name>/migration.sql, which the server applies at its
 * next start (lib/database/migrate.ts). The "previous" schema is the one committed with the newest
 * migration, so commit schema.prisma and its migration together. Prisma's `migrate dev` cannot
 * run here (see lib/database/schema-diff.ts); `migrate diff` needs a reachable PostgreSQL, which
 * is DATABASE_URL or a temporary embedded one (nothing is written to either).
 */
import { execFileSync } from "node:child_process";
import { chmod, mkdtemp, mkdir, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { findFreePort, startEmbeddedPostgres, type EmbeddedDatabase } from "../lib/database/embedded";
import { MIGRATIONS_DIR } from "../lib/database/migrate";
import { isEmptyMigration, migrationSql, SCHEMA_FILE } from "../lib/database/schema-diff";

const git = (...args: string[]) => execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

/** The schema file as it was at `rev`, or at the commit that added the newest migration. */
async function previousSchema(rev: string | undefined, dir: string): Promise<string | "empty"> {
  const existing = (await readdir(MIGRATIONS_DIR, { withFileTypes: true }).catch(() => [])).filter((e) => e.isDirectory());
  if (!rev && existing.length === 0) return "empty";
  const commit = rev ?? git("log", "-1", "--format=%H", "--", path.relative(process.cwd(), MIGRATIONS_DIR)).trim();
  if (!commit) throw new Error("the newest migration is not committed yet: commit it (with its schema), or pass --from <revision>");
  let text: string;
  try {
    text = git("show", `${commit}:prisma/schema.prisma`);
  } catch {
    throw new Error(`no prisma/schema.prisma at ${commit}`);
  }
  const file = path.join(dir, "previous.prisma");
  await writeFile(file, text);
  return file;
}

function timestamp(now = new Date()): string {
  return now.toISOString().replace(/[-:T]/g, "").slice(0, 14);
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ options: { from: { type: "string" } }, allowPositionals: true });
  const name = positionals[0];
  if (!name || positionals.length > 1 || !/^[a-z0-9_]{1,60}$/.test(name)) {
    throw new Error("usage: npm run db:migration -- <name> [--from <git revision>]   (name: lower-case letters, digits and _)");
  }
  const work = await mkdtemp(path.join(os.tmpdir(), "platform-migration-"));
  // PostgreSQL runs as another system user and must traverse into it (nothing secret in here).
  await chmod(work, 0o755);
  let embedded: EmbeddedDatabase | undefined;
  try {
    const from = await previousSchema(values.from, work);
    let databaseUrl = process.env.DATABASE_URL;
    if (!databaseUrl) {
      embedded = await startEmbeddedPostgres({ dir: path.join(work, "pg"), port: await findFreePort() });
      databaseUrl = embedded.url("postgres");
    }
    const sql = await migrationSql({ from, databaseUrl });
    if (isEmptyMigration(sql)) throw new Error("prisma/schema.prisma has no changes since the last migration: nothing to write");
    const folder = path.join(MIGRATIONS_DIR, `${timestamp()}_${name}`);
    await mkdir(folder, { recursive: true });
    await writeFile(path.join(folder, "migration.sql"), sql);
    process.stdout.write(
      `Wrote ${path.relative(process.cwd(), path.join(folder, "migration.sql"))} (${path.relative(process.cwd(), SCHEMA_FILE)} → SQL).\n` +
        "Read it, then commit it with the schema change; `npm start` and the tests apply it.\n",
    );
  } finally {
    await embedded?.stop().catch(() => {});
    await rm(work, { recursive: true, force: true });
  }
}

// Errors are thrown, not exited on, so the temporary PostgreSQL is always stopped first.
main().catch((error) => {
  process.stderr.write(`Error: ${(error as Error).message}\n`);
  process.exit(1);
});
