import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runCli } from "../helpers/cli";
import { query } from "../helpers/db";
import { startLoadBalancer, type LoadBalancer } from "../helpers/load-balancer";
import { createTestApp, createTestUser, refreshTokens, setAppStatus, signInAndGetTokens, tokenRequest } from "../helpers/oidc";
import { startPgBouncer, type PgBouncer } from "../helpers/pgbouncer";
import { startServer, type TestServer } from "../helpers/server";
import { databaseUrl as databaseUrlOf } from "../helpers/templates";

/**
 * "PgBouncer in transaction mode": a real PgBouncer (Debian's package; .ci/run installs
 * it) pools the connections of two application processes. Their ordinary queries (Prisma and the
 * hot paths' `pg`) go through it, without named prepared statements (DATABASE_PGBOUNCER, implied by
 * DATABASE_DIRECT_URL); what needs a session of its own (the change channel's LISTEN, migrations and
 * their advisory lock) goes straight to PostgreSQL over DATABASE_DIRECT_URL. Without a direct URL
 * the LISTEN is deaf behind PgBouncer: the process says so and falls back to short cache lifetimes.
 */
const REDIRECT = "http://localhost:9/callback";
const PASSWORD = "pgbouncer passphrase";
const BOUND_MS = 250;
/** lib/database/migrate.ts's advisory lock (Prisma's id). */
const MIGRATION_LOCK_ID = 72707369;

let bouncer: PgBouncer;
beforeAll(async () => {
  bouncer = await startPgBouncer(inject("pgServerUrl"), { poolSize: 10 });
});
afterAll(async () => {
  await bouncer?.stop();
});

/** An empty database (no tables): the processes started on it apply every migration themselves. */
async function emptyDatabase(name: string): Promise<string> {
  const serverUrl = inject("pgServerUrl");
  const database = `${name}_${process.pid}_${Date.now().toString(36)}`;
  await query(serverUrl, `CREATE DATABASE ${database}`);
  return databaseUrlOf(serverUrl, database);
}

/** Two processes behind a round-robin balancer with one public URL (as tests/reliability/multi-process.test.ts). */
async function startPair(env: Record<string, string>, databaseUrl: string) {
  const backends: { port: number }[] = [];
  const lb = await startLoadBalancer(backends);
  const shared = { APP_URL: lb.url, ISSUER: `${lb.url}/realms/platform`, ...env };
  const servers = await Promise.all([startServer({ databaseUrl, env: shared }), startServer({ databaseUrl, env: shared })]);
  backends.push(...servers.map((s) => ({ port: s.port })));
  return { lb, servers, publicServer: { url: lb.url, issuer: `${lb.url}/realms/platform` } };
}


