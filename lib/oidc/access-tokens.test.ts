import { afterEach, describe, expect, it, vi } from "vitest";
import { waitPastRevocation } from "./access-tokens";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("waitPastRevocation", () => {
  it("returns only once the wall clock is past the revoked second, even when a timer fires before it", async () => {
    const realNow = Date.now.bind(Date);
    let revoked = Math.floor(realNow() / 1000);
    if ((revoked + 1) * 1000 - realNow() < 100) revoked += 1;
    // Timers run on the monotonic clock; the wall clock can lag it (truncation to whole
    // milliseconds, a slewed or stepped clock): a timer set for the remaining time then fires while
    // Date.now() still reads the revoked second. Here the wall clock falls 20 ms behind once read.
    let reads = 0;
    vi.spyOn(Date, "now").mockImplementation(() => realNow() - (reads++ === 0 ? 0 : 20));
    await waitPastRevocation(revoked);
    expect(Math.floor(Date.now() / 1000)).toBeGreaterThan(revoked);
  });

  it("does not wait without a revocation or after its second", async () => {
    const started = Date.now();
    await waitPastRevocation(null);
    await waitPastRevocation(Math.floor(Date.now() / 1000) - 1);
    expect(Date.now() - started).toBeLessThan(50);
  });
});
