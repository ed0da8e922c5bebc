import { generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../helpers/poll";
import { ALL_SCOPES, APP_SCOPES, startApi, type Api } from "./support";

/** SPEC.md "Calling the API" and the Errors table: 401/403 rules, in the documented check order. */
let api: Api;

beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api?.stop();
});

const ENDPOINTS: { method: string; path: string; scope?: string; token: "optional" | "user" | "any"; body?: unknown }[] = [
  { method: "GET", path: "/users/alice", token: "optional" },
  { method: "GET", path: "/me", token: "user" },
  { method: "GET", path: "/me/stats", scope: "svc:stats.read", token: "user" },
  { method: "GET", path: "/me/notifications", scope: "svc:notifications.read", token: "user" },
  { method: "GET", path: "/me/beetle", scope: "svc:beetle.read", token: "user" },
  { method: "GET", path: "/me/beetle/cards", scope: "svc:beetle.read", token: "user" },
  { method: "POST", path: "/users/carol/poke", scope: "svc:pokes.write", token: "user" },
  { method: "GET", path: "/global-chat/messages", scope: "svc:chat.read", token: "any" },
  { method: "POST", path: "/global-chat/messages", scope: "svc:chat.write", token: "user", body: { text: "hi" } },
  { method: "POST", path: "/directory/resolve", scope: "svc:directory.read", token: "any", body: { identifiers: [{ type: "handle", value: "bob" }] } },
  { method: "GET", path: "/users", scope: "svc:directory.read", token: "any" },
];

function call(e: (typeof ENDPOINTS)[number], headers: Record<string, string> = {}) {
  return api.call(e.path, { method: e.method, body: e.body, headers });
}

describe("no token", () => {
  for (const e of ENDPOINTS.filter((x) => x.token !== "optional")) {
    it(`${e.method} ${e.path} without a token is 401 unauthorized`, async () => {
      const res = await call(e);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: { code: "unauthorized", message: expect.any(String) } });
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
    });
  }

  it("GET /users/{username} without a token is the anonymous view", async () => {
    const res = await api.call("/users/alice");
    expect(res.status).toBe(200);
    expect(res.body.isAuthenticated).toBe(false);
  });
});

describe("invalid tokens are 401 invalid_token on every endpoint, the public profile included", () => {
  const headers = [
    "Bearer not-a-jwt",
    "Bearer a.b.c",
    "Bearer ",
    "Bearer",
    "Basic YWxpY2U6cGFzcw==",
    "Token abc",
    "",
    "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.",
  ];
  for (const e of ENDPOINTS) {
    it(`${e.method} ${e.path} with malformed Authorization headers`, async () => {
      for (const authorization of headers) {
        const res = await call(e, { authorization });
        expect(res.status, JSON.stringify(authorization)).toBe(401);
        expect(res.body).toEqual({ error: { code: "invalid_token", message: expect.any(String) } });
      }
    });
  }

  it("an expired token is invalid_token, also on the public profile", async () => {
    // Signed by the server's own key with the issuer's claims, but expired: only the expiry is wrong.
    let clientId = "";
    await api.token({ user: "alice", freshApp: true, onApp: (id) => (clientId = id) });
    const token = await api.mintToken({ userId: await api.userId("alice"), clientId, expiresIn: -5 });
    for (const path of ["/users/alice", "/me"]) {
      const res = await api.call(path, { token });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("invalid_token");
    }
  });

  it("a token signed with a foreign key is invalid_token", async () => {
    const { privateKey } = await generateKeyPair("ES256");
    const [real] = await api.sql<{ kid: string }>(`SELECT kid FROM "SigningKey" WHERE alg = 'ES256' AND "retiredAt" IS NULL`);
    const now = Math.floor(Date.now() / 1000);
    const forged = await new SignJWT({ client_id: "x", scope: ALL_SCOPES.join(" ") })
      .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: real!.kid })
      .setIssuer(api.server.issuer)
      .setAudience(api.server.apiUrl)
      .setSubject(String(await api.userId("alice")))
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(privateKey);
    for (const path of ["/users/alice", "/me"]) {
      const res = await api.call(path, { token: forged });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("invalid_token");
    }
  });

  it("a tampered token (payload changed) is invalid_token", async () => {
    const token = await api.token({ user: "alice" });
    const [h, p, s] = token.split(".");
    const payload = JSON.parse(Buffer.from(p!, "base64url").toString());
    payload.sub = String(await api.userId("bob"));
    const tampered = `${h}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}.${s}`;
    const res = await api.call("/me", { token: tampered });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("invalid_token");
  });

  it("a token of a deleted account is invalid_token", async () => {
    const user = await api.createUser();
    const token = await api.token({ user: user.handle });
    await api.sql(`DELETE FROM "User" WHERE id = $1`, [user.id]);
    const res = await api.call("/me", { token });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("invalid_token");
  });
});

