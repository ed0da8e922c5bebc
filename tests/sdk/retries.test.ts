import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, PlatformError } from "@social-dev-platform/sdk";
import { findFreePort } from "../../lib/database/embedded";
import { createTestApp, createTestUser, signInAndGetTokens } from "../helpers/oidc";
import { startServer, type TestServer } from "../helpers/server";

/**
 * "retries done once, for everyone": the SDK against a real server retries a 429 after
 * its Retry-After, retries a POST whose answer was lost (a TCP proxy cuts the first response) without
 * posting twice (its Idempotency-Key, replayed by the server), and reports a failure without an
 * answer as a PlatformError (`network_error`, `timeout`, `aborted`).
 */
let server: TestServer;
const REDIRECT = "http://localhost:9/retries/callback";
const PASSWORD = "sdk-retries-password";

beforeAll(async () => {
  server = await startServer({ seed: true });
  const login = await createTestApp(server.databaseUrl, {
    type: "login",
    scopes: ["svc:chat.read", "svc:chat.write"],
    redirectUris: [REDIRECT],
    firstParty: true,
  });
  for (const handle of ["retrier", "dropper"]) await createTestUser(server.databaseUrl, { handle, password: PASSWORD });
  tokens.retrier = await userToken("retrier", login.clientId);
  tokens.dropper = await userToken("dropper", login.clientId);
});

afterAll(async () => {
  await server?.stop();
});

const tokens: Record<string, string> = {};

async function userToken(handle: string, clientId: string): Promise<string> {
  const { access_token } = await signInAndGetTokens(server, { handle, password: PASSWORD, clientId, redirectUri: REDIRECT, scope: "openid svc:chat.read svc:chat.write" });
  return access_token;
}

/** A fetch that records each attempt's method, status (0: no answer) and Idempotency-Key. */
function recordingFetch() {
  const attempts: { method: string; status: number; key: string | null; at: number }[] = [];
  const recording = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const key = new Headers(init?.headers).get("idempotency-key");
    const method = init?.method ?? "GET";
    try {
      const response = await fetch(input, init);
      attempts.push({ method, status: response.status, key, at: Date.now() });
      return response;
    } catch (error) {
      attempts.push({ method, status: 0, key, at: Date.now() });
      throw error;
    }
  }) as typeof fetch;
  return { attempts, fetch: recording };
}

async function messagesWithText(text: string): Promise<{ id: string }[]> {
  const response = await fetch(`${server.apiUrl}/global-chat/messages?limit=50`, { headers: { authorization: `Bearer ${tokens.retrier}` } });
  const { data } = (await response.json()) as { data: { messages: { id: string; text: string }[] } };
  return data.messages.filter((m) => m.text === text);
}

/**
 * A TCP proxy in front of the server that, once armed, lets the next POST through to the server and
 * then cuts the connection as the server's answer starts coming back: the server did the work, the
 * client never hears of it (what a dropped connection or a crashed load balancer looks like).
 */
