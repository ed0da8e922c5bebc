import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findFreePort } from "../../lib/database/embedded";
import { runCli } from "../helpers/cli";
import { query } from "../helpers/db";
import { clientCredentialsToken, createTestApp, createTestUser, signInAndGetTokens } from "../helpers/oidc";
import { startStreamingPair, type StreamingPair } from "../helpers/replica";
import { startServer, type TestServer } from "../helpers/server";
import { startTcpProxy } from "../helpers/tcp-proxy";

/**
 * Read replicas: a primary and a real streaming replica (tests/helpers/replica.ts), two
 * application processes with DATABASE_URL at the primary and DATABASE_REPLICA_URLS at the replica.
 * With the replica's replay paused, what the replica serves is visibly old, so each test shows
 * where a read was answered: lag-tolerant reads (profiles, chat history) come from the replica;
 * access decisions (a disabled user, a suspended app) and a caller's reads after its own write
 * (chat post, poke; on the other process too) come from the primary; a replica past
 * REPLICA_MAX_LAG_SECONDS is skipped; a process whose change channel is down reads the primary;
 * a stopped replica's reads are answered by the primary.
 */
const PASSWORD = "replica passphrase";
const REDIRECT = "http://localhost:9/callback";
const MAX_LAG_SECONDS = 20;
const BOUND_MS = 250;

let pair: StreamingPair;
let primaryUrl: string;
let replicaUrl: string;
const servers: TestServer[] = [];

beforeAll(async () => {
  pair = await startStreamingPair();
  await query(pair.primary.serverUrl, "CREATE DATABASE replica_app");
  primaryUrl = pair.primary.url("replica_app");
  replicaUrl = pair.replica.url("replica_app");
  // One process first (it applies the migrations), then the second; one issuer (process 0's URL),
  // so a token either issued is valid on both.
  const port = await findFreePort();
  const url = `http://localhost:${port}`;
  const env = { DATABASE_REPLICA_URLS: replicaUrl, REPLICA_MAX_LAG_SECONDS: String(MAX_LAG_SECONDS), APP_URL: url, ISSUER: `${url}/realms/platform` };
  servers.push(await startServer({ databaseUrl: primaryUrl, env, port }));
  servers.push(await startServer({ databaseUrl: primaryUrl, env }));
}, 180_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await pair?.stop();
});