describe("applications that are no longer approved", () => {
  for (const status of ["suspended", "rejected", "pending"] as const) {
    it(`a token of a ${status} application is 401 invalid_token`, async () => {
      // Issued while approved; the status changes before the token's first API call.
      let clientId = "";
      const token = await api.token({ user: "alice", freshApp: true, onApp: (id) => (clientId = id) });
      await api.sql(`UPDATE "Application" SET status = $2::"AppStatus" WHERE "clientId" = $1`, [clientId, status]);
      const res = await api.call("/me", { token });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("invalid_token");
      const profile = await api.call("/users/alice", { token });
      expect(profile.status).toBe(401);
    });
  }

  it("a token of a deleted application is 401 invalid_token", async () => {
    let clientId = "";
    const token = await api.token({ user: "alice", freshApp: true, onApp: (id) => (clientId = id) });
    await api.sql(`DELETE FROM "Application" WHERE "clientId" = $1`, [clientId]);
    const res = await api.call("/me", { token });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("invalid_token");
  });

  it("suspending an application stops its tokens within the 2-second status cache", async () => {
    let clientId = "";
    const token = await api.token({ scopes: ["svc:directory.read"], freshApp: true, onApp: (id) => (clientId = id) });
    expect((await api.call("/users", { token })).status).toBe(200);
    // A bare UPDATE (no change-channel announcement): the status cache's 2 s lifetime is the
    // bound. Polled, not slept: the bound plus slack for a busy machine.
    await api.sql(`UPDATE "Application" SET status = 'suspended' WHERE "clientId" = $1`, [clientId]);
    await until(
      async () => {
        const res = await api.call("/users", { token });
        expect(res.status).toBe(401);
        expect(res.body.error.code).toBe("invalid_token");
      },
      { withinMs: 5_000 },
    );
  });
});

describe("app-only tokens", () => {
  for (const e of ENDPOINTS.filter((x) => x.token === "user")) {
    it(`${e.method} ${e.path} with an app-only token is 403 requires_user (before the scope check)`, async () => {
      // No scopes at all: requires_user still wins over insufficient_scope.
      const token = await api.token({ scopes: [] });
      const res = await api.call(e.path, { method: e.method, body: e.body, token });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: { code: "requires_user", message: expect.any(String) } });
    });
  }

  for (const e of ENDPOINTS.filter((x) => x.token === "any")) {
    it(`${e.method} ${e.path} accepts an app-only token with the scope`, async () => {
      const token = await api.token({ scopes: [e.scope!] });
      const res = await api.call(e.path, { method: e.method, body: e.body, token });
      expect(res.status).toBe(200);
    });
  }

  for (const e of ENDPOINTS.filter((x) => x.token === "any")) {
    it(`${e.method} ${e.path} with an app-only token lacking ${e.scope} is 403 insufficient_scope`, async () => {
      // A working app token (the other app-level scope, or none at all), just not this endpoint's scope.
      for (const scopes of [APP_SCOPES.filter((s) => s !== e.scope), []]) {
        const token = await api.token({ scopes });
        const res = await api.call(e.path, { method: e.method, body: e.body, token });
        expect(res.status, scopes.join(" ")).toBe(403);
        expect(res.body).toEqual({ error: { code: "insufficient_scope", message: expect.any(String) } });
      }
    });
  }

  it("GET /users/{username} with an app-only token is the anonymous view", async () => {
    const token = await api.token({ scopes: ["svc:directory.read"] });
    const anonymous = await api.call("/users/alice");
    const res = await api.call("/users/alice", { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(anonymous.body);
    expect(res.body.isAuthenticated).toBe(false);
  });
});

describe("scopes", () => {
  for (const e of ENDPOINTS.filter((x) => x.scope)) {
    it(`${e.method} ${e.path} without ${e.scope} is 403 insufficient_scope`, async () => {
      const token = await api.token({ user: "alice", scopes: ALL_SCOPES.filter((s) => s !== e.scope) });
      const res = await api.call(e.path, { method: e.method, body: e.body, token });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: { code: "insufficient_scope", message: expect.any(String) } });
    });
  }

  it("GET /me works with an openid-only grant", async () => {
    const token = await api.token({ user: "alice", scopes: ["openid"] });
    const res = await api.call("/me", { token });
    expect(res.status).toBe(200);
    expect(res.body.isOwnProfile).toBe(true);
  });
});

describe("disabled accounts", () => {
  it("a disabled user's token is 403 forbidden on user endpoints and on the public profile", async () => {
    const user = await api.createUser();
    const token = await api.token({ user: user.handle });
    await api.sql(`UPDATE "User" SET disabled = true WHERE id = $1`, [user.id]);
    for (const e of ENDPOINTS) {
      const res = await api.call(e.path, { method: e.method, body: e.body, token });
      expect(res.status, e.path).toBe(403);
      expect(res.body).toEqual({ error: { code: "forbidden", message: expect.any(String) } });
    }
  });

  it("a disabled account cannot sign in to get a token at all", async () => {
    await expect(api.token({ user: "dave" })).rejects.toThrow();
  });

  it("scope is checked before the disabled account", async () => {
    const user = await api.createUser();
    const token = await api.token({ user: user.handle, scopes: [] });
    await api.sql(`UPDATE "User" SET disabled = true WHERE id = $1`, [user.id]);
    const res = await api.call("/me/stats", { token });
    expect(res.body.error.code).toBe("insufficient_scope");
  });

  it("a user disabled after the token was issued is refused within the status cache bound", async () => {
    const user = await api.createUser();
    const token = await api.token({ user: user.handle });
    expect((await api.call("/me", { token })).status).toBe(200);
    await api.sql(`UPDATE "User" SET disabled = true WHERE id = $1`, [user.id]);
    // The status cache's 2 s lifetime bounds it (a bare UPDATE announces nothing): polled.
    await until(
      async () => {
        const res = await api.call("/me", { token });
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe("forbidden");
      },
      { withinMs: 5_000 },
    );
  });
});