async function startCuttingProxy(target: number) {
  let armed = false;
  let cut = 0;
  const sockets = new Set<net.Socket>();
  const proxy = net.createServer((client) => {
    const upstream = net.connect(target, "127.0.0.1");
    sockets.add(client).add(upstream);
    let sawPost = false;
    client.on("data", (chunk: Buffer) => {
      if (chunk.toString("latin1").startsWith("POST ")) sawPost = true;
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (armed && sawPost) {
        armed = false;
        cut++;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("close", close).on("error", close);
    upstream.on("close", close).on("error", close);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`,
    arm: () => void (armed = true),
    get cut() {
      return cut;
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}

describe("SDK retries against a real server", () => {
  it("a 429 is retried after its Retry-After and succeeds; results carry rateLimit and requestId", async () => {
    const recorder = recordingFetch();
    const client = createClient({ baseUrl: server.apiUrl, token: tokens.retrier!, fetch: recorder.fetch });
    const first = await client.chat.post("retry me: one");
    expect(first.requestId).toBeTruthy();
    expect(first.rateLimit).toMatchObject({ policy: "chat-post", limit: 1, remaining: 0 });

    // The chat takes one post per 2 seconds: the server answers 429 with Retry-After, the SDK waits and posts again.
    const second = await client.chat.post("retry me: two");
    expect(second.text).toBe("retry me: two");
    const posts = recorder.attempts.filter((a) => a.method === "POST");
    expect(posts.map((a) => a.status)).toEqual([201, 429, 201]);
    expect(posts[2]!.at - posts[1]!.at).toBeGreaterThanOrEqual(900); // Retry-After: whole seconds, waited
    expect(posts[1]!.key).toBe(posts[2]!.key); // one call, one Idempotency-Key
    expect(posts[0]!.key).not.toBe(posts[1]!.key);
    expect(await messagesWithText("retry me: two")).toHaveLength(1);

    // maxRetries: 0 hands the 429 back at once.
    const limited = await client.chat.post("retry me: three", { maxRetries: 0 }).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(PlatformError);
    expect(limited).toMatchObject({ status: 429, code: "rate_limited" });
    expect((limited as PlatformError).retryAfter).toBeGreaterThanOrEqual(1);
    expect((limited as PlatformError).rateLimit).toMatchObject({ remaining: 0 });
  });

  it("a POST whose answer is lost is retried with the same Idempotency-Key: exactly one message", async () => {
    const proxy = await startCuttingProxy(server.port);
    try {
      const recorder = recordingFetch();
      const client = createClient({ baseUrl: `${proxy.url}/api/v1`, token: tokens.dropper!, fetch: recorder.fetch });
      const text = `posted once through a cut connection ${Date.now()}`;
      proxy.arm();
      const posted = await client.chat.post(text);
      expect(proxy.cut).toBe(1);
      const posts = recorder.attempts.filter((a) => a.method === "POST");
      expect(posts.map((a) => a.status)).toEqual([0, 201]); // no answer, then the first answer replayed
      expect(posts[0]!.key).toBeTruthy();
      expect(posts[1]!.key).toBe(posts[0]!.key);
      const stored = await messagesWithText(text);
      expect(stored.map((m) => m.id)).toEqual([posted.id]);

      // Without a key, a POST is never retried: the lost answer is a network_error.
      await new Promise((r) => setTimeout(r, 2100)); // the chat's one post per 2 seconds
      proxy.arm();
      const lost = await client.chat.post(`${text} (no key)`, { idempotencyKey: false }).catch((e: unknown) => e);
      expect(lost).toBeInstanceOf(PlatformError);
      expect(lost).toMatchObject({ code: "network_error", status: 0 });
    } finally {
      await proxy.close();
    }
  });

  it("no answer is a PlatformError: network_error after the retries, timeout, aborted", async () => {
    // Nothing listens on this port: connection refused, three attempts (maxRetries 2), then network_error.
    const closed = await findFreePort();
    const recorder = recordingFetch();
    const unreachable = createClient({ baseUrl: `http://127.0.0.1:${closed}`, token: "t", fetch: recorder.fetch });
    const refused = await unreachable.users.get("alice").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PlatformError);
    expect(refused).toMatchObject({ name: "PlatformError", code: "network_error", status: 0 });
    expect(recorder.attempts).toHaveLength(3);

    // A server that accepts and never answers: each attempt's time limit.
    const silent = net.createServer((socket) => socket.on("error", () => {}));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const held = new Set<net.Socket>();
    silent.on("connection", (socket) => held.add(socket));
    try {
      const port = (silent.address() as net.AddressInfo).port;
      const client = createClient({ baseUrl: `http://127.0.0.1:${port}`, token: "t", timeoutMs: 200, maxRetries: 1 });
      const started = Date.now();
      await expect(client.users.get("alice")).rejects.toMatchObject({ name: "PlatformError", code: "timeout", status: 0 });
      expect(Date.now() - started).toBeGreaterThanOrEqual(400);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      await expect(client.users.get("alice", { signal: controller.signal, timeoutMs: 10_000 })).rejects.toMatchObject({ code: "aborted" });
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
