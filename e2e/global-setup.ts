import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { FullConfig } from "@playwright/test";
import { startTestPostgres, type TestPostgres } from "../tests/helpers/postgres";
import { ensureNextBuild, startServer, type TestServer } from "../tests/helpers/server";
import { createTestDatabase } from "../tests/helpers/templates";
import { SERVER_ENV } from "./server";

/**
 * Boots what the journeys run against, once: an embedded PostgreSQL (the Vitest run's helpers: a
 * temporary directory, template databases), a clone of the demo world, and the real server with
 * Next on it. The workers read the addresses from SERVER_ENV (Playwright starts them after this
 * returns, with this process's environment). The returned function is the global teardown: it stops
 * the server, then PostgreSQL, removes the data directory and keeps the server's log.
 */
export default async function globalSetup(config: FullConfig): Promise<() => Promise<void>> {
  const chromium = config.projects[0]?.use.launchOptions?.executablePath;
  if (chromium && !existsSync(chromium)) {
    throw new Error(`No Chromium at ${chromium}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  }
  // The build (minutes when the sources changed) and PostgreSQL (seconds) start side by side.
  const [built, started] = await Promise.allSettled([ensureNextBuild(), startTestPostgres()]);
  if (started.status === "rejected") throw started.reason;
  const postgres: TestPostgres = started.value;
  let server: TestServer;
  try {
    if (built.status === "rejected") throw built.reason;
    server = await startServer({
      next: true,
      databaseUrl: await createTestDatabase(postgres.serverUrl, { seed: true }),
      // Usage counts reach the Usage tab within a second (the default is 5 s). Webhooks
      //: receivers started by the journeys listen on 127.0.0.1 over http, and a failing
      // delivery runs through its retries in about a second (the default schedule spans days).
      env: { USAGE_FLUSH_MS: "500", WEBHOOKS_ALLOW_PRIVATE: "1", WEBHOOK_RETRY_SCHEDULE: "0.5,0.5" },
    });
  } catch (error) {
    await postgres.stop();
    throw error;
  }

  Object.assign(process.env, {
    [SERVER_ENV.url]: server.url,
    [SERVER_ENV.issuer]: server.issuer,
    [SERVER_ENV.apiUrl]: server.apiUrl,
    [SERVER_ENV.databaseUrl]: server.databaseUrl,
  });

  return async () => {
    try {
      const code = await server.stop();
      if (code !== 0) console.warn(`The server under the browser journeys exited with ${code}.`);
      const log = path.resolve(import.meta.dirname, "..", "test-results", "e2e-server.log");
      await mkdir(path.dirname(log), { recursive: true });
      await writeFile(log, `${server.logs.join("\n")}\n`);
    } finally {
      await postgres.stop();
    }
  };
}
