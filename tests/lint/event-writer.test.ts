import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { listSourceFiles, ROOT } from "../helpers/source-files";

/**
 * The Event table has one writer in TypeScript: insertEventSql in lib/queries/events.ts builds
 * the `INSERT INTO "Event"` of every statement that writes an event, so the columns a writer sets
 * (the id, the UTC creation time, the world) are decided once. The database side has one more, the
 * Notification trigger in prisma/migrations (SQL cannot call TypeScript, and a notification's
 * event must commit with the row the trigger sees); migrations are not scanned. Tests are not
 * scanned either: they plant rows the product would never write (old partitions, rolled-back events).
 */
const WRITER = "lib/queries/events.ts";
const SCANNED = ["server.ts", "proxy.ts", "app", "pages", "components", "lib", "bin", "scripts", "sdk/src", "bench"];
const EVENT_INSERT = /INSERT\s+INTO\s+"?Event"?[\s(]/i;

/** Files other than the writer whose text inserts into the Event table. */
function findEventWriters(files: readonly string[], read: (file: string) => string): string[] {
  return files.filter((file) => file !== WRITER && EVENT_INSERT.test(read(file)));
}

describe("the Event table's one writer", () => {
  const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");
  const files = listSourceFiles(SCANNED);

  it("is lib/queries/events.ts: no other source file inserts into Event", () => {
    expect(files).toContain("lib/queries/chat.ts");
    expect(EVENT_INSERT.test(read(WRITER))).toBe(true);
    expect(findEventWriters(files, read)).toEqual([]);
  });

  it("notices a second one, in any spelling, and not the EventDelivery table", () => {
    const planted: Record<string, string> = {
      "lib/services/a.ts": 'await tx.$executeRaw`INSERT INTO "Event" (id) VALUES (1)`;',
      "lib/queries/b.ts": "const q = `insert  into\n  event(id) select 1`;",
      "lib/events/c.ts": 'const q = `INSERT INTO "EventDelivery" (id) VALUES (1)`;',
    };
    expect(findEventWriters(Object.keys(planted), (f) => planted[f]!)).toEqual(["lib/services/a.ts", "lib/queries/b.ts"]);
  });
});
