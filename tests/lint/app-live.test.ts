import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { listSourceFiles, ROOT } from "../helpers/source-files";

/**
 * "This app is live in this world" is one function with one SQL fragment (STYLE.md, Surfaces share
 * the rules): isAppLiveIn and appLiveSql in lib/schemas/sandboxes.ts. A status comparison written
 * out again in SQL anywhere, or in TypeScript where sign-in, tokens and the fast paths decide who
 * is let in, is a copy that can drift (a sandbox branch forgotten, a status added on one side).
 * Review and portal code still compares statuses for what they are (the review workflow, labels).
 */
const HOME = "lib/schemas/sandboxes.ts";
const SCANNED = ["server.ts", "proxy.ts", "app", "pages", "components", "lib", "bin", "scripts", "bench"];
/** Where a TypeScript status comparison would be a liveness decision. */
const DECIDERS = ["lib/queries/", "lib/oidc/", "lib/api/", "lib/database/", "lib/services/sandbox"];
/**
 * Files that still spell the rule out, each to move to the fragment; the test fails once a file
 * here no longer has a copy, so the list only shrinks.
 */
const NOT_YET: string[] = [];

const SQL_COPY = /\bstatus(::text)?\s*(=|<>|!=)\s*'(approved|suspended)'|\bstatus(::text)?\s+(NOT\s+)?IN\s*\(\s*'(pending|approved|rejected|suspended)'/i;
const TS_COPY = /\bstatus\s*[!=]==?\s*["'](approved|suspended)["']/;

/** Files other than the rule's home that carry a copy of it. */
function findCopies(files: readonly string[], read: (file: string) => string): string[] {
  return files.filter((file) => {
    if (file === HOME || /\.test\.tsx?$/.test(file)) return false;
    const text = read(file);
    return SQL_COPY.test(text) || (DECIDERS.some((dir) => file.startsWith(dir)) && TS_COPY.test(text));
  });
}

describe("the one liveness rule", () => {
  const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");
  const files = listSourceFiles(SCANNED);

  it("has no copy outside lib/schemas/sandboxes.ts", () => {
    expect(files).toContain("lib/queries/access.ts");
    expect(findCopies(files, read).filter((file) => !NOT_YET.includes(file))).toEqual([]);
  });

  it("lists only files that still hold a copy as not yet moved", () => {
    expect(findCopies(NOT_YET, read)).toEqual(NOT_YET);
  });

  it("notices a copy in SQL anywhere and in TypeScript where access is decided, not a label in the portal", () => {
    const planted: Record<string, string> = {
      "lib/queries/a.ts": "const q = `SELECT 1 FROM \"Application\" a WHERE a.status = 'approved'`;",
      "lib/services/b.ts": "const q = Prisma.sql`WHERE a.status::text <> 'suspended'`;",
      "lib/oidc/c.ts": 'if (row.status === "approved") return row;',
      "lib/services/sandboxes.ts": 'if (app.status !== "suspended") return app;',
      "lib/queries/d.ts": "const q = `WHERE status IN ('approved', 'pending')`;",
      "components/e.tsx": 'const label = app.status === "approved" ? "Live" : "Review";',
    };
    expect(findCopies(Object.keys(planted), (f) => planted[f]!)).toEqual([
      "lib/queries/a.ts",
      "lib/services/b.ts",
      "lib/oidc/c.ts",
      "lib/services/sandboxes.ts",
      "lib/queries/d.ts",
    ]);
  });
});
