import { afterAll, beforeAll, expect, it } from "vitest";
import { cliJson } from "../helpers/cli";
import { query } from "../helpers/db";
import { clientCredentialsToken, createTestApp } from "../helpers/oidc";
import { newDatabase, startServer, type TestServer } from "../helpers/server";

/**
 * Two processes on one database meter the same app, the same route and the same minutes;
 * their counts add up in PostgreSQL (additive upserts), and SIGTERM writes what each process still
 * holds, so no answered request goes uncounted. The periodic flush is set far beyond the test, so
 * every count reaches the database through the shutdown flush alone.
 */
const PER_SERVER = 120;
const PUBLIC_URL = "http://usage-flush.invalid";

let databaseUrl: string;
let servers: TestServer[] = [];

beforeAll(async () => {
  databaseUrl = await newDatabase({ seed: true });
  // One public URL for both (as behind a balancer), so a token from one is valid on the other.
  const env = { APP_URL: PUBLIC_URL, USAGE_FLUSH_MS: "600000" };
  servers = await Promise.all([startServer({ databaseUrl, env }), startServer({ databaseUrl, env })]);
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

it("counts every request of two processes after SIGTERM, none lost, none twice", async () => {
  const app = (await createTestApp(databaseUrl, { type: "api", scopes: ["svc:directory.read"] })) as { clientId: string; clientSecret: string };
  const local = (s: TestServer) => ({ url: s.url, issuer: `${s.url}/realms/platform` });
  const token = (await clientCredentialsToken(local(servers[0]!), app.clientId, app.clientSecret)).access_token;
  await clientCredentialsToken(local(servers[1]!), app.clientId, app.clientSecret);

  const statuses = await Promise.all(
    servers.flatMap((s) =>
      Array.from({ length: PER_SERVER }, async (_, i) => {
        const res = await fetch(`${s.url}/api/v1/users/${i % 10 === 0 ? "nobody-here" : "alice"}`, {
          headers: { authorization: `Bearer ${token}` },
        });
        await res.text();
        return res.status;
      }),
    ),
  );
  const ok = statuses.filter((s) => s === 200).length;
  expect(ok + statuses.filter((s) => s === 404).length).toBe(2 * PER_SERVER);
  const [before] = await query<{ n: number }>(databaseUrl, `SELECT count(*)::int AS n FROM "UsageCount" WHERE "clientId" = $1`, [app.clientId]);
  expect(before!.n).toBe(0);

  const codes = await Promise.all(servers.map((s) => s.stop()));
  expect(codes).toEqual([0, 0]);

  const usage = await cliJson<{ total: number; routes: { route: string; by_status: { status: number; count: number }[] }[] }>(
    databaseUrl,
    ["apps", "usage", app.clientId],
  );
  expect(usage.total).toBe(2 * PER_SERVER);
  const byRoute = Object.fromEntries(usage.routes.map((r) => [r.route, r.by_status.map((b) => [b.status, b.count])]));
  expect(byRoute["GET /users/{username}"]).toEqual([
    [200, ok],
    [404, 2 * PER_SERVER - ok],
  ]);
  expect(byRoute["token:client_credentials"]).toEqual([[200, 2]]);
  // The request log holds every API request and, since issue 27, each token request (the two above).
  const [logged] = await query<{ n: number; tokens: number }>(
    databaseUrl,
    `SELECT count(*) FILTER (WHERE route NOT LIKE 'token:%')::int AS n, count(*) FILTER (WHERE route LIKE 'token:%')::int AS tokens FROM "RequestLog" WHERE "clientId" = $1`,
    [app.clientId],
  );
  expect(logged).toEqual({ n: 2 * PER_SERVER, tokens: 2 });
});
