import { decodeProtectedHeader, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli";
import { query } from "../helpers/db";
import { startLoadBalancer, type LoadBalancer } from "../helpers/load-balancer";
import { createTestApp, createTestUser, refreshTokens, signInAndGetTokens, tokenRequest } from "../helpers/oidc";
import { newDatabase, startServer, type TestServer } from "../helpers/server";

/**
 * "Several processes, one database": two app processes on one PostgreSQL behind a
 * round-robin load balancer (no sticky sessions), both with the balancer's URL as APP_URL/ISSUER.
 * Nothing that matters may live in one process's memory: tokens, sign-in interactions, the chat
 * rate limit, the poke cooldown and the signing keys all have to hold across both.
 */
const REDIRECT = "http://localhost:9/callback";
const PASSWORD = "multi-process passphrase";

let databaseUrl: string;
let lb: LoadBalancer;
let servers: TestServer[] = [];
/** What the test helpers call "a server": the public URL, as a client sees it. */
let publicServer: { url: string; issuer: string; databaseUrl: string };

beforeAll(async () => {
  databaseUrl = await newDatabase({ seed: true });
  const backends: { port: number }[] = [];
  lb = await startLoadBalancer(backends);
  const env = {
    APP_URL: lb.url,
    ISSUER: `${lb.url}/realms/platform`,
    // Rotation is picked up by polling; a short interval keeps the rotation test quick.
    SIGNING_KEY_POLL_SECONDS: "1",
  };
  // Started at once, as a deployment would: migrations, settings, keys and the portal client are
  // ensured by both without a conflict.
  servers = await Promise.all([startServer({ databaseUrl, env }), startServer({ databaseUrl, env })]);
  backends.push(...servers.map((s) => ({ port: s.port })));
  publicServer = { url: lb.url, issuer: `${lb.url}/realms/platform`, databaseUrl };
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await lb?.close();
});

/** A request through the balancer, pinned to backend `index` (0 or 1). */
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

async function appToken(index: number, clientId: string, clientSecret: string): Promise<string> {
  const { status, body } = await tokenRequest(
    publicServer,
    { grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret },
    { "x-backend": String(index) },
  );
  expect(status, JSON.stringify(body)).toBe(200);
  return body.access_token as string;
}

async function loginApp(scopes: string[]) {
  return createTestApp(databaseUrl, { type: "login", scopes, redirectUris: [REDIRECT], name: "Multi-process app" });
}

async function userTokens(handle: string, clientId: string) {
  await createTestUser(databaseUrl, { handle, password: PASSWORD });
  return signInAndGetTokens(publicServer, { handle, password: PASSWORD, clientId, redirectUri: REDIRECT });
}

describe("two processes, one database", () => {
  it("both processes answer, each with its own pid, behind one public URL", async () => {
    expect(servers.map((s) => s.process.pid)).toHaveLength(2);
    expect(servers[0]!.process.pid).not.toBe(servers[1]!.process.pid);
    for (const index of [0, 1]) {
      const res = await fetch(`${publicServer.issuer}/.well-known/openid-configuration`, { headers: { "x-backend": String(index) } });
      const doc = (await res.json()) as { issuer: string; token_endpoint: string };
      expect(doc.issuer).toBe(publicServer.issuer);
      expect(doc.token_endpoint).toBe(`${publicServer.issuer}/protocol/openid-connect/token`);
    }
  });

  it("an app token issued by one process is accepted by the other, both ways", async () => {
    const app = await createTestApp(databaseUrl, { type: "api", scopes: ["svc:chat.read", "svc:directory.read"] });
    for (const [issuer, verifier] of [
      [0, 1],
      [1, 0],
    ] as const) {
      const token = await appToken(issuer, app.clientId, app.clientSecret!);
      const res = await api(verifier, "/global-chat/messages?limit=2", { token });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.messages.length).toBeGreaterThan(0);
    }
  });

  it("a sign-in started on one process completes on the other (round robin, no sticky sessions)", async () => {
    const app = await loginApp(["svc:chat.read"]);
    const mark = lb.served.length;
    const tokens = await userTokens("mp_lena", app.clientId);
    const steps = lb.served.slice(mark);
    const authorize = steps.find(([, method, p]) => method === "GET" && p.endsWith("/protocol/openid-connect/auth"))!;
    const login = steps.find(([, method, p]) => method === "POST" && /^\/interaction\/[^/]+\/login$/.test(p))!;
    const exchange = steps.find(([, method, p]) => method === "POST" && p.endsWith("/protocol/openid-connect/token"))!;
    expect(authorize, JSON.stringify(steps)).toBeDefined();
    expect(login).toBeDefined();
    expect(new Set(steps.map(([index]) => index))).toEqual(new Set([0, 1]));
    // Consecutive requests alternate, so the login form was posted to the process that did not
    // start the interaction.
    expect(login[0]).not.toBe(authorize[0]);
    expect(exchange).toBeDefined();

    // The user token works on both, and the refresh token rotates on either.
    for (const index of [0, 1]) expect((await api(index, "/me", { token: tokens.access_token })).status).toBe(200);
    const first = await refreshTokens(publicServer, app.clientId, tokens.refresh_token, { "x-backend": "0" });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    // The rotated-out refresh token is refused by the other process too.
    const replay = await refreshTokens(publicServer, app.clientId, tokens.refresh_token, { "x-backend": "1" });
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe("invalid_grant");
  });

  it("the chat rate limit holds across both: parallel posts split over the processes give exactly one success", async () => {
    const app = await loginApp(["svc:chat.write", "svc:chat.read"]);
    const { access_token: token } = await userTokens("mp_chatter", app.clientId);
    const attempts = await Promise.all(
      Array.from({ length: 12 }, (_, i) => api(i % 2, "/global-chat/messages", { method: "POST", token, body: { text: `burst ${i}` } })),
    );
    const statuses = attempts.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    for (const r of attempts.filter((a) => a.status !== 201)) {
      expect(r.status).toBe(429);
      expect(r.body.error.code).toBe("rate_limited");
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
    const rows = await query<{ n: string }>(
      databaseUrl,
      `SELECT count(*) AS n FROM "ChatMessage" m JOIN "User" u ON u.id = m."authorId" WHERE u.handle = 'mp_chatter'`,
    );
    expect(Number(rows[0]!.n)).toBe(1);
  });

  it("the poke cooldown holds across both: parallel pokes of one user give exactly one success", async () => {
    const app = await loginApp(["svc:pokes.write"]);
    const { access_token: token } = await userTokens("mp_poker", app.clientId);
    const attempts = await Promise.all(Array.from({ length: 12 }, (_, i) => api(i % 2, "/users/carol/poke", { method: "POST", token })));
    const ok = attempts.filter((r) => r.status >= 200 && r.status < 300);
    expect(ok, JSON.stringify(attempts.map((a) => a.status))).toHaveLength(1);
    expect(ok[0]!.body.data.target_handle).toBe("carol");
    for (const r of attempts.filter((a) => a.status >= 300)) {
      expect(r.status).toBe(429);
      expect(r.body.error.code).toBe("poke_cooldown");
      expect(r.body.error.next_allowed_at).toBe(ok[0]!.body.data.poked_at + 24 * 3600);
    }
    const notifications = await query<{ n: string }>(
      databaseUrl,
      `SELECT count(*) AS n FROM "Notification" n JOIN "User" f ON f.id = n."fromUserId" WHERE f.handle = 'mp_poker' AND n.type = 'poke'`,
    );
    expect(Number(notifications[0]!.n)).toBe(1);
  });

  it("the per-app quota holds across both: 1,400 requests split over the processes admit the quota of 1,000 within 5 %", async () => {
    const app = await createTestApp(databaseUrl, { type: "api", scopes: ["svc:chat.read"] });
    const cli = await runCli(databaseUrl, ["apps", "limit", app.clientId, "--per-minute", "1000", "--json"]);
    expect(cli.code, cli.stderr).toBe(0);
    const token = await appToken(0, app.clientId, app.clientSecret!);
    // Quota windows are calendar minutes: the burst must fit in one.
    const left = 60 - (Date.now() / 1000) % 60;
    if (left < 30) await new Promise((resolve) => setTimeout(resolve, left * 1000 + 200));
    const statuses: number[] = [];
    for (let wave = 0; wave < 28; wave++) {
      const replies = await Promise.all(
        Array.from({ length: 50 }, (_, i) => api(i % 2, "/global-chat/messages?limit=1", { token })),
      );
      statuses.push(...replies.map((r) => r.status));
    }
    const admitted = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(admitted).toBeLessThanOrEqual(1000);
    expect(admitted).toBeGreaterThanOrEqual(950);
    const [row] = await query<{ reserved: number }>(databaseUrl, `SELECT reserved FROM "ApiQuotaWindow" WHERE "clientId" = $1`, [
      app.clientId,
    ]);
    expect(row!.reserved).toBeLessThanOrEqual(1000);
  });

  it("a key rotation (keys rotate, from a third process) is seen by both: a token signed with the new key verifies on the other", async () => {
    const app = await createTestApp(databaseUrl, { type: "api", scopes: ["svc:directory.read"] });
    const before = await appToken(0, app.clientId, app.clientSecret!);
    const oldKid = decodeProtectedHeader(before).kid!;

    // Process 1's verifier has the pre-rotation key set cached (an unknown kid made it reload).
    const attacker = await generateKeyPair("ES256");
    const forged = await new SignJWT({ client_id: app.clientId })
      .setProtectedHeader({ alg: "ES256", kid: "not-a-real-kid", typ: "at+jwt" })
      .setIssuer(publicServer.issuer)
      .setAudience(`${lb.url}/api/v1`)
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(attacker.privateKey);
    expect((await api(1, "/users", { token: forged })).status).toBe(401);

    const cli = await runCli(databaseUrl, ["keys", "rotate", "--json"]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout).retired).toContain(oldKid);

    // Process 0 switches to the new key within its poll interval.
    let after = before;
    for (let i = 0; i < 100 && decodeProtectedHeader(after).kid === oldKid; i++) {
      await new Promise((r) => setTimeout(r, 200));
      after = await appToken(0, app.clientId, app.clientSecret!);
    }
    const newKid = decodeProtectedHeader(after).kid!;
    expect(newKid).not.toBe(oldKid);

    // The other process accepts it at once, and still accepts the token signed before the rotation.
    const res = await api(1, "/users?limit=1", { token: after });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await api(1, "/users?limit=1", { token: before })).status).toBe(200);
    // Both publish the new key (and keep the retired one) in their JWKS.
    for (const index of [0, 1]) {
      let kids: string[] = [];
      for (let i = 0; i < 50 && !kids.includes(newKid); i++) {
        const jwks = await fetch(`${publicServer.issuer}/protocol/openid-connect/certs`, { headers: { "x-backend": String(index) } });
        kids = ((await jwks.json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
        if (!kids.includes(newKid)) await new Promise((r) => setTimeout(r, 200));
      }
      expect(kids).toContain(newKid);
      expect(kids).toContain(oldKid);
    }
    // And process 1 signs with it too.
    expect(decodeProtectedHeader(await appToken(1, app.clientId, app.clientSecret!)).kid).toBe(newKid);
    const audit = await query<{ action: string }>(databaseUrl, `SELECT action FROM "AuditLog" WHERE action = 'keys.rotate'`);
    expect(audit).toHaveLength(1);
  });
});

