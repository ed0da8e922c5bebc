import { describe, expect, it } from "vitest";
import { LATENCY_BUCKET_BOUNDS_MS, LATENCY_BUCKET_COUNT, latencyBucket, latencyQuantile, statusFilterSchema } from "./usage";

describe("latency buckets", () => {
  it("puts a latency in the first bucket whose bound holds it", () => {
    for (const ms of [0, 0.1, 0.25, 0.26, 1, 3.3, 10, 99.9, 250, 1000, 7000]) {
      const b = latencyBucket(ms);
      expect(ms).toBeLessThanOrEqual(LATENCY_BUCKET_BOUNDS_MS[b]!);
      if (b > 0) expect(ms).toBeGreaterThan(LATENCY_BUCKET_BOUNDS_MS[b - 1]!);
    }
    expect(latencyBucket(Number.NaN)).toBe(0);
    expect(latencyBucket(10 * 60_000)).toBe(LATENCY_BUCKET_COUNT - 1);
  });

  it("estimates percentiles from merged histograms within one bucket's width", () => {
    const a = new Array<number>(LATENCY_BUCKET_COUNT).fill(0);
    const b = new Array<number>(LATENCY_BUCKET_COUNT).fill(0);
    // 90 fast requests (≈2 ms) in one histogram, 10 slow ones (≈80 ms) in another: merged by addition.
    for (let i = 0; i < 90; i++) a[latencyBucket(2)]!++;
    for (let i = 0; i < 10; i++) b[latencyBucket(80)]!++;
    const merged = a.map((n, i) => n + b[i]!);
    const p50 = latencyQuantile(merged, 0.5)!;
    const p95 = latencyQuantile(merged, 0.95)!;
    expect(p50).toBeGreaterThan(2 / Math.SQRT2);
    expect(p50).toBeLessThanOrEqual(2 * Math.SQRT2);
    expect(p95).toBeGreaterThan(80 / Math.SQRT2);
    expect(p95).toBeLessThanOrEqual(80 * Math.SQRT2);
    expect(latencyQuantile(new Array<number>(LATENCY_BUCKET_COUNT).fill(0), 0.5)).toBeNull();
  });
});

describe("status filter", () => {
  it("takes a class or one code, nothing else", () => {
    expect(statusFilterSchema.parse("4xx")).toBe("4xx");
    expect(statusFilterSchema.parse("429")).toBe(429);
    for (const bad of ["3xx", "42", "4290", "abc", "600"]) expect(statusFilterSchema.safeParse(bad).success).toBe(false);
  });
});
