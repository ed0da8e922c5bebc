import { beforeAll, describe, expect, it } from "vitest";
import { APP_STATUSES } from "../../lib/schemas/apps";
import { appLiveSql, isAppLiveIn, type AppWorld } from "../../lib/schemas/sandboxes";
import { query } from "../helpers/db";
import { newDatabase } from "../helpers/server";

/**
 * isAppLiveIn (TypeScript) and appLiveSql (its SQL fragment) say the same thing for every status
 * the database knows, in both worlds, and for a missing app: the SQL is run by PostgreSQL on the
 * "AppStatus" enum, so a status added by a migration is checked here without anyone listing it.
 */
const WORLDS: AppWorld[] = ["live", "sandbox"];
let databaseUrl: string;
let statuses: string[];

beforeAll(async () => {
  databaseUrl = await newDatabase({ seed: false });
  const rows = await query<{ label: string }>(
    databaseUrl,
    `SELECT e.enumlabel AS label FROM pg_enum e JOIN pg_type t ON t.oid = e.enumtypid WHERE t.typname = 'AppStatus' ORDER BY e.enumsortorder`,
  );
  statuses = rows.map((r) => r.label);
}, 120_000);

describe("this app is live in this world", () => {
  it("knows every status of the database", () => {
    expect([...statuses].sort()).toEqual([...APP_STATUSES].sort());
  });

  it("is the rule of SPEC and the sandbox: the live client only while approved, the sandbox unless suspended, a deleted app nowhere", () => {
    const table = Object.fromEntries(WORLDS.map((world) => [world, [...APP_STATUSES, null].filter((s) => isAppLiveIn(s, world))]));
    expect(table).toEqual({ live: ["approved"], sandbox: ["pending", "approved", "rejected"] });
  });

  it("says the same in SQL as in TypeScript, for every status and a missing app, in both worlds", async () => {
    for (const world of WORLDS) {
      const rows = await query<{ status: string | null; live: boolean }>(
        databaseUrl,
        // A LEFT JOIN that finds no app gives a NULL status, as the hot paths' joins do.
        `SELECT a.status::text AS status, coalesce(${appLiveSql("a.status", world)}, false) AS live
         FROM unnest($1::text[]) AS k(label) LEFT JOIN unnest(enum_range(NULL::"AppStatus")) AS a(status) ON a.status::text = k.label`,
        [[...statuses, "no such app"]],
      );
      expect(rows).toHaveLength(statuses.length + 1);
      for (const row of rows) expect({ world, status: row.status, live: row.live }).toEqual({ world, status: row.status, live: isAppLiveIn(row.status, world) });
    }
  });

  it("expands to the plain comparison the hot paths run (their statement text and plans stay as they were)", () => {
    expect(appLiveSql("a.status", "live")).toBe("a.status = 'approved'");
    expect(appLiveSql("a.status", "sandbox")).toBe("a.status <> 'suspended'");
  });
});
