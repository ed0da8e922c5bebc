import { describe, expect, it } from "vitest";
import { lagSeconds } from "./replicas";

/** A replica's lag from the primary's (time, WAL position) samples (lib/database/replicas.ts). */
describe("lagSeconds", () => {
  const samples = [
    { at: 10_000, lsn: 100n },
    { at: 11_000, lsn: 100n },
    { at: 12_000, lsn: 250n },
    { at: 13_000, lsn: 400n },
  ];

  it("is 0 once the replica replayed the primary's newest position, however old it is (an idle primary)", () => {
    expect(lagSeconds(samples, 400n, 60_000)).toBe(0);
    expect(lagSeconds([{ at: 0, lsn: 5n }], 5n, 3_600_000)).toBe(0);
  });

  it("is the age of the newest sample the replica's replay reached", () => {
    expect(lagSeconds(samples, 300n, 13_500)).toBe(1.5);
    expect(lagSeconds(samples, 100n, 13_500)).toBe(2.5);
  });

  it("is infinite behind every sample kept, or without samples", () => {
    expect(lagSeconds(samples, 99n, 13_500)).toBe(Infinity);
    expect(lagSeconds([], 1n, 0)).toBe(Infinity);
  });
});
