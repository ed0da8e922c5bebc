import { beforeAll, describe, expect, it } from "vitest";
import { audienceRefusal, type Audience } from "../../lib/events/audience";
import { FANOUT_TARGETS_SQL } from "../../lib/events/worker";
import { EVENT_TYPES, type EventType } from "../../lib/schemas/events";
import { query } from "../helpers/db";
import { newDatabase } from "../helpers/server";

/**
 * One audience for events (STYLE: Surfaces share the rules): the fan-out's SQL writes the rule of
 * lib/events/audience.ts for a batch at once, and the two must agree. A matrix of apps (every review
 * status, with and without each scope), sandboxes (one with a pending change), people (consenting,
 * consenting without the scope, disabled, strangers) and events of every type in the catalog, in
 * every world, about every client and person: the attempts the fan-out's SQL writes are exactly the
 * pairs the predicate accepts. Pings are the exception by design: their one attempt is written with
 * them (the predicate still decides their retries).
 */
const CHAT = "svc:chat.read";
const NOTES = "svc:notifications.read";

let databaseUrl: string;
const sql = <T extends Record<string, unknown>>(text: string, params: unknown[] = []) => query<T>(databaseUrl, text, params);

interface Endpoint {
  id: string;
  audience: Omit<Audience, "granted">;
}

const endpoints: Endpoint[] = [];
/** `${userId}:${clientId}` → scopes, for people not disabled. */
const grants = new Map<string, string[]>();
const clients: string[] = [];
const people: number[] = [];
const worlds = [0];

beforeAll(async () => {
  databaseUrl = await newDatabase({ seed: false });
  const person = async (handle: string, disabled = false) => {
    const [row] = await sql<{ id: number }>(
      `INSERT INTO "User" (handle, "displayName", disabled, "updatedAt") VALUES ($1, $1, $2, now()) RETURNING id`,
      [handle, disabled],
    );
    people.push(row!.id);
    return row!.id;
  };
  const owner = await person("owner");
  const grantee = await person("grantee");
  const chatOnly = await person("chat_only");
  const disabled = await person("disabled", true);
  await person("stranger");

  const apps: { clientId: string; status: string; scopes: string[]; pending?: string[] }[] = [
    { clientId: "app-approved", status: "approved", scopes: [CHAT, NOTES] },
    { clientId: "app-chat-only", status: "approved", scopes: [CHAT], pending: [CHAT, NOTES] },
    { clientId: "app-pending", status: "pending", scopes: [CHAT, NOTES] },
    { clientId: "app-suspended", status: "suspended", scopes: [CHAT, NOTES] },
    { clientId: "app-rejected", status: "rejected", scopes: [NOTES] },
  ];
  for (const app of apps) {
    const [row] = await sql<{ id: number }>(
      `INSERT INTO "Application" ("clientId", name, type, status, "ownerId", scopes, "redirectUris", "postLogoutRedirectUris", "pendingChange", "updatedAt")
       VALUES ($1, $1, 'api', $2::"AppStatus", $3, $4, '{}', '{}', $5::jsonb, now()) RETURNING id`,
      [app.clientId, app.status, owner, app.scopes, app.pending ? JSON.stringify({ scopes: app.pending }) : null],
    );
    const [sandbox] = await sql<{ id: number }>(`INSERT INTO "Sandbox" ("applicationId", "clientId") VALUES ($1, $2) RETURNING id`, [row!.id, `sbx_${app.clientId}`]);
    worlds.push(sandbox!.id);
    clients.push(app.clientId, `sbx_${app.clientId}`);
    const base = { status: app.status, userId: null, via: "webhook" as const };
    for (const [clientId, worldId, scopes] of [
      [app.clientId, 0, app.scopes],
      [`sbx_${app.clientId}`, sandbox!.id, app.pending ?? app.scopes],
    ] as const) {
      const id = `wh_${clientId}`;
      await sql(`INSERT INTO "WebhookEndpoint" (id, "clientId", url, events, secrets, "updatedAt") VALUES ($1, $2, 'https://hooks.example/in', '{}', '[]', now())`, [id, clientId]);
      endpoints.push({ id, audience: { ...base, clientId, worldId, scopes } });
    }
    for (const [userId, scopes] of [
      [grantee, ["openid", CHAT, NOTES]],
      [chatOnly, ["openid", CHAT]],
      [disabled, ["openid", NOTES]],
    ] as const) {
      await sql(`INSERT INTO "Consent" ("userId", "clientId", scopes, "updatedAt") VALUES ($1, $2, $3, now())`, [userId, app.clientId, scopes]);
      if (userId !== disabled) grants.set(`${userId}:${app.clientId}`, [...scopes]);
    }
  }

  // Every type, in every world, about every client (and none), for every person (and none).
  const rows: [EventType, string | null, number | null, number, string][] = [];
  for (const type of EVENT_TYPES) {
    const kinds = type === "notification.created" ? ["poke", "app_review", "security"] : [null];
    for (const clientId of [null, ...clients])
      for (const userId of [null, ...people])
        for (const worldId of worlds)
          for (const kind of kinds) rows.push([type, clientId, userId, worldId, JSON.stringify(kind ? { type: kind } : {})]);
  }
  await sql(
    `INSERT INTO "Event" (id, type, "clientId", "userId", "worldId", data)
     SELECT 'evt_' || n, t, c, u, w, d::jsonb FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::text[]) WITH ORDINALITY AS x(t, c, u, w, d, n)`,
    [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2]), rows.map((r) => r[3]), rows.map((r) => r[4])],
  );
}, 60_000);

describe("the audience of an event", () => {
  it("the fan-out's SQL writes exactly the attempts the predicate allows, for every type in the catalog", async () => {
    const written = await sql<{ endpoint_id: string; event_id: string }>(
      `WITH ev AS (SELECT e.txid, e.seq, e.id, e.type, e."clientId", e."userId", e."worldId", e.data FROM "Event" e) ${FANOUT_TARGETS_SQL}`,
    );
    const events = await sql<{ id: string; type: EventType; clientId: string | null; userId: number | null; worldId: number; data: Record<string, unknown> }>(
      `SELECT id, type, "clientId", "userId", "worldId", data FROM "Event"`,
    );
    const allowed: string[] = [];
    const refused = new Map<EventType, number>();
    for (const event of events) {
      if (event.type === "ping") continue;
      for (const { id, audience } of endpoints) {
        const verdict = audienceRefusal(
          { ...audience, granted: (userId, scope) => grants.get(`${userId}:${audience.clientId}`)?.includes(scope) ?? false },
          event,
        );
        if (verdict === null) allowed.push(`${id} ${event.id}`);
        else refused.set(event.type, (refused.get(event.type) ?? 0) + 1);
      }
    }
    expect(written.map((w) => `${w.endpoint_id} ${w.event_id}`).sort()).toEqual(allowed.sort());
    // Not vacuous: every type (but ping) is both sent somewhere and refused somewhere.
    const sentTypes = new Set(written.map((w) => events.find((e) => e.id === w.event_id)!.type));
    for (const type of EVENT_TYPES.filter((t) => t !== "ping")) {
      expect(sentTypes.has(type), type).toBe(true);
      expect(refused.get(type) ?? 0, type).toBeGreaterThan(0);
    }
  });
});
