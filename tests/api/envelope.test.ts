import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type Api } from "./support";

/** SPEC.md envelopes, Versioning, 404/405, 413, content type, malformed JSON, CORS (PRODUCT.md "API"). */
let api: Api;
let token: string;

beforeAll(async () => {
  api = await startApi();
  token = await api.token({ user: "alice" });
});
afterAll(async () => {
  await api?.stop();
});

function rawRequest(options: http.RequestOptions, write: (req: http.ClientRequest) => void): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: api.server.port, ...options }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on("error", reject);
    write(req);
  });
}

describe("unknown paths and methods", () => {
  it("answers an unknown path under /api/v1 with 404 not_found in the envelope", async () => {
    for (const path of ["/nope", "", "/", "/users/alice/extra/more", "/me/", "/ME", "/v2/users"]) {
      const res = await api.call(path);
      expect(res.status, path).toBe(404);
      expect(res.body).toEqual({ error: { code: "not_found", message: expect.any(String) } });
    }
  });

  it("answers a wrong method with 405 method_not_allowed and an Allow header", async () => {
    const res = await api.call("/me", { method: "DELETE" });
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ error: { code: "method_not_allowed", message: expect.any(String) } });
    expect(res.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    const post = await api.call("/users", { method: "PUT", body: {} });
    expect(post.status).toBe(405);
    const chat = await api.call("/global-chat/messages", { method: "DELETE" });
    expect(chat.headers.get("allow")).toBe("GET, POST, HEAD, OPTIONS");
    const poke = await api.call("/users/bob/poke", { method: "GET" });
    expect(poke.status).toBe(405);
    expect(poke.headers.get("allow")).toBe("POST, OPTIONS");
  });

  it("checks the method before authentication (405 without a token)", async () => {
    const res = await api.call("/me/stats", { method: "POST", body: {} });
    expect(res.status).toBe(405);
  });

  it("serves HEAD for GET endpoints without a body", async () => {
    const res = await fetch(api.url("/users/alice"), { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
  });
});

describe("envelopes", () => {
  it("returns the two profile reads bare and everything else under data", async () => {
    const profile = await api.call("/users/alice");
    expect(profile.body.user.username).toBe("alice");
    expect(profile.body.data).toBeUndefined();
    const me = await api.call("/me", { token });
    expect(me.body.user.username).toBe("alice");
    const beetle = await api.call("/me/beetle", { token });
    expect(Object.keys(beetle.body)).toEqual(["data"]);
  });

  it("answers JSON with no-store caching", async () => {
    const res = await api.call("/me", { token });
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-store");
  });
});

describe("request bodies", () => {
  const resolveBody = { identifiers: [{ type: "handle", value: "alice" }] };

  it("refuses a declared body over 64 KiB with 413 invalid_request before reading it", async () => {
    const big = JSON.stringify({ identifiers: [{ type: "handle", value: "x".repeat(70 * 1024) }] });
    const res = await rawRequest(
      { method: "POST", path: "/api/v1/directory/resolve", headers: { "content-type": "application/json", "content-length": Buffer.byteLength(big), authorization: `Bearer ${token}` } },
      // Only the headers are sent: the server must answer without waiting for the body.
      (req) => req.flushHeaders(),
    );
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual({ error: { code: "invalid_request", message: expect.any(String) } });
    expect(res.headers.connection).toBe("close");
  });

  it("refuses a chunked body once it passes 64 KiB", async () => {
    const res = await rawRequest(
      { method: "POST", path: "/api/v1/global-chat/messages", headers: { "content-type": "application/json", "transfer-encoding": "chunked", authorization: `Bearer ${token}` } },
      (req) => {
        req.write('{"text":"');
        // 80 KiB in 8 KiB chunks, then keep the request open: the answer must not wait for the end.
        for (let i = 0; i < 10; i++) req.write("a".repeat(8 * 1024));
      },
    );
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).error.code).toBe("invalid_request");
  });

  it("accepts a body just under the cap (the cap is on bytes, not on validity)", async () => {
    const body = JSON.stringify({ ...resolveBody, padding: "p".repeat(60 * 1024) });
    const res = await api.call("/directory/resolve", { token, body });
    expect(res.status).toBe(200);
  });

  it("refuses a wrong content type with 400 invalid_request", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx"]) {
      const res = await api.call("/directory/resolve", { token, body: JSON.stringify(resolveBody), headers: { "content-type": type } });
      expect(res.status, type).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
    }
  });

  it("accepts application/json with a charset parameter", async () => {
    const res = await api.call("/directory/resolve", { token, body: JSON.stringify(resolveBody), headers: { "content-type": "application/json; charset=utf-8" } });
    expect(res.status).toBe(200);
  });

  it("refuses a missing content type with 400 invalid_request", async () => {
    const res = await fetch(api.url("/directory/resolve"), {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: new Blob([JSON.stringify(resolveBody)]),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe("invalid_request");
  });

  it("refuses malformed JSON, an empty body and invalid UTF-8 with 400 invalid_request", async () => {
    for (const body of ['{"identifiers": [', "", "nul", "{'a':1}", new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])]) {
      const res = await api.call("/directory/resolve", { token, body: body as string });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: { code: "invalid_request", message: expect.any(String) } });
    }
  });

  it("names the bad field in the message", async () => {
    const res = await api.call("/directory/resolve", { token, body: { identifiers: [{ type: "handle", value: "a" }, { type: "phone", value: "1" }] } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain("identifiers[1].type");
  });
});

describe("CORS", () => {
  it("answers a preflight from any origin", async () => {
    const res = await fetch(api.url("/global-chat/messages"), {
      method: "OPTIONS",
      headers: { origin: "https://some-app.example", "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toContain("POST");
    expect(res.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("authorization");
    expect(res.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("content-type");
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
  });

  it("puts the CORS headers on successes and errors, exposing Retry-After", async () => {
    for (const path of ["/users/alice", "/nope", "/me"]) {
      const res = await fetch(api.url(path), { headers: { origin: "http://localhost:9999" } });
      expect(res.headers.get("access-control-allow-origin"), path).toBe("*");
      expect(res.headers.get("access-control-expose-headers")).toContain("Retry-After");
    }
  });
});

describe("internal errors", () => {
  it("never sends a stack trace: a 500 is internal_error with a fixed message and the cause only in the log", async () => {
    // Break the database under a running request path: drop a column the profile read needs, then restore it.
    await api.sql(`ALTER TABLE "User" RENAME COLUMN bio TO bio_gone`);
    try {
      const res = await api.call("/users/carol");
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: { code: "internal_error", message: expect.any(String) } });
      expect(res.text).not.toMatch(/bio|column|at |\.ts/);
      const requestId = res.headers.get("x-request-id");
      expect(requestId).toBeTruthy();
      await new Promise((r) => setTimeout(r, 100));
      const line = api.server.logs.find((l) => l.includes(requestId!));
      expect(line).toBeDefined();
      expect(line).toContain("bio");
    } finally {
      await api.sql(`ALTER TABLE "User" RENAME COLUMN bio_gone TO bio`);
    }
  });
});
