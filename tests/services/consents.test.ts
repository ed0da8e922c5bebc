import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../helpers/db";
import { newDatabase, pointAppAt } from "../helpers/server";

/** Remembered consents (the sign-in service skips the consent page when they cover a request). */
let databaseUrl: string;
let consents: typeof import("../../lib/services/consents");
let closeDb: () => Promise<void>;
let aliceId: number;

beforeAll(async () => {
  databaseUrl = await newDatabase({ seed: true });
  closeDb = await pointAppAt(databaseUrl);
  consents = await import("../../lib/services/consents");
  const [alice] = await query<{ id: number }>(databaseUrl, `SELECT id FROM "User" WHERE handle = 'alice'`);
  aliceId = alice!.id;
});

afterAll(async () => {
  await closeDb?.();
});

describe("rememberConsent", () => {
  it("stores the scopes, then merges later grants into them (sorted, no duplicates)", async () => {
    await consents.rememberConsent(aliceId, "login_merge", ["profile", "openid", "profile"]);
    expect(await consents.findConsentScopes(aliceId, "login_merge")).toEqual(["openid", "profile"]);
    await consents.rememberConsent(aliceId, "login_merge", ["svc:chat.read", "openid"]);
    expect(await consents.findConsentScopes(aliceId, "login_merge")).toEqual(["openid", "profile", "svc:chat.read"]);
    const [row] = await query<{ createdAt: Date; updatedAt: Date }>(
      databaseUrl,
      `SELECT "createdAt", "updatedAt" FROM "Consent" WHERE "userId" = $1 AND "clientId" = 'login_merge'`,
      [aliceId],
    );
    // Stored as UTC wall-clock like Prisma's own writes: within a minute of now.
    expect(Math.abs(row!.updatedAt.getTime() - Date.now())).toBeLessThan(60_000);
    expect(row!.createdAt.getTime()).toBeLessThanOrEqual(row!.updatedAt.getTime());
  });

  it("keeps every scope of concurrent submissions, none failing", async () => {
    const sets = [["openid"], ["openid", "profile"], ["openid", "svc:chat.read"], ["openid", "svc:notifications.read"]];
    await Promise.all(sets.map((scopes) => consents.rememberConsent(aliceId, "login_race", scopes)));
    expect(await consents.findConsentScopes(aliceId, "login_race")).toEqual(["openid", "profile", "svc:chat.read", "svc:notifications.read"]);
  });

  it("revoking forgets the consent (the next authorization asks again)", async () => {
    await consents.revokeConsent(aliceId, "login_merge", { kind: "system", name: "test" });
    expect(await consents.findConsentScopes(aliceId, "login_merge")).toBeNull();
  });
});
