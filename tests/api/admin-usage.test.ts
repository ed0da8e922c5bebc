import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliJson } from "../helpers/cli";
import { query } from "../helpers/db";
import { clientCredentialsToken, createTestApp } from "../helpers/oidc";
import { newDatabase, pointAppAt, startServer, type TestServer } from "../helpers/server";
import type { UsageOverview } from "../../lib/services/usage";

/**
 * The admin usage overview's platform totals, trend and chart, from traffic made through
 * a real server (API calls, unknown paths, a quota's 429s, token requests) plus older minutes
 * written in SQL for the range before: the totals are the sums of the per-app rows the rankings are
 * read from, the chart's slots add up to them, and the previous range counts what lies before the
 * range and nothing in it, in every range.
 */
const FLUSH_MS = 150;

let databaseUrl: string;
let server: TestServer;
let closeDb: () => Promise<void>;
let busy: { clientId: string; clientSecret: string };
let limited: { clientId: string; clientSecret: string };

async function call(path: string, token: string, method = "GET"): Promise<number> {
  const res = await fetch(`${server.apiUrl}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
  await res.text();
  return res.status;
}

async function flushed(total: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const [row] = await query<{ n: number }>(databaseUrl, `SELECT coalesce(sum(count), 0)::int AS n FROM "UsageCount"`);
    if (row!.n >= total || Date.now() > deadline) return;
    await new Promise((r) => setTimeout(r, FLUSH_MS));
  }
}

/** Minutes of one client written as the meter would, `hoursAgo` before now. */
async function insertCounts(clientId: string, hoursAgo: number, rows: { route: string; status: number; code?: string; count: number }[]) {
  for (const r of rows) {
    await query(
      databaseUrl,
      `INSERT INTO "UsageCount" ("clientId", route, status, "errorCode", "periodStart", count)
       VALUES ($1, $2, $3, $4, date_trunc('minute', now() - $5 * interval '1 hour'), $6)`,
      [clientId, r.route, r.status, r.code ?? "", hoursAgo, r.count],
    );
  }
}

async function overview(range: "24h" | "7d" | "30d"): Promise<UsageOverview> {
  const { getUsageOverview } = await import("../../lib/services/usage");
  const { CLI_ACTOR } = await import("../../lib/services/actor");
  return getUsageOverview(range, CLI_ACTOR);
}

/** The figures equal the sums of the rows, and the chart's slots add up to them. */
function expectAddsUp(o: UsageOverview) {
  const sum = (of: (a: UsageOverview["apps"][number]) => number) => o.apps.reduce((n, a) => n + of(a), 0);
  expect(o.totals.requests).toBe(sum((a) => a.total));
  expect(o.totals.errors).toBe(sum((a) => a.errors));
  expect(o.totals.limited).toBe(sum((a) => a.limited));
  expect(o.totals.errorRate).toBeCloseTo(o.totals.requests ? o.totals.errors / o.totals.requests : 0, 10);
  const slots = o.series.reduce((n, p) => n + p["2xx"] + p["4xx"] + p["5xx"], 0);
  const slotErrors = o.series.reduce((n, p) => n + p["4xx"] + p["5xx"], 0);
  expect(slots, "the chart's slots add up to the requests").toBe(o.totals.requests);
  expect(slotErrors, "and its 4xx and 5xx to the errors").toBe(o.totals.errors);
}

beforeAll(async () => {
  databaseUrl = await newDatabase({ seed: true });
  server = await startServer({ databaseUrl, env: { USAGE_FLUSH_MS: String(FLUSH_MS) } });
  closeDb = await pointAppAt(databaseUrl);
  busy = (await createTestApp(databaseUrl, { type: "api", scopes: ["svc:directory.read"], name: "Busy overview bot" })) as typeof busy;
  limited = (await createTestApp(databaseUrl, { type: "api", scopes: ["svc:directory.read"], name: "Limited overview bot" })) as typeof limited;
});

afterAll(async () => {
  await closeDb?.();
  await server?.stop();
});

describe("the admin usage overview's totals and trend", () => {
  it("totals are the sums of the per-app rows, and the chart adds up to them, after real traffic", async () => {
    const empty = await overview("24h");
    expect(empty.totals).toEqual({ requests: 0, errors: 0, limited: 0, errorRate: 0 });
    expect(empty.series.every((p) => p["2xx"] + p["4xx"] + p["5xx"] === 0)).toBe(true);

    const busyToken = (await clientCredentialsToken(server, busy.clientId, busy.clientSecret)).access_token;
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push(await call("/users/alice", busyToken));
    statuses.push(await call("/users/no-such-person-28", busyToken));
    statuses.push(await call("/no/such/endpoint", busyToken));
    statuses.push(await call("/global-chat/messages", busyToken));
    expect(statuses).toEqual([200, 200, 200, 200, 200, 404, 404, 403]);
    await cliJson(databaseUrl, ["apps", "limit", limited.clientId, "--per-minute", "2"]);
    const limitedToken = (await clientCredentialsToken(server, limited.clientId, limited.clientSecret)).access_token;
    const limitedStatuses: number[] = [];
    for (let i = 0; i < 4; i++) limitedStatuses.push(await call("/users/alice", limitedToken));
    // A window boundary may fall between the calls: whatever the split, the sums must agree.
    expect(limitedStatuses.filter((s) => s === 429).length).toBeLessThanOrEqual(2);
    // Two token requests (1 each) and 12 API calls.
    await flushed(14);

    const o = await overview("24h");
    expectAddsUp(o);
    const busyRow = o.apps.find((a) => a.clientId === busy.clientId)!;
    expect(busyRow).toMatchObject({ name: "Busy overview bot", total: 9, errors: 3, limited: 0 });
    const limitedRow = o.apps.find((a) => a.clientId === limited.clientId)!;
    expect(limitedRow).toMatchObject({ name: "Limited overview bot", total: 5, limited: limitedStatuses.filter((s) => s === 429).length });
    expect(o.totals.requests).toBe(14);
    expect(o.apps.map((a) => a.clientId)).toEqual([busy.clientId, limited.clientId]);
    expect(o.previous).toEqual({ requests: 0, errors: 0, limited: 0, errorRate: 0 });
  });

  it("the previous range holds the range of equal length just before, in each of 24h, 7d and 30d", async () => {
    const before = { "24h": await overview("24h"), "7d": await overview("7d"), "30d": await overview("30d") };
    // 30 hours ago: in 7d and 30d, and in the 24 hours before the last 24.
    await insertCounts(busy.clientId, 30, [
      { route: "GET /users/{username}", status: 200, count: 40 },
      { route: "GET /users/{username}", status: 500, code: "internal_error", count: 10 },
    ]);
    // 10 days ago: in 30d, and in the 7 days before the last 7.
    await insertCounts(limited.clientId, 240, [{ route: "GET /users/{username}", status: 429, code: "rate_limited", count: 7 }]);
    // 50 days ago: before every range but 30d's previous one.
    await insertCounts(busy.clientId, 50 * 24, [{ route: "GET /me", status: 200, count: 3 }]);
    // Failed token requests of unauthenticated callers are nobody's traffic: in no figure.
    await insertCounts(busy.clientId, 2, [{ route: "unauthenticated:client_credentials", status: 401, code: "invalid_client", count: 99 }]);

    const day = await overview("24h");
    expectAddsUp(day);
    expect(day.totals).toEqual(before["24h"].totals);
    expect(day.previous).toEqual({ requests: 50, errors: 10, limited: 0, errorRate: 0.2 });

    const week = await overview("7d");
    expectAddsUp(week);
    expect(week.totals.requests).toBe(before["7d"].totals.requests + 50);
    expect(week.totals.errors).toBe(before["7d"].totals.errors + 10);
    expect(week.previous).toEqual({ requests: 7, errors: 7, limited: 7, errorRate: 1 });

    const month = await overview("30d");
    expectAddsUp(month);
    expect(month.totals.requests).toBe(before["30d"].totals.requests + 57);
    expect(month.totals.limited).toBe(before["30d"].totals.limited + 7);
    expect(month.previous).toEqual({ requests: 3, errors: 0, limited: 0, errorRate: 0 });
  });

  it("lists every app with traffic (more than the ten shown, so an 'other apps' row can add up), a sandbox named after its app", async () => {
    for (let i = 0; i < 12; i++) {
      await insertCounts(`api_overview_gone_${String(i).padStart(2, "0")}`, 1, [{ route: "GET /me", status: 200, count: 1 + i }]);
    }
    await insertCounts(`sbx_${busy.clientId}`, 1, [{ route: "GET /me", status: 404, code: "not_found", count: 4 }]);
    const o = await overview("24h");
    expectAddsUp(o);
    expect(o.apps.length).toBe(15);
    expect(o.apps.find((a) => a.clientId === `sbx_${busy.clientId}`)).toMatchObject({ name: "Busy overview bot", total: 4, errors: 4 });
    expect(o.apps.find((a) => a.clientId === "api_overview_gone_00")).toMatchObject({ name: null, total: 1 });
    // Most traffic first.
    expect(o.apps.map((a) => a.total)).toEqual([...o.apps.map((a) => a.total)].sort((a, b) => b - a));
  });

  it("is for admins only", async () => {
    const { getUsageOverview } = await import("../../lib/services/usage");
    await expect(getUsageOverview("24h", { kind: "user", id: 1, handle: "alice", role: "user" })).rejects.toMatchObject({ code: "forbidden" });
  });
});
