import { expect, type Browser, type Page } from "@playwright/test";
import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import { CALLBACK, checkLayout, newPersonPage, query, server, signIn, type LayoutProblem } from "./support";

/**
 * The layout, accessibility and console sweep: every page of the portal, the docs, the
 * admin area and the hosted sign-in pages, at 390 px and 1280 px, with realistic long data — a
 * 120-character app name, a 300-character unbroken URL in descriptions, 60 pending apps, a team of
 * 20 with 60-character names, 1,000 request-log rows and 200 audit entries. Each page
 * fails when the document is wider than the viewport, when an element is taller than the viewport
 * without scrolling inside (a text column squeezed by something beside it), when a text block is
 * squeezed into a column a word wide or under 12 px, when a table scrolls sideways in its box, when the console shows an error or a request fails, or when
 * axe reports a serious or critical violation (in the light theme, then switched in place to the
 * dark one, where the body must be drawn dark); each page is visited twice (checkLayout's `again`), so
 * an intermittent console error such as a hydration mismatch shows. A full-page screenshot of each page at both widths
 * goes to test-results/screenshots/sweep-*.jpg.
 *
 * The sweep is two spec files that Playwright's two workers run side by side (layout-sweep: the
 * public and the owner's pages; layout-sweep-more: docs, account, admin and the hosted pages); this
 * module holds what they share. One browser context per person (signed out, alice the developer,
 * carol who signs in to alice's login client, the admin) per file, signed in once. Every row this file creates starts with PREFIX; other
 * spec files share the database, so nothing here assumes it is alone. A page that fails is its own
 * test, so one defect does not hide the others.
 */

const PREFIX = "Sweep ·";
/** A 300-character URL without a single break opportunity (no spaces, no hyphens). */
const LONG_URL = `https://example.com/${"a1b2c3d4e5".repeat(28)}`.slice(0, 300);
const LONG_NAME = `${PREFIX} Global Chat Moderation Digest and Weekly Community Highlights Summariser for the Platform Trust and Safety Team`
  .padEnd(120, "x")
  .slice(0, 120);
const LONG_DESCRIPTION = `Reads the global chat and mails a digest to moderators every morning. Spec and runbook: ${LONG_URL} — questions to the trust and safety team.`;
const LONG_REASON = `The description must say what the app stores and for how long; see ${LONG_URL} and resubmit with a data-retention note.`;

interface SweepApp {
  key: "pending" | "rejected" | "approvedNew" | "approvedKept" | "suspended" | "login";
  clientId: string;
  name: string;
}

export const people: Record<"anonymous" | "alice" | "carol" | "admin", Page | undefined> = {
  anonymous: undefined,
  alice: undefined,
  carol: undefined,
  admin: undefined,
};
const apps = new Map<SweepApp["key"], SweepApp>();
export const foreignRequests: string[] = [];

async function userId(handle: string): Promise<number> {
  const rows = await query<{ id: number }>(server.databaseUrl, `SELECT id FROM "User" WHERE handle = $1`, [handle]);
  return rows[0]!.id;
}

async function insertApp(app: {
  clientId: string;
  name: string;
  description: string;
  type: "api" | "login";
  status: "pending" | "approved" | "rejected" | "suspended";
  ownerId: number;
  reason?: string;
  scopes?: string[];
  redirectUris?: string[];
  postLogoutRedirectUris?: string[];
  createdAt?: Date;
}): Promise<number> {
  const rows = await query<{ id: number }>(
    server.databaseUrl,
    `INSERT INTO "Application" ("clientId", name, description, type, status, "statusReason", "ownerId", scopes,
       "redirectUris", "postLogoutRedirectUris", "reviewedAt", "createdAt", "updatedAt")
     VALUES ($1, $2, $3, $4::"AppType", $5::"AppStatus", $6, $7, $8, $9, $10, $11, $12, $12) RETURNING id`,
    [
      app.clientId,
      app.name,
      app.description,
      app.type,
      app.status,
      app.reason ?? null,
      app.ownerId,
      app.scopes ?? [],
      app.redirectUris ?? [],
      app.postLogoutRedirectUris ?? [],
      app.status === "pending" ? null : new Date(),
      app.createdAt ?? new Date(),
    ],
  );
  return rows[0]!.id;
}

/**
 * The long data, once per run (each run gets a fresh database; a restarted worker finds it). The
 * apps are written straight to the database: the form caps names at 80 characters, and the point
 * is what the pages do with data that long, however it got there.
 */
