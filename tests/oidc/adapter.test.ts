import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../helpers/db";
import { newDatabase, pointAppAt } from "../helpers/server";

/**
 * The PostgreSQL adapter, in-process on a fresh database: expiry honoured, atomic consume, grant
 * revocation, clean-up of expired rows. (The login throttle: tests/services/login-throttle.test.ts.)
 */
let databaseUrl: string;
let adapter: typeof import("../../lib/oidc/adapter");
let closeDb: () => Promise<void>;

beforeAll(async () => {
  databaseUrl = await newDatabase({ seed: false });
  closeDb = await pointAppAt(databaseUrl, { LOG_LEVEL: "silent" });
  adapter = await import("../../lib/oidc/adapter");
});

afterAll(async () => {
  await closeDb?.();
});

/** Codes and refresh tokens are stored under the SHA-256 of their value (lib/oidc/adapter.ts). */
const stored = (id: string) => `sha256:${createHash("sha256").update(id).digest("base64url")}`;

describe("PgAdapter", () => {
  it("upsert/find round-trips the payload and fills grantId, uid and clientId", async () => {
    const codes = new adapter.PgAdapter("AuthorizationCode");
    await codes.upsert("c1", { jti: "c1", kind: "AuthorizationCode", grantId: "g1", clientId: "app_x", exp: 1 }, 60);
    expect(await codes.find("c1")).toMatchObject({ jti: "c1", grantId: "g1", clientId: "app_x" });
    expect(await codes.find("c1")).not.toHaveProperty("consumed");
    const rows = await query(databaseUrl, `SELECT "grantId", "clientId" FROM "OidcModel" WHERE kind = 'AuthorizationCode' AND id = $1`, [stored("c1")]);
    expect(rows).toEqual([{ grantId: "g1", clientId: "app_x" }]);
    // Neither the row key nor the payload holds the code itself.
    const [raw] = await query<{ row: string }>(databaseUrl, `SELECT row_to_json(t)::text AS row FROM "OidcModel" t WHERE kind = 'AuthorizationCode'`);
    expect(raw!.row).not.toContain('"c1"');

    const sessions = new adapter.PgAdapter("Session");
    await sessions.upsert("s1", { jti: "s1", uid: "u1", kind: "Session" }, 60);
    expect(await sessions.findByUid("u1")).toMatchObject({ jti: "s1" });
    // Kinds are separate namespaces.
    expect(await new adapter.PgAdapter("RefreshToken").find("c1")).toBeUndefined();
  });

  it("expired rows are not found, and the clean-up deletes them", async () => {
    const tokens = new adapter.PgAdapter("RefreshToken");
    await tokens.upsert("old", { jti: "old", kind: "RefreshToken" }, 1);
    await query(databaseUrl, `UPDATE "OidcModel" SET "expiresAt" = now() - interval '1 hour' WHERE id = $1`, [stored("old")]);
    expect(await tokens.find("old")).toBeUndefined();
    expect(await adapter.deleteExpiredOidcModels()).toBeGreaterThanOrEqual(1);
    expect(await query(databaseUrl, `SELECT id FROM "OidcModel" WHERE id = $1`, [stored("old")])).toEqual([]);
  });

  it("consume is atomic: of many concurrent consumes exactly one wins; the others revoke the grant", async () => {
    const tokens = new adapter.PgAdapter("RefreshToken");
    const grants = new adapter.PgAdapter("Grant");
    await grants.upsert("g2", { jti: "g2", kind: "Grant" }, 60);
    await tokens.upsert("r2", { jti: "r2", kind: "RefreshToken", grantId: "g2" }, 60);
    await tokens.upsert("r3", { jti: "r3", kind: "RefreshToken", grantId: "g2" }, 60);
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => tokens.consume("r2")));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results.filter((x): x is PromiseRejectedResult => x.status === "rejected")) {
      expect(r.reason).toMatchObject({ error: "invalid_grant", statusCode: 400 });
    }
    // The losing redemptions were replays: the grant and everything under it is gone.
    expect(await grants.find("g2")).toBeUndefined();
    expect(await tokens.find("r3")).toBeUndefined();
  });

  it("a consumed row is returned with consumed: true (oidc-provider's replay check)", async () => {
    const codes = new adapter.PgAdapter("AuthorizationCode");
    await codes.upsert("c4", { jti: "c4", kind: "AuthorizationCode" }, 60);
    await codes.consume("c4");
    expect(await codes.find("c4")).toMatchObject({ consumed: true });
  });

  it("revokeByGrantId and destroy delete only what they name", async () => {
    const at = new adapter.PgAdapter("AccessToken");
    const rt = new adapter.PgAdapter("RefreshToken");
    await at.upsert("a5", { jti: "a5", grantId: "g5" }, 60);
    await rt.upsert("r5", { jti: "r5", grantId: "g5" }, 60);
    await at.revokeByGrantId("g5");
    expect(await at.find("a5")).toBeUndefined();
    expect(await rt.find("r5")).toBeDefined();
    await rt.destroy("r5");
    expect(await rt.find("r5")).toBeUndefined();
  });
});
