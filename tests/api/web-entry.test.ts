import { importJWK, SignJWT, type JWK } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { query } from "../helpers/db";
import { newDatabase } from "../helpers/server";

/**
 * `handleApiRequest` (Request in, Response out) is what app/api/v1 serves under Next; server.ts
 * takes the Node fast path over the same table. This runs the Web entry in-process on a seeded
 * database, so both doors are known to answer alike.
 */
let handle: typeof import("../../lib/api/router").handleApiRequest;
let token: string;
const BASE = "http://localhost:3000/api/v1";

beforeAll(async () => {
  const databaseUrl = await newDatabase({ seed: true });
  process.env.DATABASE_URL = databaseUrl;
  process.env.APP_URL = "http://localhost:3000";
  process.env.LOG_LEVEL = "silent";
  (await import("../../lib/env")).resetEnv();
  await (await import("../../lib/oidc/keys")).ensureSigningKeys();
  ({ handleApiRequest: handle } = await import("../../lib/api/router"));

  const [alice] = await query<{ id: number }>(databaseUrl, `SELECT id FROM "User" WHERE handle = 'alice'`);
  await query(
    databaseUrl,
    `INSERT INTO "Application" ("clientId", name, type, status, "ownerId", scopes, "redirectUris", "postLogoutRedirectUris", "updatedAt")
     VALUES ('web-entry', 'Web entry', 'login', 'approved', $1, '{svc:directory.read}', '{}', '{}', now())`,
    [alice!.id],
  );
  const [key] = await query<{ kid: string; privateJwk: JWK }>(databaseUrl, `SELECT kid, "privateJwk" FROM "SigningKey" WHERE alg = 'ES256' LIMIT 1`);
  token = await new SignJWT({ client_id: "web-entry", scope: "openid svc:directory.read" })
    .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: key!.kid })
    .setIssuer("http://localhost:3000/realms/platform")
    .setAudience(BASE)
    .setSubject(String(alice!.id))
    .setIssuedAt()
    .setExpirationTime("5m")
    .sign(await importJWK(key!.privateJwk, "ES256"));
});

describe("handleApiRequest (the Web entry used by app/api/v1)", () => {
  it("serves a profile bare and the error envelope for unknown paths and wrong methods", async () => {
    const profile = await handle(new Request(`${BASE}/users/alice`));
    expect(profile.status).toBe(200);
    expect((await profile.json()).user.username).toBe("alice");
    expect(profile.headers.get("access-control-allow-origin")).toBe("*");

    const missing = await handle(new Request(`${BASE}/nope`));
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: "not_found", message: expect.any(String) } });

    const wrong = await handle(new Request(`${BASE}/me`, { method: "DELETE" }));
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  });

  it("authenticates and wraps data", async () => {
    const me = await handle(new Request(`${BASE}/me`, { headers: { authorization: `Bearer ${token}` } }));
    expect(me.status).toBe(200);
    expect((await me.json()).isOwnProfile).toBe(true);
    const users = await handle(new Request(`${BASE}/users?limit=2`, { headers: { authorization: `Bearer ${token}` } }));
    expect((await users.json()).data.users).toHaveLength(2);
  });

  it("answers preflight and HEAD", async () => {
    const pre = await handle(new Request(`${BASE}/directory/resolve`, { method: "OPTIONS" }));
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-methods")).toContain("POST");
    const head = await handle(new Request(`${BASE}/users/alice`, { method: "HEAD" }));
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  it("caps a streamed body at 64 KiB and parses a JSON one", async () => {
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(16 * 1024).fill(0x61));
      },
    });
    const big = await handle(
      new Request(`${BASE}/directory/resolve`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: endless,
        // @ts-expect-error -- Node's fetch needs `duplex` for a streamed body; lib.dom's RequestInit lacks it.
        duplex: "half",
      }),
    );
    expect(big.status).toBe(413);
    expect((await big.json()).error.code).toBe("invalid_request");
    expect(pulled).toBeLessThan(10);

    const ok = await handle(
      new Request(`${BASE}/directory/resolve`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ identifiers: [{ type: "handle", value: "bob" }] }),
      }),
    );
    expect(ok.status).toBe(200);
    expect((await ok.json()).data.results[0].identity.handle).toBe("bob");
  });

  it("serves the OpenAPI document", async () => {
    const res = await handle(new Request(`${BASE}/openapi.json`));
    expect(res.status).toBe(200);
    expect((await res.json()).openapi).toMatch(/^3\.1/);
  });
});