async function ensureDataUnlocked(): Promise<void> {
  const existing = await query<{ clientId: string; name: string; description: string; status: string; type: string }>(
    server.databaseUrl,
    `SELECT "clientId", name, description, status::text, type::text FROM "Application" WHERE name LIKE $1 AND name NOT LIKE $2`,
    [`${PREFIX}%`, `${PREFIX} queue%`],
  );
  if (existing.length) {
    for (const row of existing) {
      const key = row.description.split("·")[0]!.trim() as SweepApp["key"];
      apps.set(key, { key, clientId: row.clientId, name: row.name });
    }
    return;
  }
  const alice = await userId("alice");
  const bob = await userId("bob");
  const id = (type: "api" | "login") => `${type === "api" ? "api" : "app"}_sweep${randomBytes(8).toString("hex")}`;
  const add = async (
    key: SweepApp["key"],
    fields: Omit<Parameters<typeof insertApp>[0], "clientId" | "name" | "description" | "ownerId">,
    name = LONG_NAME,
  ) => {
    const clientId = id(fields.type);
    // The key leads the description so a restarted worker can find each app again.
    const rowId = await insertApp({ ...fields, clientId, name, description: `${key} · ${LONG_DESCRIPTION}`, ownerId: alice });
    apps.set(key, { key, clientId, name });
    return rowId;
  };
  const scopes = ["svc:chat.read", "svc:chat.write", "svc:profiles.read"];
  await add("pending", { type: "api", status: "pending", scopes });
  await add("rejected", { type: "api", status: "rejected", reason: LONG_REASON, scopes });
  await add("approvedNew", { type: "api", status: "approved", scopes });
  const kept = await add("approvedKept", { type: "api", status: "approved", scopes }, `${PREFIX} ${"Nightly".padEnd(40, "x")}`);
  const secret = randomBytes(32).toString("base64url");
  await query(server.databaseUrl, `INSERT INTO "ClientSecret" (id, "applicationId", hash, hint) VALUES ($1, $2, $3, $4)`, [
    `sec_sweep${randomBytes(6).toString("hex")}`,
    kept,
    createHash("sha256").update(secret).digest("hex"),
    secret.slice(-4),
  ]);
  // A team on the kept app: a member with a long display name.
  await query(
    server.databaseUrl,
    `INSERT INTO "User" (handle, "displayName", "updatedAt") VALUES ('sweep_member', $1, now()) ON CONFLICT ("worldId", handle) DO NOTHING`,
    [`${PREFIX} ${"Teammate".repeat(12)}`],
  );
  await query(
    server.databaseUrl,
    `INSERT INTO "AppMember" ("applicationId", "userId", role) SELECT $1, id, 'viewer' FROM "User" WHERE handle = 'sweep_member'`,
    [kept],
  );
  // A team of 20, with 60-character names, in the app page's side column.
  for (let i = 1; i < 20; i++) {
    const handle = `sweep_team_member_${String(i).padStart(2, "0")}`;
    const name = `Carolina Lindqvist-Montgomery of Trust and Safety, number ${i}`.padEnd(60, ".").slice(0, 60);
    await query(server.databaseUrl, `INSERT INTO "User" (handle, "displayName", "updatedAt") VALUES ($1, $2, now()) ON CONFLICT ("worldId", handle) DO NOTHING`, [handle, name]);
    await query(
      server.databaseUrl,
      `INSERT INTO "AppMember" ("applicationId", "userId", role) SELECT $1, id, $3::"AppMemberRole" FROM "User" WHERE handle = $2 ON CONFLICT DO NOTHING`,
      [kept, handle, i % 3 ? "viewer" : "admin"],
    );
  }
  await seedUsage(app("approvedKept").clientId, alice);
  await seedAudit(alice);
  await add("suspended", { type: "api", status: "suspended", reason: LONG_REASON, scopes });
  await add("login", {
    type: "login",
    status: "approved",
    scopes: ["svc:chat.read", "svc:profiles.read"],
    redirectUris: [CALLBACK, `https://example.com/callback/${LONG_URL.slice(20)}`],
    postLogoutRedirectUris: [`https://example.com/signed-out/${LONG_URL.slice(20)}`],
  });
  // Alice authorized her own login client: Connected apps lists it (long name, long description).
  await query(
    server.databaseUrl,
    `INSERT INTO "Consent" ("userId", "clientId", scopes, "createdAt", "updatedAt", "lastUsedAt")
     VALUES ($1, $2, $3, now(), now(), now())`,
    [alice, app("login").clientId, ["openid", "profile", "svc:chat.read", "svc:profiles.read"]],
  );
  // A review queue of 60 (bob's), oldest first, each with the long URL in its description.
  const start = Date.now() - 60 * 60_000;
  for (let i = 0; i < 60; i++) {
    await insertApp({
      clientId: id(i % 3 ? "api" : "login"),
      name: `${PREFIX} queue ${String(i + 1).padStart(2, "0")} ${i % 5 === 0 ? LONG_NAME.slice(PREFIX.length + 1, 100) : "Chat digest"}`,
      description: `Queue app ${i + 1}. Details: ${LONG_URL}`,
      type: i % 3 ? "api" : "login",
      status: "pending",
      ownerId: bob,
      scopes: i % 2 ? ["svc:chat.read"] : ["svc:profiles.read", "svc:stats.read"],
      redirectUris: i % 3 ? [] : [`https://example.com/cb/${LONG_URL.slice(20, 200)}`],
      createdAt: new Date(start + i * 60_000),
    });
  }
  await seedPlatformUsage();
  await seedAgents();
}

