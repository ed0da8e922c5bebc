import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, tokenRequest } from "../helpers/oidc";
import { startServer, type TestServer } from "../helpers/server";

/**
 * Issue 24: GET /metrics, this process's counters in Prometheus text, exists only with
 * METRICS_TOKEN and answers only its bearer; token responses never carry which path answered.
 */
const TOKEN = "metrics-token-for-this-test-0123456789abcdef";
let server: TestServer;
let bare: TestServer;

beforeAll(async () => {
  [server, bare] = await Promise.all([
    startServer({ seed: false, env: { METRICS_TOKEN: TOKEN } }),
    startServer({ seed: false, env: { METRICS_TOKEN: "" } }),
  ]);
});

afterAll(async () => {
  await Promise.all([server?.stop(), bare?.stop()]);
});

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