function clientFor(lb: LoadBalancer, publicServer: { url: string; issuer: string }) {
  async function api(index: number, pathname: string, init: { method?: string; token?: string; body?: unknown } = {}) {
    const res = await fetch(`${lb.url}/api/v1${pathname}`, {
      method: init.method ?? "GET",
      headers: {
        "x-backend": String(index),
        ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
        ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
      },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
  }
  async function grant(index: number, clientId: string, clientSecret: string) {
    return tokenRequest(
      publicServer,
      { grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret },
      { "x-backend": String(index) },
    );
  }
  async function appToken(index: number, clientId: string, clientSecret: string): Promise<string> {
    const { status, body } = await grant(index, clientId, clientSecret);
    expect(status, JSON.stringify(body)).toBe(200);
    return body.access_token as string;
  }
  const expectApi = async (index: number, pathname: string, token: string, status: number, code?: string) => {
    const res = await api(index, pathname, { token });
    expect(res.status, `backend ${index}: ${JSON.stringify(res.body)}`).toBe(status);
    if (code) expect(res.body.error.code).toBe(code);
  };
  const expectGrantRefused = async (index: number, clientId: string, secret: string) => {
    const { status, body } = await grant(index, clientId, secret);
    expect(status, JSON.stringify(body)).toBe(401);
    expect(body.error).toBe("invalid_client");
  };
  return { api, grant, appToken, expectApi, expectGrantRefused };
}

/** Polls both processes until `check(index)` holds for each; fails once `boundMs` passed since `since`. */
async function onBothWithin(boundMs: number, since: number, check: (index: number) => Promise<void>): Promise<number> {
  for (const index of [0, 1]) {
    for (;;) {
      try {
        await check(index);
        break;
      } catch (error) {
        if (Date.now() - since > boundMs) throw error;
        await new Promise((r) => setTimeout(r, 5));
      }
    }
  }
  return Date.now() - since;
}

describe("behind PgBouncer with DATABASE_DIRECT_URL", () => {
  let directUrl: string;
  let pooledUrl: string;
  let lb: LoadBalancer;
  let servers: TestServer[] = [];
  let publicServer: { url: string; issuer: string };
  let client: ReturnType<typeof clientFor>;
  const cliEnv = () => ({ DATABASE_URL: pooledUrl, DATABASE_DIRECT_URL: directUrl });

  /** The backends that waited for the migration lock, and whether PgBouncer's server connections were among them. */
  let lockWaiters: number[] = [];
  let bouncerPids: number[] = [];

  beforeAll(async () => {
    directUrl = await emptyDatabase("bouncer_direct");
    pooledUrl = bouncer.urlFor(directUrl);
    // Both started at once on an empty database, while the test holds the migration lock: both
    // wait for it at the same moment, then race to migrate when it is released.
    const holder = new pg.Client({ connectionString: directUrl });
    await holder.connect();
    try {
      await holder.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_ID]);
      const pair = startPair({ DATABASE_DIRECT_URL: directUrl }, pooledUrl);
      pair.catch(() => {});
      const deadline = Date.now() + 60_000;
      while (lockWaiters.length < 2 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        const { rows } = await holder.query<{ pid: number }>(
          `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
          [MIGRATION_LOCK_ID],
        );
        lockWaiters = rows.map((r) => r.pid);
      }
      bouncerPids = await bouncer.serverPids();
      await holder.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_ID]);
      ({ lb, servers, publicServer } = await pair);
    } finally {
      await holder.end();
    }
    client = clientFor(lb, publicServer);
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await lb?.close();
  });

  it("two processes migrating one empty database at once apply every migration exactly once", async () => {
    // Both waited for the migration lock at once, each on a connection of its own past PgBouncer.
    expect(lockWaiters).toHaveLength(2);
    expect(lockWaiters.filter((pid) => bouncerPids.includes(pid))).toEqual([]);
    const rows = await query<{ migration_name: string; n: string }>(
      directUrl,
      `SELECT migration_name, count(*) AS n FROM "_prisma_migrations" WHERE finished_at IS NOT NULL GROUP BY 1`,
    );
    expect(rows.length).toBeGreaterThan(10);
    expect(rows.filter((r) => Number(r.n) !== 1)).toEqual([]);
    // One of the two applied them (under the advisory lock on the direct connection), the other found nothing to do.
    const applied = servers.map((s) => s.logs.some((l) => l.startsWith("Applied migrations:")));
    expect(applied.filter(Boolean)).toHaveLength(1);
  });

  it("each process LISTENs on its own direct connection and hears its probe", async () => {
    const listeners = await query<{ n: string }>(
      directUrl,
      `SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'platform-changes' AND datname = current_database()`,
    );
    expect(Number(listeners[0]!.n)).toBe(2);
    for (const server of servers) {
      expect(server.logs.some((l) => l.includes("change channel: probe heard"))).toBe(true);
      expect(server.logs.some((l) => l.includes("change channel is deaf"))).toBe(false);
      // GET /readyz says so too (part 4).
      const ready = await fetch(`${server.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ status: "ready", checks: { database: "up", change_channel: "up" }, down: [] });
    }
  });

  it("sign-in, refresh and the API work through it, under concurrency, on both processes", async () => {
    const login = await createTestApp(directUrl, {
      type: "login",
      scopes: ["svc:chat.read", "svc:chat.write", "svc:pokes.write"],
      redirectUris: [REDIRECT],
      name: "PgBouncer app",
    });
    const api = await createTestApp(directUrl, { type: "api", scopes: ["svc:chat.read", "svc:directory.read"] });
    await createTestUser(directUrl, { handle: "pgb_ada", password: PASSWORD });
    await createTestUser(directUrl, { handle: "pgb_bob", password: PASSWORD });
    const tokens = await signInAndGetTokens(publicServer, { handle: "pgb_ada", password: PASSWORD, clientId: login.clientId, redirectUri: REDIRECT });
    const posted = await client.api(0, "/global-chat/messages", { method: "POST", token: tokens.access_token, body: { text: "through the pooler" } });
    expect(posted.status, JSON.stringify(posted.body)).toBe(201);
    const poked = await client.api(1, "/users/pgb_bob/poke", { method: "POST", token: tokens.access_token });
    expect(poked.status, JSON.stringify(poked.body)).toBeLessThan(300);
    const rotated = await refreshTokens(publicServer, login.clientId, tokens.refresh_token, { "x-backend": "1" });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);

    // Waves of parallel requests over both processes: the hot paths' statements run on whichever
    // server connection PgBouncer hands out (a named prepared statement would be missing on one).
    const failures: string[] = [];
    for (let wave = 0; wave < 8; wave++) {
      const replies = await Promise.all([
        ...Array.from({ length: 8 }, (_, i) => client.api(i % 2, "/me", { token: rotated.body.access_token as string })),
        ...Array.from({ length: 8 }, (_, i) => client.api(i % 2, "/global-chat/messages?limit=5", { token: rotated.body.access_token as string })),
        ...Array.from({ length: 8 }, (_, i) => client.api(i % 2, "/users/pgb_bob", { token: rotated.body.access_token as string })),
        ...Array.from({ length: 6 }, (_, i) => client.grant(i % 2, api.clientId, api.clientSecret!).then((r) => ({ status: r.status, body: r.body }))),
      ]);
      for (const r of replies) if (r.status !== 200) failures.push(`${r.status} ${JSON.stringify(r.body)}`);
    }
    expect(failures).toEqual([]);
    const chat = await client.api(1, "/global-chat/messages?limit=5", { token: rotated.body.access_token as string });
    expect(chat.body.data.messages.map((m: { text: string }) => m.text)).toContain("through the pooler");
  });

  describe("control actions reach both processes within 250 ms", () => {
    async function cliExit(args: string[]): Promise<{ exitedAt: number; stdout: string }> {
      const run = await runCli(pooledUrl, [...args, "--json"], { env: cliEnv() });
      const exitedAt = Date.now();
      expect(run.code, run.stderr).toBe(0);
      return { exitedAt, stdout: run.stdout };
    }
    async function userToken(handle: string, scopes: string[] = []) {
      const app = await createTestApp(directUrl, { type: "login", scopes, redirectUris: [REDIRECT] });
      await createTestUser(directUrl, { handle, password: PASSWORD });
      const tokens = await signInAndGetTokens(publicServer, { handle, password: PASSWORD, clientId: app.clientId, redirectUri: REDIRECT });
      return { app, tokens };
    }
    async function warm(pathname: string, token: string) {
      for (const index of [0, 1]) await client.expectApi(index, pathname, token, 200);
    }

    it("users disable: the user's token gets 403 on both", async () => {
      const { tokens } = await userToken("pgb_dora");
      await warm("/me", tokens.access_token);
      const { exitedAt } = await cliExit(["users", "disable", "pgb_dora"]);
      await onBothWithin(BOUND_MS, exitedAt, (i) => client.expectApi(i, "/me", tokens.access_token, 403, "forbidden"));
    });

    it("apps suspend, then approve: old tokens void and grants refused on both, then new grants work", async () => {
      const app = await createTestApp(directUrl, { type: "api", scopes: ["svc:chat.read"] });
      const old = await client.appToken(0, app.clientId, app.clientSecret!);
      await warm("/global-chat/messages?limit=1", old);
      await client.appToken(1, app.clientId, app.clientSecret!);
      const suspended = await cliExit(["apps", "suspend", app.clientId, "--reason", "Abuse report"]);
      await onBothWithin(BOUND_MS, suspended.exitedAt, async (i) => {
        await client.expectApi(i, "/global-chat/messages?limit=1", old, 401, "invalid_token");
        await client.expectGrantRefused(i, app.clientId, app.clientSecret!);
      });
      const reinstated = await cliExit(["apps", "approve", app.clientId]);
      await onBothWithin(BOUND_MS, reinstated.exitedAt, async (i) => {
        const fresh = await client.appToken(i, app.clientId, app.clientSecret!);
        await client.expectApi(1 - i, "/global-chat/messages?limit=1", fresh, 200);
      });
    });

    it("apps secrets roll: old tokens 401 and the old secret invalid_client on both", async () => {
      const app = await createTestApp(directUrl, { type: "api", scopes: ["svc:chat.read"] });
      const old = await client.appToken(1, app.clientId, app.clientSecret!);
      await warm("/global-chat/messages?limit=1", old);
      const { exitedAt } = await cliExit(["apps", "secrets", "roll", app.clientId]);
      await onBothWithin(BOUND_MS, exitedAt, async (i) => {
        await client.expectApi(i, "/global-chat/messages?limit=1", old, 401, "invalid_token");
        await client.expectGrantRefused(i, app.clientId, app.clientSecret!);
      });
    });

    it("refresh-token reuse: that grant's access tokens 401 on both", async () => {
      const { app, tokens } = await userToken("pgb_rex", ["svc:chat.read"]);
      await warm("/me", tokens.access_token);
      const rotated = await refreshTokens(publicServer, app.clientId, tokens.refresh_token, { "x-backend": "0" });
      expect(rotated.status).toBe(200);
      const replay = await refreshTokens(publicServer, app.clientId, tokens.refresh_token, { "x-backend": "0" });
      const at = Date.now();
      expect(replay.body.error).toBe("invalid_grant");
      await onBothWithin(BOUND_MS, at, async (i) => {
        await client.expectApi(i, "/me", tokens.access_token, 401, "invalid_token");
        await client.expectApi(i, "/me", rotated.body.access_token as string, 401, "invalid_token");
      });
    });
  });
});

