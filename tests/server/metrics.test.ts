import { networkInterfaces } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findFreePort } from "../../lib/database/embedded";
import { createTestApp, tokenRequest } from "../helpers/oidc";
import { until } from "../helpers/poll";
import { parsePrometheusText, sampleValue, type Exposition } from "../helpers/prometheus";
import { newDatabase, startServer, type TestServer } from "../helpers/server";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy";

/**
 * GET /metrics, this process's counters in Prometheus text, exists only with
 * METRICS_TOKEN and answers only its bearer; token responses never carry which path answered.
 * The operator's metrics on the same registry (HTTP by route template and status, token
 * grants, the change channel, webhooks, the pool, process defaults), strictly parseable; a
 * METRICS_PORT of their own; GET /readyz, 503 while the database is away.
 * No port answers /metrics to anyone on the network without the token: METRICS_PORT asks
 * for METRICS_TOKEN when it is set, and listens on loopback unless METRICS_HOST says otherwise.
 */
const TOKEN = "metrics-token-for-this-test-0123456789abcdef";
let server: TestServer;
let bare: TestServer;
/**
 * Reaches its database through a TCP proxy the /readyz test takes down, and serves METRICS_PORT
 * without a token; its main port listens on every interface (HOST=0.0.0.0, PRODUCT.md's default).
 */
let proxied: TestServer;
let proxy: TcpProxy;
let metricsPort: number;
/** `server`'s METRICS_PORT, opened to every interface (METRICS_HOST=0.0.0.0) behind its METRICS_TOKEN. */
let tokenMetricsPort: number;

/** This machine's address on its network (not loopback): what another machine would connect to. */
function networkAddress(): string {
  const address = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === "IPv4" && !a.internal)?.address;
  if (!address) throw new Error("this test needs a network interface besides loopback");
  return address;
}

beforeAll(async () => {
  const databaseUrl = await newDatabase({ seed: false });
  const target = new URL(databaseUrl);
  proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port) });
  metricsPort = await findFreePort();
  tokenMetricsPort = await findFreePort();
  [server, bare, proxied] = await Promise.all([
    startServer({ seed: false, env: { METRICS_TOKEN: TOKEN, METRICS_PORT: String(tokenMetricsPort), METRICS_HOST: "0.0.0.0" } }),
    startServer({ seed: false, env: { METRICS_TOKEN: "" } }),
    startServer({ databaseUrl: proxy.rewrite(databaseUrl), env: { METRICS_TOKEN: "", METRICS_PORT: String(metricsPort), HOST: "0.0.0.0" } }),
  ]);
});

afterAll(async () => {
  await Promise.all([server?.stop(), bare?.stop(), proxied?.stop()]);
  await proxy?.close();
});

async function scrape(url = `${server.url}/metrics`, token: string | null = TOKEN): Promise<Exposition> {
  const response = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  expect(response.status).toBe(200);
  return parsePrometheusText(await response.text());
}

