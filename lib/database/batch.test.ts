import { describe, expect, it } from "vitest";
import { MAX_BATCH, turnBatched } from "./batch";

describe("turnBatched", () => {
  it("serves the loads of one event-loop turn with one call, each caller its own result in order", async () => {
    const calls: number[][] = [];
    const double = turnBatched<number, number>(async (keys) => {
      calls.push([...keys]);
      return keys.map((k) => k * 2);
    });
    const results = await Promise.all([1, 2, 3, 2].map((k) => double(k)));
    expect(results).toEqual([2, 4, 6, 4]);
    // No cache: a repeated key is still passed through (every call reads fresh rows).
    expect(calls).toEqual([[1, 2, 3, 2]]);
    expect(await double(5)).toBe(10);
    expect(calls).toHaveLength(2);
  });

  it("splits a large turn into batches of at most MAX_BATCH", async () => {
    const sizes: number[] = [];
    const echo = turnBatched<number, number>(async (keys) => {
      sizes.push(keys.length);
      return [...keys];
    });
    const keys = Array.from({ length: MAX_BATCH + 10 }, (_, i) => i);
    expect(await Promise.all(keys.map((k) => echo(k)))).toEqual(keys);
    expect(sizes).toEqual([MAX_BATCH, 10]);
  });

  it("rejects every caller of a failed batch, and the next turn starts afresh", async () => {
    let fail = true;
    const load = turnBatched<string, string>(async (keys) => {
      if (fail) throw new Error("database unavailable");
      return keys.map((k) => k.toUpperCase());
    });
    const outcomes = await Promise.allSettled([load("a"), load("b")]);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected"]);
    fail = false;
    expect(await load("c")).toBe("C");
  });

  it("rejects when the loader answers the wrong number of results", async () => {
    const broken = turnBatched<number, number>(async () => [1]);
    await expect(Promise.all([broken(1), broken(2)])).rejects.toThrow(/2 keys/);
  });
});
