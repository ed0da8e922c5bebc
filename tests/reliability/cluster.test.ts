import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../helpers/db";
import { clientCredentialsToken, createTestApp, createTestUser, signInAndGetTokens } from "../helpers/oidc";
import { startServer, type TestServer } from "../helpers/server";
import { slowResolve } from "../helpers/slow-request";

/**
 * "Every core": WEB_CONCURRENCY=2 runs two workers of server.ts on one port under a
 * cluster primary (lib/server/cluster.ts). Everything is served (portal pages through Next, the
 * sign-in service, the API); the limits that must hold across processes (chat posts, pokes, the
 * per-app quota) stay exact across workers; a worker that dies is replaced; SIGTERM to the primary
 * lets every worker finish its in-flight requests before all exit 0.
 */
const REDIRECT = "http://localhost:9/callback";
const PASSWORD = "cluster passphrase";
let server: TestServer;

beforeAll(async () => {
  server = await startServer({ next: true, seed: true, env: { WEB_CONCURRENCY: "2" } });
});
afterAll(async () => {
  await server?.stop();
});

function workerPids(): number[] {
  try {
    // The primary's children that run the server (server.mjs, as `npm start` runs it).
    return execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(server.process.pid)], { encoding: "utf8" })
      .split("\n")
      .filter((line) => line.includes("server.mjs"))
      .map((line) => Number(line.trim().split(/\s+/)[0]))
      .filter((n) => n > 0);
  } catch {
    return [];
  }
}

/** A request on a connection of its own: the primary hands connections to the workers in turn. */
async function call(path: string, init: { method?: string; token?: string; body?: unknown } = {}) {
  const res = await fetch(`${server.url}${path}`, {
    method: init.method ?? "GET",
    headers: {
      connection: "close",
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : null };
}

async function userToken(handle: string, scopes: string[]): Promise<string> {
  const app = await createTestApp(server.databaseUrl, { type: "login", scopes, redirectUris: [REDIRECT] });
  await createTestUser(server.databaseUrl, { handle, password: PASSWORD });
  const tokens = await signInAndGetTokens(server, { handle, password: PASSWORD, clientId: app.clientId, redirectUri: REDIRECT });
  return tokens.access_token;
}

describe("WEB_CONCURRENCY=2", () => {
  it("runs two workers that each listen for control actions, and serves the portal, the sign-in service and the API", async () => {
    expect(workerPids()).toHaveLength(2);
    // Each worker has its own change-channel connection (application_name platform-changes).
    let listeners = 0;
    for (let i = 0; i < 50 && listeners !== 2; i++) {
      const rows = await query<{ n: string }>(
        server.databaseUrl,
        `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'platform-changes'`,
      );
      listeners = Number(rows[0]!.n);
      if (listeners !== 2) await new Promise((r) => setTimeout(r, 200));
    }
    expect(listeners).toBe(2);
    expect(server.logs.filter((l) => l.startsWith("listening on port "))).toHaveLength(1);
    expect(server.logs.filter((l) => l.includes("Developer platform is running"))).toHaveLength(1);
    for (let i = 0; i < 4; i++) {
      expect((await call("/")).status).toBe(200);
      expect((await call("/docs")).status).toBe(200);
      expect((await call("/realms/platform/.well-known/openid-configuration")).status).toBe(200);
      expect((await call("/api/v1/users/alice")).status).toBe(200);
    }
  });

  it("keeps the chat limit and the poke cooldown exact across workers", async () => {
    const chatter = await userToken("cl_chatter", ["svc:chat.write"]);
    const posts = await Promise.all(
      Array.from({ length: 12 }, (_, i) => call("/api/v1/global-chat/messages", { method: "POST", token: chatter, body: { text: `c${i}` } })),
    );
    expect(posts.filter((p) => p.status === 201)).toHaveLength(1);
    expect(posts.filter((p) => p.status === 429)).toHaveLength(11);

    const poker = await userToken("cl_poker", ["svc:pokes.write"]);
    const pokes = await Promise.all(Array.from({ length: 12 }, () => call("/api/v1/users/carol/poke", { method: "POST", token: poker })));
    expect(pokes.filter((p) => p.status === 200)).toHaveLength(1);
    expect(pokes.filter((p) => p.body?.error?.code === "poke_cooldown")).toHaveLength(11);
  });

  it("keeps an app's quota across workers within 5 %", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "api", scopes: ["svc:chat.read"] });
    await query(server.databaseUrl, `UPDATE "Application" SET "requestsPerMinute" = 500 WHERE "clientId" = $1`, [app.clientId]);
    const { access_token: token } = await clientCredentialsToken(server, app.clientId, app.clientSecret!);
    const left = 60 - (Date.now() / 1000) % 60;
    if (left < 30) await new Promise((resolve) => setTimeout(resolve, left * 1000 + 200));
    const statuses: number[] = [];
    for (let wave = 0; wave < 14; wave++) {
      const replies = await Promise.all(Array.from({ length: 50 }, () => call("/api/v1/global-chat/messages?limit=1", { token })));
      statuses.push(...replies.map((r) => r.status));
    }
    const admitted = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(admitted).toBeLessThanOrEqual(500);
    expect(admitted).toBeGreaterThanOrEqual(475);
  });

  it("replaces a worker that dies; the other answers meanwhile", async () => {
    const [victim] = workerPids();
    process.kill(victim!, "SIGKILL");
    // Until the primary has seen the worker go (a few ms), it may still hand it a connection
    // (node:cluster's round robin): requests are sent once it has.
    for (let i = 0; i < 100 && !server.logs.some((l) => l.includes("exited (SIGKILL): starting a new one")); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(server.logs.some((l) => l.includes(`(pid ${victim}) exited (SIGKILL): starting a new one`))).toBe(true);
    for (let i = 0; i < 10; i++) expect((await call("/healthz")).status).toBe(200);
    let pids: number[] = [];
    for (let i = 0; i < 300; i++) {
      pids = workerPids();
      if (pids.length === 2 && !pids.includes(victim!)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(pids).toHaveLength(2);
    expect(pids).not.toContain(victim);
    for (let i = 0; i < 600 && !server.logs.some((l) => l.includes("is serving again")); i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(server.logs.some((l) => l.includes("is serving again"))).toBe(true);
  });

  it("on SIGTERM, every worker finishes its in-flight requests, then all exit 0", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "api", scopes: ["svc:directory.read"] });
    const { access_token: token } = await clientCredentialsToken(server, app.clientId, app.clientSecret!);
    const slow = Array.from({ length: 6 }, () => slowResolve(server.url, token, ["alice"]));
    await Promise.all(slow.map((s) => s.accepted));
    const pids = workerPids();
    expect(pids).toHaveLength(2);
    const exited = new Promise<number | null>((resolve) => server.process.once("exit", (code) => resolve(code)));
    server.process.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 500));
    for (const s of slow) s.finish();
    expect((await Promise.all(slow.map((s) => s.response))).map((r) => r.status)).toEqual(slow.map(() => 200));
    expect(await exited).toBe(0);
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
    expect(server.logs.filter((l) => l.includes("SIGTERM received")).length).toBeGreaterThanOrEqual(3);
  });
});
