import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../helpers/db";
import { newDatabase, pointAppAt } from "../helpers/server";

/**
 * Device sign-in's counters (lib/services/throttle.ts), in-process on a fresh database:
 * wrong user codes per IP (only wrong ones stay counted), the polling pace behind slow_down, and
 * the clean-up of polling counters. Through real HTTP: tests/oidc/device-flow.test.ts.
 */
let databaseUrl: string;
let throttle: typeof import("../../lib/services/throttle");
let closeDb: () => Promise<void>;

beforeAll(async () => {
  databaseUrl = await newDatabase({ seed: false });
  closeDb = await pointAppAt(databaseUrl, { LOG_LEVEL: "silent" });
  throttle = await import("../../lib/services/throttle");
});

afterAll(async () => {
  await closeDb?.();
});

describe("device sign-in throttle", () => {
  it("counts wrong codes per IP up to the limit; a released entry is given back", async () => {
    expect(throttle.DEVICE_CODE_LIMIT_PER_IP).toBe(10);
    const released = await throttle.reserveDeviceCodeEntry("192.0.2.1");
    if (!released.ok) throw new Error("first entry refused");
    await released.release();
    for (let i = 0; i < throttle.DEVICE_CODE_LIMIT_PER_IP; i++) {
      expect((await throttle.reserveDeviceCodeEntry("192.0.2.1")).ok).toBe(true);
    }
    const refused = await throttle.reserveDeviceCodeEntry("192.0.2.1");
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.retryAt.getTime()).toBeGreaterThan(Date.now() + 14 * 60_000);
    // Another address is not affected.
    expect((await throttle.reserveDeviceCodeEntry("192.0.2.2")).ok).toBe(true);
  });

  it("a second poll within the interval is too fast; after it, not", async () => {
    expect(await throttle.isPollingTooFast("digest-a", 1)).toBe(false);
    expect(await throttle.isPollingTooFast("digest-a", 1)).toBe(true);
    expect(await throttle.isPollingTooFast("digest-b", 1)).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await throttle.isPollingTooFast("digest-a", 1)).toBe(false);
  });

  it("removes counters whose window has ended (login and user-code ones after 15 minutes, polling ones after an hour), and nothing else", async () => {
    await query(
      databaseUrl,
      `INSERT INTO "RateLimit" (key, count, "windowStart") VALUES
         ('device:poll:old', 1, (now() AT TIME ZONE 'UTC') - interval '2 hours'),
         ('device:poll:recent', 1, (now() AT TIME ZONE 'UTC') - interval '30 minutes'),
         ('device:ip:old', 3, (now() AT TIME ZONE 'UTC') - interval '16 minutes'),
         ('device:ip:recent', 3, (now() AT TIME ZONE 'UTC') - interval '14 minutes'),
         ('login:ip:old', 1, (now() AT TIME ZONE 'UTC') - interval '16 minutes'),
         ('login:pair:1.2.3.4|old', 4, (now() AT TIME ZONE 'UTC') - interval '2 hours'),
         ('login:account:recent', 7, (now() AT TIME ZONE 'UTC') - interval '14 minutes'),
         ('other:old', 1, (now() AT TIME ZONE 'UTC') - interval '2 hours')`,
    );
    expect(await throttle.deleteEndedCounters()).toBe(4);
    const keys = (
      await query<{ key: string }>(databaseUrl, `SELECT key FROM "RateLimit" WHERE key LIKE '%old' OR key LIKE '%recent'`)
    ).map((r) => r.key);
    expect(keys.sort()).toEqual(["device:ip:recent", "device:poll:recent", "login:account:recent", "other:old"]);
  });
});