/**
 * The same pair with DATABASE_URL at PgBouncer and no DATABASE_DIRECT_URL (DATABASE_PGBOUNCER set
 * by hand): the LISTEN goes through the pooler, which hands its session to others, so the probe is
 * never heard. Each process logs that, and drops its caches every 500 ms
 * (DEAF_CACHE_LIFETIME_MS): a token of an app suspended elsewhere is refused well before the
 * status cache's own 2 s lifetime would end.
 */
describe("behind PgBouncer without DATABASE_DIRECT_URL: the logged fallback", () => {
  const FALLBACK_BOUND_MS = 1_500;
  let pooledUrl: string;
  let directUrl: string;
  let lb: LoadBalancer;
  let servers: TestServer[] = [];
  let client: ReturnType<typeof clientFor>;

  beforeAll(async () => {
    directUrl = await emptyDatabase("bouncer_deaf");
    // Migrated first, over the direct URL: this variant is about the change channel.
    const migrated = await runCli(directUrl, ["apps", "list", "--json"]);
    expect(migrated.code, migrated.stderr).toBe(0);
    pooledUrl = bouncer.urlFor(directUrl);
    let publicServer;
    ({ lb, servers, publicServer } = await startPair({ DATABASE_PGBOUNCER: "1" }, pooledUrl));
    client = clientFor(lb, publicServer);
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await lb?.close();
  });

  it("each process logs that its change channel is deaf and that caches fall back to short lifetimes", async () => {
    for (const server of servers) {
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && !server.logs.some((l) => l.includes("change channel is deaf"))) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const line = server.logs.find((l) => l.includes("change channel is deaf"));
      expect(line, server.logs.join("\n")).toBeDefined();
      expect(JSON.parse(line!)).toMatchObject({ level: "error" });
      expect(line).toContain("DATABASE_DIRECT_URL");
      expect(line).toContain("caches are dropped every 500 ms");
      expect(server.logs.some((l) => l.includes("change channel: probe heard"))).toBe(false);
      // GET /readyz reports the deaf channel and stays 200: behind a transaction pooler without a
      // direct URL every instance is deaf alike, and the short cache lifetimes keep control working.
      const ready = await fetch(`${server.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ status: "ready", checks: { database: "up", change_channel: "deaf" }, down: [] });
    }
  });

  it("an app suspended elsewhere: its token is refused by both within the short lifetime, not the status cache's 2 s", async () => {
    const app = await createTestApp(directUrl, { type: "api", scopes: ["svc:chat.read"] });
    const token = await client.appToken(0, app.clientId, app.clientSecret!);
    // Each process caches the app's status now (lib/oidc/access-tokens.ts: 2 s when nothing is heard).
    for (const index of [0, 1]) await client.expectApi(index, "/global-chat/messages?limit=1", token, 200);
    // Changed in the database by someone else: a NOTIFY would not be heard here anyway.
    await setAppStatus(directUrl, app.clientId, "suspended");
    const changedAt = Date.now();
    const took = await onBothWithin(FALLBACK_BOUND_MS, changedAt, (i) => client.expectApi(i, "/global-chat/messages?limit=1", token, 401, "invalid_token"));
    expect(took).toBeLessThan(FALLBACK_BOUND_MS);
    for (const index of [0, 1]) await client.expectGrantRefused(index, app.clientId, app.clientSecret!);
    // The API keeps working through the pooler meanwhile.
    const other = await createTestApp(directUrl, { type: "api", scopes: ["svc:chat.read"] });
    await client.expectApi(1, "/global-chat/messages?limit=1", await client.appToken(0, other.clientId, other.clientSecret!), 200);
  });
});