async function api(index: number, pathname: string, init: { method?: string; token?: string; body?: unknown } = {}) {
  const res = await fetch(`${servers[index]!.apiUrl}${pathname}`, {
    method: init.method ?? "GET",
    headers: {
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const metric = async (index: number, series: string) => (await servers[index]!.metrics()).get(series) ?? 0;
const replicaReads = (index: number) => metric(index, 'platform_database_routed_reads_total{pool="replica1"}');
const replicaUp = (index: number) => metric(index, 'platform_database_replica_up{replica="replica1"}');

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Polls `check` until it passes; fails with its last error once `boundMs` passed since `since`. */
async function within(boundMs: number, since: number, check: () => Promise<void>): Promise<number> {
  for (;;) {
    try {
      await check();
      return Date.now() - since;
    } catch (error) {
      if (Date.now() - since > boundMs) throw error;
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}

/** The replica has replayed everything the primary has written so far. */
async function replicaCaughtUp(): Promise<void> {
  const [{ lsn }] = (await query<{ lsn: string }>(pair.primary.serverUrl, "SELECT pg_current_wal_lsn()::text AS lsn")) as [{ lsn: string }];
  await until("the replica replays the primary's WAL", async () => {
    const [row] = await query<{ done: boolean }>(pair.replica.serverUrl, "SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done", [lsn]);
    return row!.done;
  });
}

describe("with a streaming replica", () => {
  let login: { clientId: string };
  let reader: { clientId: string; clientSecret?: string };
  let appToken: string;
  let ada: string;
  /** A user to disable and an app to suspend while replay is paused (the replica knows both as they were). */
  let dora: string;
  let suspendedApp: { clientId: string };
  let suspendedToken: string;

  beforeAll(async () => {
    login = await createTestApp(primaryUrl, {
      type: "login",
      scopes: ["svc:chat.read", "svc:chat.write", "svc:pokes.write", "svc:stats.read", "svc:notifications.read"],
      redirectUris: [REDIRECT],
    });
    reader = await createTestApp(primaryUrl, { type: "api", scopes: ["svc:chat.read", "svc:directory.read"] });
    await createTestUser(primaryUrl, { handle: "rep_ada", password: PASSWORD });
    await createTestUser(primaryUrl, { handle: "rep_bob", password: PASSWORD, displayName: "Bob" });
    await createTestUser(primaryUrl, { handle: "rep_dora", password: PASSWORD });
    const server = { url: servers[0]!.url, issuer: servers[0]!.issuer };
    ada = (await signInAndGetTokens(server, { handle: "rep_ada", password: PASSWORD, clientId: login.clientId, redirectUri: REDIRECT })).access_token;
    const token = await clientCredentialsToken(server, reader.clientId, reader.clientSecret!);
    appToken = token.access_token;
    dora = (await signInAndGetTokens(server, { handle: "rep_dora", password: PASSWORD, clientId: login.clientId, redirectUri: REDIRECT })).access_token;
    const toSuspend = await createTestApp(primaryUrl, { type: "api", scopes: ["svc:chat.read"] });
    suspendedApp = toSuspend;
    suspendedToken = (await clientCredentialsToken(server, toSuspend.clientId, toSuspend.clientSecret!)).access_token;
    await replicaCaughtUp();
    for (const index of [0, 1]) await until(`process ${index} uses the replica`, async () => (await replicaUp(index)) === 1);
  }, 120_000);

  describe("with replay paused on the replica", () => {
    let pausedAt: number;
    beforeAll(async () => {
      await query(pair.replica.serverUrl, "SELECT pg_wal_replay_pause()");
      pausedAt = Date.now();
    });
    afterAll(async () => {
      await query(pair.replica.serverUrl, "SELECT pg_wal_replay_resume()");
    });

    it("lag-tolerant reads come from the replica: a row written on the primary is not seen there", async () => {
      await query(primaryUrl, `UPDATE "User" SET "displayName" = 'Bob (new)' WHERE handle = 'rep_bob'`);
      for (const index of [0, 1]) {
        const before = await replicaReads(index);
        const profile = await api(index, "/users/rep_bob");
        expect(profile.status, JSON.stringify(profile.body)).toBe(200);
        expect(profile.body.user.displayName).toBe("Bob");
        const chat = await api(index, "/global-chat/messages?limit=5", { token: appToken });
        expect(chat.status, JSON.stringify(chat.body)).toBe(200);
        expect(await replicaReads(index)).toBe(before + 2);
      }
    });

    it("a disabled user and a suspended app are refused at once (access is decided on the primary)", async () => {
      for (const index of [0, 1]) {
        expect((await api(index, "/me/stats", { token: dora })).status).toBe(200);
        expect((await api(index, "/global-chat/messages?limit=1", { token: suspendedToken })).status).toBe(200);
      }

      const disabled = await runCli(primaryUrl, ["users", "disable", "rep_dora", "--json"]);
      expect(disabled.code, disabled.stderr).toBe(0);
      let since = Date.now();
      for (const index of [0, 1]) {
        await within(BOUND_MS, since, async () => {
          const res = await api(index, "/me/stats", { token: dora });
          expect(res.status, JSON.stringify(res.body)).toBe(403);
        });
      }

      const suspension = await runCli(primaryUrl, ["apps", "suspend", suspendedApp.clientId, "--reason", "Replica test", "--json"]);
      expect(suspension.code, suspension.stderr).toBe(0);
      since = Date.now();
      for (const index of [0, 1]) {
        await within(BOUND_MS, since, async () => {
          const res = await api(index, "/global-chat/messages?limit=1", { token: suspendedToken });
          expect(res.status, JSON.stringify(res.body)).toBe(401);
        });
      }
      // The replica still has dora enabled and the app approved: the refusals came from the primary.
      const [row] = await query<{ disabled: boolean; status: string }>(
        pair.replica.url("replica_app"),
        `SELECT u.disabled, (SELECT status::text FROM "Application" WHERE "clientId" = $1) AS status FROM "User" u WHERE handle = 'rep_dora'`,
        [suspendedApp.clientId],
      );
      expect(row).toEqual({ disabled: false, status: "approved" });
    });

    it("a chat post and a poke are visible to their author at once, on either process (read-your-writes)", async () => {
      const posted = await api(0, "/global-chat/messages", { method: "POST", token: ada, body: { text: "written on the primary" } });
      expect(posted.status, JSON.stringify(posted.body)).toBe(201);
      for (const index of [1, 0]) {
        const mine = await api(index, "/global-chat/messages?limit=5", { token: ada });
        expect(mine.body.data.messages.map((m: { text: string }) => m.text), `process ${index}`).toContain("written on the primary");
      }
      // Another caller (the API app) still reads the replica, which has not replayed the post.
      const others = await api(1, "/global-chat/messages?limit=5", { token: appToken });
      expect(others.body.data.messages.map((m: { text: string }) => m.text)).not.toContain("written on the primary");

      const poked = await api(1, "/users/rep_bob/poke", { method: "POST", token: ada });
      expect(poked.status, JSON.stringify(poked.body)).toBeLessThan(300);
      for (const index of [0, 1]) {
        const profile = await api(index, "/users/rep_bob", { token: ada });
        expect(profile.body.user.displayName, `process ${index}`).toBe("Bob (new)");
      }
      expect((await api(0, "/users/rep_bob")).body.user.displayName).toBe("Bob");
    });

    it("a replica more than REPLICA_MAX_LAG_SECONDS behind is skipped: reads see fresh data again", async () => {
      // Replay has been paused since pausedAt while the primary kept writing.
      await until("process 0 marks the replica down", async () => (await replicaUp(0)) === 0, (MAX_LAG_SECONDS + 15) * 1000);
      // The lag is measured against the primary's once-a-second WAL samples: at most a second early.
      expect(Date.now() - pausedAt).toBeGreaterThan((MAX_LAG_SECONDS - 1.5) * 1000);
      const lag = await metric(0, 'platform_database_replica_lag_seconds{replica="replica1"}');
      expect(lag).toBeGreaterThan(MAX_LAG_SECONDS);
      const before = await replicaReads(0);
      const profile = await api(0, "/users/rep_bob");
      expect(profile.body.user.displayName).toBe("Bob (new)");
      expect(await replicaReads(0)).toBe(before);
    }, 60_000);
  });

  it("while a process's change channel is down its reads go to the primary, and for a lag window once it is back", async () => {
    // A third process whose LISTEN connection (DATABASE_DIRECT_URL) passes through a proxy the test
    // can cut, its queries (DATABASE_URL) not: only its change channel goes away. It could miss a
    // `wrote` announcement meanwhile, so no replica is trusted, however fresh.
    await replicaCaughtUp();
    const primary = new URL(primaryUrl);
    const proxy = await startTcpProxy({ host: primary.hostname, port: Number(primary.port) });
    const lagSeconds = 2;
    const third = await startServer({
      databaseUrl: primaryUrl,
      env: { DATABASE_DIRECT_URL: proxy.rewrite(primaryUrl), DATABASE_REPLICA_URLS: replicaUrl, REPLICA_MAX_LAG_SECONDS: String(lagSeconds) },
    });
    try {
      const reads = async () => ({
        replica: (await third.metrics()).get('platform_database_routed_reads_total{pool="replica1"}') ?? 0,
        up: (await third.metrics()).get("platform_change_channel_up") ?? 0,
      });
      const read = async () => expect((await fetch(`${third.apiUrl}/users/rep_bob`)).status).toBe(200);
      await until("the third process uses the replica", async () => {
        const before = (await reads()).replica;
        await read();
        return (await reads()).replica > before;
      });

      await proxy.down("reset");
      await until("its change channel is down", async () => (await reads()).up === 0);
      // Longer than the lag window that follows a reconnect: the channel's state alone keeps reads on the primary.
      await new Promise((r) => setTimeout(r, (lagSeconds + 3) * 1000));
      let before = (await reads()).replica;
      for (let i = 0; i < 5; i++) await read();
      expect((await reads()).replica).toBe(before);

      await proxy.up();
      await until("its change channel is back", async () => (await reads()).up === 1);
      before = (await reads()).replica;
      await read();
      expect((await reads()).replica, "at once after the reconnect: still the primary").toBe(before);
      await until("a lag window later, the replica again", async () => {
        const was = (await reads()).replica;
        await read();
        return (await reads()).replica > was;
      });
    } finally {
      await third.stop();
      await proxy.close();
    }
  }, 90_000);

  it("once replay resumes the replica is used again; stopped, its reads are answered by the primary", async () => {
    await replicaCaughtUp();
    await until("process 0 uses the replica again", async () => (await replicaUp(0)) === 1);
    expect((await api(0, "/users/rep_bob")).body.user.displayName).toBe("Bob (new)");

    await pair.stopReplica();
    const failures: string[] = [];
    for (let i = 0; i < 20; i++) {
      for (const index of [0, 1]) {
        const profile = await api(index, "/users/rep_bob");
        if (profile.status !== 200) failures.push(`${index}: ${profile.status} ${JSON.stringify(profile.body)}`);
        const chat = await api(index, "/global-chat/messages?limit=5", { token: appToken });
        if (chat.status !== 200) failures.push(`${index}: ${chat.status} ${JSON.stringify(chat.body)}`);
      }
    }
    expect(failures).toEqual([]);
    await until("process 0 marks the stopped replica down", async () => (await replicaUp(0)) === 0);
    expect((await api(0, "/directory/resolve", { method: "POST", token: appToken, body: { identifiers: [{ type: "handle", value: "rep_bob" }] } })).status).toBe(200);
  }, 60_000);
});
