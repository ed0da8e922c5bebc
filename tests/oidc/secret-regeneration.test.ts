import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pointAppAt, startServer, type TestServer } from "../helpers/server";
import { createTestApp, tokenRequest } from "../helpers/oidc";

/**
 * Issue 5: "Regenerate secret" reveals a new secret once and makes the old one fail AT ONCE, even
 * though the sign-in service caches client metadata for a few seconds.
 */
let server: TestServer;
let apps: typeof import("../../lib/services/apps");
let closeDb: () => Promise<void>;

beforeAll(async () => {
  server = await startServer({ seed: false });
  closeDb = await pointAppAt(server.databaseUrl, { LOG_LEVEL: "silent" });
  apps = await import("../../lib/services/apps");
});

afterAll(async () => {
  await closeDb?.();
  await server?.stop();
});

const grant = (clientId: string, secret: string) =>
  tokenRequest(server, { grant_type: "client_credentials", client_id: clientId, client_secret: secret });

describe("secret regeneration", () => {
  it("the old secret fails immediately after regeneration, while the client is cached", async () => {
    const app = await createTestApp(server.databaseUrl, { type: "api", scopes: ["svc:chat.read"], ownerHandle: "owner1" });
    // Warm the provider's client cache with the old secret.
    expect((await grant(app.clientId, app.clientSecret!)).status).toBe(200);

    const [owner] = await (await import("../helpers/db")).query<{ id: number }>(
      server.databaseUrl,
      `SELECT id FROM "User" WHERE handle = 'owner1'`,
    );
    const fresh = await apps.regenerateSecret(app.clientId, { kind: "user", id: owner!.id, handle: "owner1", role: "user" });

    const old = await grant(app.clientId, app.clientSecret!);
    expect(old.status).toBe(401);
    expect(old.body.error).toBe("invalid_client");
    expect((await grant(app.clientId, fresh.clientSecret)).status).toBe(200);
  });
});
