import type { TestProject } from "vitest/node";
import { startTestPostgres, type TestPostgres } from "./helpers/postgres";

declare module "vitest" {
  export interface ProvidedContext {
    pgServerUrl: string;
  }
}

let postgres: TestPostgres | undefined;

/** ONE embedded PostgreSQL for the whole run; each test file clones a template database from it. */
export async function setup(project: TestProject): Promise<void> {
  postgres = await startTestPostgres();
  project.provide("pgServerUrl", postgres.serverUrl);
}

export async function teardown(): Promise<void> {
  await postgres?.stop();
}