describe("GET /metrics", () => {
  it("answers the bearer of METRICS_TOKEN with every token path's counter", async () => {
    const response = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const text = await response.text();
    expect(text).toContain("# TYPE platform_token_requests_total counter");
    for (const path of ["client_credentials_fast", "refresh_fast", "oidc_provider"]) {
      expect(text).toMatch(new RegExp(`^platform_token_requests_total\\{path="${path}"\\} \\d+$`, "m"));
    }
  });

  it("refuses a missing or wrong token with 401, and other methods with 405", async () => {
    for (const authorization of [undefined, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, TOKEN, `Basic ${TOKEN}`]) {
      const response = await fetch(`${server.url}/metrics`, { headers: authorization ? { authorization } : {} });
      expect(response.status, String(authorization)).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
      expect(await response.json()).toMatchObject({ error: { code: "unauthorized" } });
    }
    const post = await fetch(`${server.url}/metrics`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}` } });
    expect(post.status).toBe(405);
  });

  it("does not exist without METRICS_TOKEN", async () => {
    const response = await fetch(`${bare.url}/metrics`, { headers: { authorization: "Bearer anything" } });
    expect(response.status).toBe(404);
  });

  it("counts a fast-path grant, and the token response says nothing of it", async () => {
    const read = async () =>
      (await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text()).match(
        /^platform_token_requests_total\{path="client_credentials_fast"\} (\d+)$/m,
      )![1];
    const before = Number(await read());
    const app = await createTestApp(server.databaseUrl, { type: "api", scopes: ["svc:chat.read"] });
    const answer = await tokenRequest(server, { grant_type: "client_credentials", client_id: app.clientId, client_secret: app.clientSecret });
    expect(answer.status).toBe(200);
    expect(Number(await read())).toBe(before + 1);
    for (const [name, value] of answer.headers) expect(`${name}: ${value}`).not.toMatch(/fast|path|metric/i);
  });
});

describe("the operator's metrics (issue 30)", () => {
  it("parse strictly, with every family the operator needs", async () => {
    const exposition = await scrape();
    const types = Object.fromEntries([...exposition.families.values()].map((f) => [f.name, f.type]));
    expect(types).toMatchObject({
      platform_http_requests_total: "counter",
      platform_http_request_duration_seconds: "histogram",
      platform_token_grants_total: "counter",
      platform_token_requests_total: "counter",
      platform_hosted_page_requests_total: "counter",
      platform_change_channel_reconnects_total: "counter",
      platform_change_channel_up: "gauge",
      platform_change_channel_lag_seconds: "gauge",
      platform_change_channel_deaf: "gauge",
      platform_webhook_deliveries_total: "counter",
      platform_webhook_queue_depth: "gauge",
      platform_database_pool_connections: "gauge",
      process_resident_memory_bytes: "gauge",
      nodejs_eventloop_lag_seconds: "gauge",
    });
    for (const family of exposition.families.values()) expect(family.help, family.name).toBeTruthy();
    expect(sampleValue(exposition, "platform_change_channel_up")).toBe(1);
    expect(sampleValue(exposition, "platform_change_channel_deaf")).toBe(0);
    expect(sampleValue(exposition, "platform_database_pool_connections", { pool: "primary", state: "max" })).toBeGreaterThan(0);
    expect(sampleValue(exposition, "platform_webhook_queue_depth", { scope: "database" })).toBe(0);
    // Without DATABASE_REPLICA_URLS nothing of the read replicas starts (lib/database/replicas.ts).
    expect(types.platform_database_replica_up).toBeUndefined();
    expect(types.platform_database_routed_reads_total).toBeUndefined();
  });

  it("move with traffic, labelled by route template and status, never by the raw path", async () => {
    const route = { route: "GET /api/v1/users/{username}", status: "404" };
    const grant = { grant_type: "client_credentials", result: "success" };
    const refused = { grant_type: "client_credentials", result: "invalid_client" };
    const before = await scrape();
    const count = (e: Exposition, name: string, labels: Record<string, string>) => sampleValue(e, name, labels) ?? 0;

    for (let i = 0; i < 3; i++) {
      const answer = await fetch(`${server.apiUrl}/users/raw-path-${i}-never-a-label`);
      expect(answer.status).toBe(404);
    }
    const app = await createTestApp(server.databaseUrl, { type: "api", scopes: ["svc:chat.read"] });
    expect((await tokenRequest(server, { grant_type: "client_credentials", client_id: app.clientId, client_secret: app.clientSecret })).status).toBe(200);
    expect((await tokenRequest(server, { grant_type: "client_credentials", client_id: app.clientId, client_secret: "wrong" })).status).toBe(401);

    const text = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    expect(text).not.toContain("never-a-label");
    expect(text).not.toContain(app.clientId);
    const after = parsePrometheusText(text);
    expect(count(after, "platform_http_requests_total", route) - count(before, "platform_http_requests_total", route)).toBe(3);
    expect(count(after, "platform_http_request_duration_seconds_count", route) - count(before, "platform_http_request_duration_seconds_count", route)).toBe(3);
    expect(count(after, "platform_token_grants_total", grant) - count(before, "platform_token_grants_total", grant)).toBe(1);
    expect(count(after, "platform_token_grants_total", refused) - count(before, "platform_token_grants_total", refused)).toBe(1);
    // Every HTTP series names a template: no label value carries an id or a query.
    for (const sample of after.families.get("platform_http_requests_total")!.samples) {
      expect(sample.labels.route).not.toMatch(/\?|raw-path|[0-9a-f]{16}/);
    }
  });

  it("are served on METRICS_PORT without a token, and nothing else there", async () => {
    const url = `http://127.0.0.1:${metricsPort}`;
    const exposition = await scrape(`${url}/metrics`, null);
    expect(exposition.families.get("platform_http_requests_total")?.type).toBe("counter");
    expect((await fetch(`${url}/readyz`)).status).toBe(404);
    // The main port has no /metrics without METRICS_TOKEN.
    expect((await fetch(`${proxied.url}/metrics`)).status).toBe(404);
  });

  it("listen on loopback only without METRICS_HOST, though HOST is every interface", async () => {
    const address = networkAddress();
    // The main port answers on the network address: the refusal below is the metrics port's own.
    expect((await fetch(`http://${address}:${new URL(proxied.url).port}/healthz`)).status).toBe(200);
    const error = await fetch(`http://${address}:${metricsPort}/metrics`).then(
      () => null,
      (e: Error) => e,
    );
    expect((error?.cause as { code?: string } | undefined)?.code).toBe("ECONNREFUSED");
  });

  it("ask for METRICS_TOKEN on METRICS_PORT when it is set, on whichever interface METRICS_HOST opens", async () => {
    const url = `http://${networkAddress()}:${tokenMetricsPort}/metrics`;
    const anonymous = await fetch(url);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
    expect((await fetch(url, { headers: { authorization: "Bearer not-the-token" } })).status).toBe(401);
    expect((await scrape(url)).families.get("platform_http_requests_total")?.type).toBe("counter");
  });
});

describe("GET /readyz (issue 30)", () => {
  it("is 200 while the database and the change channel are up, 503 naming them while the database is away, 200 again after", async () => {
    const ready = await fetch(`${proxied.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready", checks: { database: "up", change_channel: "up" }, down: [] });
    const reconnects = async () =>
      sampleValue(await scrape(`http://127.0.0.1:${metricsPort}/metrics`, null), "platform_change_channel_reconnects_total") ?? 0;
    const reconnectsBefore = await reconnects();

    await proxy.down("refuse");
    try {
      await until(
        async () => {
          const answer = await fetch(`${proxied.url}/readyz`);
          expect(answer.status).toBe(503);
          expect(await answer.json()).toEqual({
            status: "unavailable",
            checks: { database: "down", change_channel: "down" },
            down: ["database", "change_channel"],
          });
        },
        { withinMs: 10_000 },
      );
      // Liveness is another question: the process still answers.
      expect((await fetch(`${proxied.url}/healthz`)).status).toBe(200);
    } catch (error) {
      // What the server said while its database was away, for whoever reads the failure.
      (error as Error).message += `\nserver log:\n${proxied.logs.slice(-30).join("\n")}`;
      throw error;
    } finally {
      await proxy.up();
    }
    await until(
      async () => {
        expect((await fetch(`${proxied.url}/readyz`)).status).toBe(200);
      },
      { withinMs: 15_000 },
    );
    expect(await reconnects()).toBe(reconnectsBefore + 1);
  });
});