/**
 * AI agents' clients for the admin's Agents page (issue 40): long client URLs (the 300-character
 * one among them), a long claimed name, each status, and domain and URL rules. Written straight to
 * the database: no one fetches these documents (their hosts do not exist).
 */
async function seedAgents(): Promise<void> {
  const owner = await userId("platform");
  const agents: [string, string, string, string | null][] = [
    [`https://assistant.example.com/oauth/${LONG_URL.slice(20)}/client.json`, LONG_NAME, "approved", null],
    ["https://mcp-clients.research-lab.example.org/agents/literature-review-assistant/client-metadata.json", "Literature Review Assistant", "suspended", LONG_REASON],
    ["https://code.example.dev/cli/client.json", "Code Helper", "pending", null],
  ];
  for (const [clientId, name, status, reason] of agents) {
    await query(
      server.databaseUrl,
      `INSERT INTO "Application" ("clientId", name, description, type, status, "statusReason", "ownerId", scopes, "redirectUris",
         "postLogoutRedirectUris", "agentMetadata", "agentMetadataExpiresAt", "lastSeenAt", "createdAt", "updatedAt")
       VALUES ($1, $2, 'An AI agent', 'agent', $3::"AppStatus", $4, $5, '{}', $6, '{}', $7, now() + interval '1 day', now(), now(), now())
       ON CONFLICT ("clientId") DO NOTHING`,
      [clientId, name, status, reason, owner, [CALLBACK], JSON.stringify({ client_id: clientId, client_name: name, redirect_uris: [CALLBACK] })],
    );
  }
  await query(
    server.databaseUrl,
    `INSERT INTO "AgentRule" (kind, value, policy) VALUES ('domain', 'mcp-clients.research-lab.example.org', 'blocked'),
       ('domain', 'code.example.dev', 'review'), ('url', $1, 'blocked') ON CONFLICT DO NOTHING`,
    [`https://scraper.example.net/${LONG_URL.slice(20, 200)}/client.json`],
  );
}

/** The API's routes as the meter names them (more than Top routes lists, so its "other routes" row shows). */
const ROUTES = [
  "GET /users/{username}",
  "GET /me",
  "GET /me/stats",
  "GET /global-chat/messages",
  "POST /global-chat/messages",
  "POST /directory/resolve",
  "GET /users",
  "GET /events",
  "GET /me/notifications",
  "POST /users/{handle}/poke",
  "GET /me/beetle",
  "GET /me/beetle/cards",
  "(no route)",
];
/** Status and SPEC error code by row number: every code the API answers with, so Errors by code is long. */
const OUTCOMES: [number, number, string | null][] = [
  // The longest codes (Errors by code wraps them at their underscores on a phone).
  [29, 422, "idempotency_key_reused"],
  [31, 409, "idempotency_key_in_use"],
  [23, 409, "conflict"],
  [19, 400, "invalid_request"],
  [17, 500, "internal_error"],
  [13, 429, "rate_limited"],
  [11, 401, "invalid_token"],
  [9, 404, "not_found"],
  [7, 403, "insufficient_scope"],
];

