/** Where e2e/global-setup.ts tells the workers the server it started is. */
export const SERVER_ENV = {
  url: "E2E_SERVER_URL",
  issuer: "E2E_ISSUER",
  apiUrl: "E2E_API_URL",
  databaseUrl: "E2E_DATABASE_URL",
  /** A directory with key.pem and cert.pem: the agents' metadata documents are served over TLS with them (e2e/agents.ts). */
  agentTls: "E2E_AGENT_TLS_DIR",
} as const;

function read(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the browser tests with \`npx playwright test\` (its global setup starts the server).`);
  return value;
}

/**
 * The server under test. Read on use, not on import: Playwright loads the spec files to list the
 * tests before the global setup has started anything.
 */
export const server = {
  /** e.g. http://localhost:41234 */
  get url(): string {
    return read(SERVER_ENV.url);
  },
  get issuer(): string {
    return read(SERVER_ENV.issuer);
  },
  get apiUrl(): string {
    return read(SERVER_ENV.apiUrl);
  },
  /** The server's own database (a clone of the demo world), for asserting what was stored. */
  get databaseUrl(): string {
    return read(SERVER_ENV.databaseUrl);
  },
  get agentTls(): string {
    return read(SERVER_ENV.agentTls);
  },
};
