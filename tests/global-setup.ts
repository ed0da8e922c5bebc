import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { findFreePort, startEmbeddedPostgres, type EmbeddedDatabase } from "../lib/database/embedded";
import { prepareTemplates } from "./helpers/templates";

declare module "vitest" {
  export interface ProvidedContext {
    pgServerUrl: string;
  }
}

let embedded: EmbeddedDatabase | undefined;
let dir: string | undefined;

/**
 * ONE embedded PostgreSQL for the whole run. Two template databases are built once (migrated, and
 * migrated + demo world); each test file clones the one it needs (CREATE DATABASE … TEMPLATE).
 */
export async function setup(project: TestProject): Promise<void> {
  dir = await mkdtemp(path.join(os.tmpdir(), "platform-test-pg-"));
  embedded = await startEmbeddedPostgres({ dir, port: await findFreePort() });
  await prepareTemplates(embedded.serverUrl);
  project.provide("pgServerUrl", embedded.serverUrl);
}

export async function teardown(): Promise<void> {
  await embedded?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
}