/**
 * Issue 28's long data for the Usage tab: 1,000 request-log rows over the last 22 hours (with a
 * client-chosen 64-character request id here and there, delegated users, every error code), the
 * per-minute counts and latency histogram the figures and charts read, made from the same rows, and
 * 30 days of hourly counts before them (the 30-day chart). In SQL: 1,000 HTTP calls would take
 * minutes and measure nothing the sweep looks at.
 */
async function seedUsage(clientId: string, userId: number): Promise<void> {
  const status = OUTCOMES.map(([n, code]) => `WHEN i % ${n} = 0 THEN ${code}`).join(" ");
  const errorCode = OUTCOMES.map(([n, , code]) => `WHEN i % ${n} = 0 THEN '${code}'`).join(" ");
  await query(
    server.databaseUrl,
    `INSERT INTO "RequestLog" ("clientId", at, method, route, status, "errorCode", "latencyMs", "requestId", "userId", path, "errorMessage", "rateLimit", "rateRemaining")
     SELECT $1, now() - i * interval '79 seconds', split_part(r.route, ' ', 1), r.route, s.status, s.code, 3 + (i * 37) % 480,
            CASE WHEN i % 50 = 0 THEN 'client-chosen-request-id-' || rpad(md5(i::text), 39, 'x') ELSE gen_random_uuid()::text END,
            CASE WHEN i % 3 = 0 THEN $2::int END,
            CASE WHEN r.route = '(no route)' THEN '/v1/no/such/path/' || repeat('segment', 8) END,
            CASE WHEN s.status >= 400 THEN 'The request failed: ' || s.code || ' (a message as long as the API ever writes one, to see it wrap).' END,
            600, greatest(0, 600 - i % 601)
       FROM generate_series(1, 1000) i,
            LATERAL (SELECT ($3::text[])[1 + (i * 7) % array_length($3::text[], 1)] AS route) r,
            LATERAL (SELECT CASE ${status} ELSE 200 END AS status, CASE ${errorCode} END AS code) s`,
    [clientId, userId, ROUTES],
  );
  await query(
    server.databaseUrl,
    `INSERT INTO "UsageCount" ("clientId", route, status, "errorCode", "periodStart", count)
     SELECT "clientId", route, status, coalesce("errorCode", ''), date_trunc('minute', at), count(*)::int
       FROM "RequestLog" WHERE "clientId" = $1 GROUP BY 1, 2, 3, 4, 5
     UNION ALL
     SELECT $1, ($2::text[])[1 + h % 5], CASE WHEN h % 11 = 0 THEN 404 ELSE 200 END, CASE WHEN h % 11 = 0 THEN 'not_found' ELSE '' END,
            date_trunc('hour', now()) - h * interval '1 hour', 5 + (h * 13) % 40
       FROM generate_series(24, 30 * 24) h
     UNION ALL
     SELECT $1, 'token:client_credentials', 200, '', date_trunc('hour', now()) - h * interval '1 hour', 1
       FROM generate_series(1, 20) h`,
    [clientId, ROUTES],
  );
  await query(
    server.databaseUrl,
    `INSERT INTO "UsageLatency" ("clientId", route, "periodStart", bucket, count)
     SELECT "clientId", route, "periodStart", (abs(hashtext(route)) % 12)::smallint, sum(count)::int
       FROM "UsageCount" WHERE "clientId" = $1 GROUP BY 1, 2, 3, 4`,
    [clientId],
  );
}

/** Issue 28's long audit log: 200 entries of alice's, with long detail and the long app name as target. */
async function seedAudit(aliceId: number): Promise<void> {
  await query(
    server.databaseUrl,
    `INSERT INTO "AuditLog" ("actorId", "actorHandle", action, "targetType", "targetId", outcome, detail, ip, "createdAt")
     SELECT $1, 'alice', (ARRAY['app.update', 'app.secret.create', 'app.member.add', 'app.submit', 'user.sign_in'])[1 + i % 5],
            CASE WHEN i % 5 = 4 THEN 'user' ELSE 'app' END, CASE WHEN i % 5 = 4 THEN 'alice' ELSE $2 END,
            CASE WHEN i % 17 = 0 THEN 'denied' ELSE 'ok' END,
            jsonb_build_object('fields', ARRAY['name', 'description', 'scopes', 'redirect_uris'], 'note', $3::text),
            '2001:db8:85a3:0000:0000:8a2e:0370:' || lpad(i::text, 4, '0'), now() - i * interval '7 minutes'
       FROM generate_series(1, 200) i`,
    [aliceId, app("approvedKept").clientId, LONG_DESCRIPTION],
  );
}

