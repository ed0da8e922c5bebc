import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { findFreePort, startEmbeddedPostgres, type EmbeddedDatabase } from "../../lib/database/embedded";
import { prepareTemplates } from "./templates";

export interface TestPostgres {
  /** Connection URL of the server's maintenance database; clone the templates from it (`createTestDatabase`). */
  serverUrl: string;
  /** Stops PostgreSQL and removes its data directory. */
  stop(): Promise<void>;
}

/**
 * ONE embedded PostgreSQL for a whole run (Vitest's global setup, Playwright's global setup), in a
 * fresh temporary directory, with the two template databases built once (migrated, and migrated +
 * demo world); each test file or suite clones the one it needs (CREATE DATABASE … TEMPLATE).
 */
export async function startTestPostgres(): Promise<TestPostgres> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "platform-test-pg-"));
  let embedded: EmbeddedDatabase | undefined;
  const stop = async () => {
    try {
      await embedded?.stop();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
  try {
    embedded = await startEmbeddedPostgres({ dir, port: await findFreePort() });
    await prepareTemplates(embedded.serverUrl);
  } catch (error) {
    await stop();
    throw error;
  }
  return { serverUrl: embedded.serverUrl, stop };
}