/**
 * "Every control action takes effect in every process at once": the CLI (a third
 * process) changes something; both server processes must answer the new state within 250 ms of
 * the command's exit. They hear of it on the change channel (PostgreSQL LISTEN/NOTIFY); without it
 * they would answer from their caches for up to 2 s (statuses) or 5 s (clients).
 */
describe("control actions reach both processes within 250 ms", () => {
  const BOUND_MS = 250;

  /** Polls both processes until `check(index)` holds for each, failing after 250 ms from `since`. */
  async function onBothWithin(since: number, check: (index: number) => Promise<void>): Promise<number> {
    for (const index of [0, 1]) {
      for (;;) {
        try {
          await check(index);
          break;
        } catch (error) {
          if (Date.now() - since > BOUND_MS) throw error;
          await new Promise((r) => setTimeout(r, 5));
        }
      }
    }
    return Date.now() - since;
  }

  async function cliExit(args: string[]): Promise<{ exitedAt: number; stdout: string }> {
    const run = await runCli(databaseUrl, [...args, "--json"]);
    const exitedAt = Date.now();
    expect(run.code, run.stderr).toBe(0);
    return { exitedAt, stdout: run.stdout };
  }

  const expectApi = async (index: number, path: string, token: string, status: number, code?: string) => {
    const res = await api(index, path, { token });
    expect(res.status, `backend ${index}: ${JSON.stringify(res.body)}`).toBe(status);
    if (code) expect(res.body.error.code).toBe(code);
  };

  const expectGrantRefused = async (index: number, clientId: string, secret: string) => {
    const { status, body } = await tokenRequest(
      publicServer,
      { grant_type: "client_credentials", client_id: clientId, client_secret: secret },
      { "x-backend": String(index) },
    );
    expect(status, JSON.stringify(body)).toBe(401);
    expect(body.error).toBe("invalid_client");
  };

  /** Every cache warm on both processes: the change must drop it, not a TTL. */
  async function warm(path: string, token: string, status = 200) {
    for (const index of [0, 1]) await expectApi(index, path, token, status);
  }

  it("users disable: the user's token gets 403 forbidden on both", async () => {
    const app = await loginApp([]);
    const tokens = await userTokens("ctl_dora", app.clientId);
    await warm("/me", tokens.access_token);
    const { exitedAt } = await cliExit(["users", "disable", "ctl_dora"]);
    await onBothWithin(exitedAt, (i) => expectApi(i, "/me", tokens.access_token, 403, "forbidden"));
  });

  it("apps suspend, then approve (reinstate): old tokens stay void, new grants fail then work", async () => {
    const app = await createTestApp(databaseUrl, { type: "api", scopes: ["svc:chat.read"] });
    const old = await appToken(0, app.clientId, app.clientSecret!);
    await warm("/global-chat/messages?limit=1", old);
    await appToken(1, app.clientId, app.clientSecret!); // client metadata cached on both

    const suspended = await cliExit(["apps", "suspend", app.clientId, "--reason", "Abuse report"]);
    await onBothWithin(suspended.exitedAt, async (i) => {
      await expectApi(i, "/global-chat/messages?limit=1", old, 401, "invalid_token");
      await expectGrantRefused(i, app.clientId, app.clientSecret!);
    });

    const reinstated = await cliExit(["apps", "approve", app.clientId]);
    await onBothWithin(reinstated.exitedAt, async (i) => {
      const fresh = await appToken(i, app.clientId, app.clientSecret!);
      await expectApi(i, "/global-chat/messages?limit=1", fresh, 200);
      await expectApi(1 - i, "/global-chat/messages?limit=1", fresh, 200);
      await expectApi(i, "/global-chat/messages?limit=1", old, 401, "invalid_token");
    });
  });

  it("apps secrets roll: old tokens 401 and the old secret invalid_client on both", async () => {
    const app = await createTestApp(databaseUrl, { type: "api", scopes: ["svc:chat.read"] });
    const old = await appToken(1, app.clientId, app.clientSecret!);
    await warm("/global-chat/messages?limit=1", old);
    const { exitedAt, stdout } = await cliExit(["apps", "secrets", "roll", app.clientId]);
    const rolled = JSON.parse(stdout) as { client_secret: string };
    await onBothWithin(exitedAt, async (i) => {
      await expectApi(i, "/global-chat/messages?limit=1", old, 401, "invalid_token");
      await expectGrantRefused(i, app.clientId, app.clientSecret!);
    });
    for (const index of [0, 1]) {
      await expectApi(index, "/global-chat/messages?limit=1", await appToken(index, app.clientId, rolled.client_secret), 200);
    }
  });

  it("apps secrets retire: the retired secret invalid_client on both, tokens issued with it still 200", async () => {
    const app = await createTestApp(databaseUrl, { type: "api", scopes: ["svc:chat.read"] });
    const added = JSON.parse((await cliExit(["apps", "secrets", "add", app.clientId])).stdout) as { client_secret: string };
    const listed = JSON.parse((await cliExit(["apps", "secrets", "list", app.clientId])).stdout) as { id: string; hint: string }[];
    const original = listed.find((s) => s.hint === app.clientSecret!.slice(-4))!;
    const withOriginal = await appToken(0, app.clientId, app.clientSecret!);
    await warm("/global-chat/messages?limit=1", withOriginal);
    const { exitedAt } = await cliExit(["apps", "secrets", "retire", app.clientId, original.id]);
    await onBothWithin(exitedAt, async (i) => {
      await expectGrantRefused(i, app.clientId, app.clientSecret!);
      await expectApi(i, "/global-chat/messages?limit=1", withOriginal, 200);
    });
    for (const index of [0, 1]) await appToken(index, app.clientId, added.client_secret);
  });

  it("refresh-token reuse: the access tokens of that grant 401 on both", async () => {
    const app = await loginApp(["svc:chat.read"]);
    const tokens = await userTokens("ctl_rex", app.clientId);
    await warm("/me", tokens.access_token);
    const rotated = await refreshTokens(publicServer, app.clientId, tokens.refresh_token, { "x-backend": "0" });
    expect(rotated.status).toBe(200);
    const replay = await refreshTokens(publicServer, app.clientId, tokens.refresh_token, { "x-backend": "0" });
    const at = Date.now();
    expect(replay.body.error).toBe("invalid_grant");
    await onBothWithin(at, async (i) => {
      await expectApi(i, "/me", tokens.access_token, 401, "invalid_token");
      await expectApi(i, "/me", rotated.body.access_token as string, 401, "invalid_token");
    });
  });

  it("killing the LISTEN connection under load: both reconnect, no request fails, the next change is seen in 250 ms", async () => {
    const app = await loginApp([]);
    // Six loops of one user's token for seconds: well over a user's share of the default quota
    // (10 % of 6,000 a minute), which is not what this test is about. The quota is
    // raised so that only the change channel can make a request fail.
    const limit = await runCli(databaseUrl, ["apps", "limit", app.clientId, "--per-minute", "1000000", "--json"]);
    expect(limit.code, limit.stderr).toBe(0);
    const steady = await userTokens("ctl_sam", app.clientId);
    const target = await userTokens("ctl_tia", app.clientId);
    await warm("/me", target.access_token);

    let stop = false;
    const failures: string[] = [];
    let served = 0;
    const worker = async (index: number) => {
      while (!stop) {
        const res = await api(index, "/me", { token: steady.access_token });
        if (res.status === 200) served++;
        else failures.push(`${index}: ${res.status} ${JSON.stringify(res.body)}`);
      }
    };
    const load = [0, 1, 0, 1, 0, 1].map(worker);

    const listeners = `SELECT pid FROM pg_stat_activity WHERE application_name = 'platform-changes' AND datname = current_database()`;
    const before = await query<{ pid: number }>(databaseUrl, listeners);
    expect(before).toHaveLength(2);
    await query(databaseUrl, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'platform-changes' AND datname = current_database()`);
    // Both reconnect on their own (backoff from 100 ms).
    const deadline = Date.now() + 10_000;
    let after: { pid: number }[] = [];
    while (Date.now() < deadline) {
      after = await query<{ pid: number }>(databaseUrl, listeners);
      if (after.length === 2 && after.every((a) => !before.some((b) => b.pid === a.pid))) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(after).toHaveLength(2);
    expect(after.some((a) => before.some((b) => b.pid === a.pid))).toBe(false);

    await warm("/me", target.access_token);
    const { exitedAt } = await cliExit(["users", "disable", "ctl_tia"]);
    await onBothWithin(exitedAt, (i) => expectApi(i, "/me", target.access_token, 403, "forbidden"));
    stop = true;
    await Promise.all(load);
    expect(failures).toEqual([]);
    expect(served).toBeGreaterThan(50);
    expect(servers.every((s) => s.logs.some((l) => l.includes("change channel reconnected")))).toBe(true);
  });
});