/**
 * Issue 28's long data for the admin usage overview: 24 of the queue's apps (long names among them),
 * a sandbox and a deleted app with a 64-character client id, each with traffic 25 to 71 hours ago
 * (the 7-day view; and the 24 hours before the last 24, the trend of the 24-hour view, so the other
 * spec files' apps still lead the 24-hour rankings), errors and 429s, so all three rankings list
 * ten and "Most traffic" has its "other apps" row.
 */
async function seedPlatformUsage(): Promise<void> {
  await query(
    server.databaseUrl,
    `WITH clients AS (
       SELECT "clientId", row_number() OVER (ORDER BY "createdAt") AS n FROM "Application" WHERE name LIKE $1 ORDER BY "createdAt" LIMIT 24
     ), every AS (
       SELECT "clientId", n FROM clients
       UNION ALL SELECT 'sbx_' || "clientId", 25 FROM clients WHERE n = 1
       UNION ALL SELECT 'api_sweep_deleted_' || rpad('', 46, 'd'), 26
     )
     INSERT INTO "UsageCount" ("clientId", route, status, "errorCode", "periodStart", count)
     SELECT e."clientId", s.route, s.status, s.code, date_trunc('hour', now()) - h * interval '1 hour', (e.n * 7 + h * 3) % 50 + 1
       FROM every e, generate_series(25, 71) h,
            LATERAL (VALUES ('GET /me', 200, ''), ('token:client_credentials', 200, ''),
                            ('GET /users/{username}', CASE WHEN e.n % 4 = 0 THEN 429 ELSE 404 END, CASE WHEN e.n % 4 = 0 THEN 'rate_limited' ELSE 'not_found' END),
                            ('POST /directory/resolve', 500, 'internal_error')) s(route, status, code)
      WHERE h % 6 <> 0 OR s.status < 400`,
    [`${PREFIX} queue%`],
  );
}

export function app(key: SweepApp["key"]): SweepApp {
  const found = apps.get(key);
  if (!found) throw new Error(`sweep app ${key} missing`);
  return found;
}

type SweepOptions = { status?: number | "4xx"; again?: (page: Page) => Promise<unknown>; dark?: boolean };

/**
 * Opens a page as `who` and runs every check at both widths, in the light theme and then, in place,
 * the dark one (checkLayout's `dark`: screenshots named dark-*, the body drawn dark exactly when
 * the browser prefers it); returns the problems found.
 */
export function sweep(who: keyof typeof people, name: string, open: (page: Page) => Promise<unknown>, options: SweepOptions = {}): Promise<LayoutProblem[]> {
  return checkLayout(people[who]!, name, open, { dark: true, ...options });
}

/** The same checks in the light theme only. */
export function sweepLight(who: keyof typeof people, name: string, open: (page: Page) => Promise<unknown>, options: SweepOptions = {}): Promise<LayoutProblem[]> {
  return sweep(who, name, open, { ...options, dark: false });
}

export function expectClean(problems: LayoutProblem[]): void {
  expect(problems.map((p) => `${p.width}px ${p.check}: ${p.detail}`)).toEqual([]);
}

/**
 * The long data, once per run, whichever spec file gets there first: under an advisory lock, so
 * the other worker waits and then finds the rows.
 */
async function ensureData(): Promise<void> {
  const client = new pg.Client({ connectionString: server.databaseUrl });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock(hashtext('e2e layout sweep data'))");
    await ensureDataUnlocked();
  } finally {
    await client.end();
  }
}

/** Opens the four people's pages in the light theme and signs alice and the admin in. */
export async function openPeople(browser: Browser): Promise<void> {
  await ensureData();
  people.anonymous = await newPersonPage(browser, foreignRequests, { colorScheme: "light" });
  people.alice = await newPersonPage(browser, foreignRequests, { colorScheme: "light" });
  people.admin = await newPersonPage(browser, foreignRequests, { colorScheme: "light" });
  people.carol = await newPersonPage(browser, foreignRequests, { colorScheme: "light" });
  await signIn(people.alice, "alice");
  await signIn(people.admin, "admin", "/admin");
}

export async function closePeople(): Promise<void> {
  for (const page of Object.values(people)) await page?.context().close();
}
