import type pg from "pg";
import { describe, expect, it } from "vitest";
import { inPgTransaction, pgTransaction } from "./transaction";

/** A connection that records its statements; ROLLBACK fails when asked to. */
function fakeClient(options: { rollbackFails?: boolean } = {}) {
  const sent: string[] = [];
  let released = 0;
  const client = {
    query: async (text: string) => {
      sent.push(text);
      if (text === "ROLLBACK" && options.rollbackFails) throw new Error("connection lost");
      return { rows: [] };
    },
    release: () => void released++,
  };
  return { client: client as unknown as pg.PoolClient, sent, released: () => released };
}

describe("inPgTransaction", () => {
  it("runs the work between BEGIN and COMMIT and returns its result", async () => {
    const { client, sent } = fakeClient();
    await expect(inPgTransaction(client, async () => (await client.query("SELECT 1"), 42))).resolves.toBe(42);
    expect(sent).toEqual(["BEGIN", "SELECT 1", "COMMIT"]);
  });

  it("rolls back and rethrows the work's error, also when the ROLLBACK itself fails", async () => {
    for (const rollbackFails of [false, true]) {
      const { client, sent } = fakeClient({ rollbackFails });
      await expect(inPgTransaction(client, async () => Promise.reject(new Error("work failed")))).rejects.toThrow("work failed");
      expect(sent).toEqual(["BEGIN", "ROLLBACK"]);
    }
  });
});

describe("pgTransaction", () => {
  it("gives the connection back to the pool whatever happens", async () => {
    for (const fails of [false, true]) {
      const fake = fakeClient();
      const pool = { connect: async () => fake.client } as unknown as pg.Pool;
      const run = pgTransaction(pool, async () => (fails ? Promise.reject(new Error("no")) : "done"));
      await (fails ? expect(run).rejects.toThrow("no") : expect(run).resolves.toBe("done"));
      expect(fake.released()).toBe(1);
    }
  });
});
