import { inject } from "vitest";
import { describe, expect, it } from "vitest";
import { listMigrations, migrate } from "./migrate";
import { migrationSql, schemaSnapshot } from "./schema-diff";
import { query } from "../../tests/helpers/db";
import { newDatabase } from "../../tests/helpers/server";

describe("migrate", () => {
  it("applies every migration once, in Prisma's _prisma_migrations layout, safely in parallel", async () => {
    const url = await newDatabase({ seed: false });
    await query(url, "DROP SCHEMA public CASCADE; CREATE SCHEMA public");
    // Two processes starting at once: the advisory lock serializes them, nothing is applied twice.
    const [a, b] = await Promise.all([migrate(url), migrate(url)]);
    const all = await listMigrations();
    expect([...a, ...b].sort()).toEqual(all.map((m) => m.name).sort());
    const rows = await query<{ migration_name: string; checksum: string; applied_steps_count: number }>(
      url,
      'SELECT migration_name, checksum, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name',
    );
    expect(rows.map((r) => r.migration_name)).toEqual(all.map((m) => m.name));
    expect(rows.map((r) => r.checksum)).toEqual(all.map((m) => m.checksum));
    expect(await migrate(url)).toEqual([]);
  });

  it("refuses a migration that changed after it was applied", async () => {
    const url = await newDatabase({ seed: false });
    await query(url, `UPDATE "_prisma_migrations" SET checksum = 'tampered' WHERE migration_name = (SELECT min(migration_name) FROM "_prisma_migrations")`);
    await expect(migrate(url)).rejects.toThrow(/was changed after it was applied/);
  });

  it("builds exactly the schema that prisma/schema.prisma describes (no change without its migration)", async () => {
    const migrated = await newDatabase({ seed: false });
    const fromSchema = await newDatabase({ seed: false });
    await query(fromSchema, "DROP SCHEMA public CASCADE");
    await query(fromSchema, await migrationSql({ from: "empty", databaseUrl: fromSchema }));
    const [a, b] = await Promise.all([schemaSnapshot(migrated), schemaSnapshot(fromSchema)]);
    expect(a.columns!.length).toBeGreaterThan(50);
    // On failure: author the missing migration with `npm run db:migration -- <name>`.
    expect(a).toEqual(b);
  });

  it("uses the pg server from the test run", () => {
    expect(inject("pgServerUrl")).toMatch(/^postgresql:\/\//);
  });
});
