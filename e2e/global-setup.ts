import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
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
  // AI agents' metadata documents (e2e/agents.ts) are served over https with a self-signed
  // certificate the server trusts (NODE_EXTRA_CA_CERTS), as the MCP SDK insists on https client IDs.
  const agentTls = mkdtempSync(path.join(os.tmpdir(), "e2e-agent-tls-"));
  execFileSync(
    "openssl",
    ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj", "/CN=localhost",
      "-addext", "subjectAltName=DNS:localhost", "-keyout", path.join(agentTls, "key.pem"), "-out", path.join(agentTls, "cert.pem")],
    { stdio: "ignore" },
  );
  let server: TestServer;
  try {
    if (built.status === "rejected") throw built.reason;
    server = await startServer({
      next: true,
      databaseUrl: await createTestDatabase(postgres.serverUrl, { seed: true }),
      // Usage counts reach the Usage tab within a second (the default is 5 s). Webhooks
      //: receivers started by the journeys listen on 127.0.0.1 over http, and a failing
      // delivery runs through its retries in about a second (the default schedule spans days).
      // Agents' documents on this machine (CLIENT_METADATA_ALLOW_PRIVATE), over TLS it trusts.
      env: {
        USAGE_FLUSH_MS: "500",
        WEBHOOKS_ALLOW_PRIVATE: "1",
        WEBHOOK_RETRY_SCHEDULE: "0.5,0.5",
        CLIENT_METADATA_ALLOW_PRIVATE: "1",
        // Older MCP clients register themselves (RFC 7591): e2e/agents.spec.ts.
        DYNAMIC_REGISTRATION: "agents",
        NODE_EXTRA_CA_CERTS: path.join(agentTls, "cert.pem"),
      },
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
    [SERVER_ENV.agentTls]: agentTls,
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
      await rm(agentTls, { recursive: true, force: true });
    }
  };
}
