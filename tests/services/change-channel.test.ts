import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../helpers/db";
import { newDatabase, pointAppAt } from "../helpers/server";

/**
 * Issue 12, the change channel (lib/database/changes.ts) against a real PostgreSQL: a change is
 * delivered when its transaction commits and never when it rolls back; the acting process applies
 * it at once; a killed LISTEN connection is re-established with backoff, every cache is dropped
 * (changes may have been missed), and the next change is heard again.
 */
let databaseUrl: string;
let closeDb: () => Promise<void>;
let changes: typeof import("../../lib/database/changes");
let db: typeof import("../../lib/database/client");
let listener: { ready: Promise<void>; stop(): Promise<void> };
const heard: string[] = [];

beforeAll(async () => {
  databaseUrl = await newDatabase({ seed: false });
  closeDb = await pointAppAt(databaseUrl, { LOG_LEVEL: "silent" });
  changes = await import("../../lib/database/changes");
  db = await import("../../lib/database/client");
  changes.onChange((event) => heard.push(JSON.stringify(event)));
  listener = changes.startChangeListener();
  await listener.ready;
});

afterAll(async () => {
  await listener?.stop();
  await closeDb?.();
});

async function until(predicate: () => boolean, ms = 2_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`not heard within ${ms} ms: ${heard.join(" ")}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const count = (event: object) => heard.filter((h) => h === JSON.stringify(event)).length;

describe("change channel", () => {
  it("delivers a committed change to listeners, applies it locally at once, and drops a rolled-back one", async () => {
    const change = { kind: "app", clientId: "api_committed" } as const;
    await changes.transactionWithChanges(async (_tx, announce) => announce(change));
    // Applied in this process right after the commit, before the NOTIFY round trip…
    expect(count(change)).toBeGreaterThanOrEqual(1);
    // …and heard again from PostgreSQL.
    await until(() => count(change) === 2);

    const lost = { kind: "user", userId: 4242 } as const;
    await expect(
      changes.transactionWithChanges(async (_tx, announce) => {
        await announce(lost);
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    const marker = { kind: "grant", userId: 1, clientId: "marker" } as const;
    await db.pool.query("SELECT pg_notify($1, $2)", [changes.CHANGES_CHANNEL, JSON.stringify(marker)]);
    await until(() => count(marker) === 1);
    expect(count(lost)).toBe(0);
  });

  it("ignores a malformed message", async () => {
    await db.pool.query("SELECT pg_notify($1, $2)", [changes.CHANGES_CHANNEL, "{not json"]);
    await db.pool.query("SELECT pg_notify($1, $2)", [changes.CHANGES_CHANNEL, JSON.stringify({ kind: "app" })]);
    const marker = { kind: "keys" } as const;
    await db.pool.query("SELECT pg_notify($1, $2)", [changes.CHANGES_CHANNEL, JSON.stringify(marker)]);
    await until(() => count(marker) === 1);
    expect(heard.some((h) => h.includes("not json") || h === JSON.stringify({ kind: "app" }))).toBe(false);
  });

  it("reconnects after its connection is killed, drops every cache, and hears the next change", async () => {
    const before = count({ kind: "all" });
    const killed = await query<{ pid: number }>(
      databaseUrl,
      `SELECT pg_terminate_backend(pid), pid FROM pg_stat_activity WHERE application_name = 'platform-changes' AND datname = current_database()`,
    );
    expect(killed).toHaveLength(1);
    await until(() => count({ kind: "all" }) > before, 5_000);
    const next = { kind: "app", clientId: "api_after_reconnect" } as const;
    await db.pool.query("SELECT pg_notify($1, $2)", [changes.CHANGES_CHANNEL, JSON.stringify(next)]);
    await until(() => count(next) === 1, 250);
  });
});
