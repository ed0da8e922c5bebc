import pg from "pg";
import { ensureDatabase, startEmbeddedPostgres, type EmbeddedDatabase } from "./embedded";
import { migrate } from "./migrate";
import type { Env } from "../env";

export interface PreparedDatabase {
  url: string;
  embedded?: EmbeddedDatabase;
  migrationsApplied: string[];
}

/** Turns a connection failure into one line an operator can act on, without the password. */
export function describeConnectionError(error: unknown, url: string): string {
  const e = error as { code?: string; message?: string };
  let where = "the database";
  try {
    const u = new URL(url);
    where = `${u.hostname}:${u.port || 5432}/${u.pathname.slice(1)}`;
  } catch {
    /* keep the generic name */
  }
  switch (e.code) {
    case "ECONNREFUSED":
      return `Cannot connect to PostgreSQL at ${where}: connection refused (is it running?)`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `Cannot connect to PostgreSQL at ${where}: host not found`;
    case "ETIMEDOUT":
      return `Cannot connect to PostgreSQL at ${where}: timed out`;
    case "28P01":
      return `Cannot connect to PostgreSQL at ${where}: password authentication failed`;
    case "3D000":
      return `Cannot connect to PostgreSQL at ${where}: database does not exist`;
    default:
      return `Cannot connect to PostgreSQL at ${where}: ${e.message ?? String(error)}`.split("\n")[0]!;
  }
}

async function checkConnection(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT 1");
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * With DATABASE_URL: use that server and apply pending migrations (never drop or reset), over
 * DATABASE_DIRECT_URL when DATABASE_URL is a pooler.
 * Without: start the embedded PostgreSQL under DATA_DIR, create the database, migrate.
 */
export async function prepareDatabase(config: Env, log: (line: string) => void): Promise<PreparedDatabase> {
  let url = config.DATABASE_URL;
  let embedded: EmbeddedDatabase | undefined;
  if (!url) {
    log(`Starting the embedded PostgreSQL (data in ${config.DATA_DIR}/pg, port ${config.EMBEDDED_PG_PORT})…`);
    embedded = await startEmbeddedPostgres({ dir: config.DATA_DIR, port: config.EMBEDDED_PG_PORT, onNotice: log });
    try {
      await ensureDatabase(embedded.serverUrl, "platform");
    } catch (error) {
      await embedded.stop();
      throw error;
    }
    url = embedded.url("platform");
  }
  try {
    await checkConnection(url);
  } catch (error) {
    await embedded?.stop();
    throw new Error(describeConnectionError(error, url));
  }
  // Migrations hold a session advisory lock, which a transaction pooler (DATABASE_URL at
  // PgBouncer) would not keep: they run on DATABASE_DIRECT_URL (DATABASE_URL when unset).
  const directUrl = config.DATABASE_URL ? (config.DATABASE_DIRECT_URL ?? url) : url;
  try {
    if (directUrl !== url) await checkConnection(directUrl);
  } catch (error) {
    throw new Error(describeConnectionError(error, directUrl).replace("PostgreSQL", "PostgreSQL (DATABASE_DIRECT_URL)"));
  }
  try {
    const migrationsApplied = await migrate(directUrl);
    return { url, embedded, migrationsApplied };
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
}
