import net from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { deliverWebhook } from "../../lib/events/deliver-http";

/**
 * The HTTP/1.1 exchange of a webhook attempt (lib/events/http1-client.ts) against receivers that
 * answer with exact bytes: answers split at every byte, interim 1xx answers, chunked bodies with
 * extensions and trailers, close-delimited bodies, and the framings after which a connection must
 * not be used again (Connection: close, HTTP/1.0, conflicting lengths, bytes after the answer).
 * A malformed status line or an oversized head fails the attempt; a header that would split the
 * request is never sent.
 */
interface RawReceiver {
  url: string;
  /** Connections accepted so far. */
  connections: number;
  /** Requests read (head and body), in order. */
  requests: string[];
  close(): Promise<void>;
}

const receivers: RawReceiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

/**
 * A TCP receiver that reads each request (head, then Content-Length bytes) and answers with
 * `answer(n)` for the n-th request, written in pieces of `piece` bytes (1: byte by byte).
 */
async function rawReceiver(answer: (n: number) => string | Buffer, piece = Infinity): Promise<RawReceiver> {
  const sockets = new Set<net.Socket>();
  const receiver: RawReceiver = { url: "", connections: 0, requests: [], close: async () => {} };
  const server = net.createServer((socket) => {
    receiver.connections += 1;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let buffered = Buffer.alloc(0);
    socket.on("data", async (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        const end = buffered.indexOf("\r\n\r\n");
        if (end < 0) return;
        const head = buffered.toString("latin1", 0, end);
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        receiver.requests.push(buffered.toString("utf8", 0, end + 4 + length));
        buffered = buffered.subarray(end + 4 + length);
        const bytes = Buffer.from(answer(receiver.requests.length));
        for (let at = 0; at < bytes.length; at += piece) {
          socket.write(bytes.subarray(at, Math.min(bytes.length, at + piece)));
          if (piece < bytes.length) await new Promise((r) => setImmediate(r));
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hooks`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  receivers.push(receiver);
  return receiver;
}

const body = JSON.stringify({ id: "evt_1", type: "ping", created_at: 1, data: { text: "héllo" } });
const headers = { "content-type": "application/json", "webhook-id": "evt_1", "webhook-timestamp": "1", "webhook-signature": "v1,abc" };
const send = (url: string, extra: Record<string, string> = {}) => deliverWebhook({ url, body, headers: { ...headers, ...extra }, allowPrivate: true, timeoutMs: 2_000 });

describe("the HTTP/1.1 exchange of a webhook attempt", () => {
  it("reads an answer that arrives a byte at a time, chunked with an extension and trailers, and keeps the connection", async () => {
    const answer = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Long: " + "a".repeat(300) + "\r\n\r\n" + "5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: yes\r\n\r\n";
    const receiver = await rawReceiver(() => answer, 1);
    expect(await send(receiver.url)).toMatchObject({ ok: true, statusCode: 200, error: null, responseBody: "hello, world" });
    expect(await send(receiver.url)).toMatchObject({ ok: true, statusCode: 200, responseBody: "hello, world" });
    expect(receiver.connections).toBe(1);
    // What was sent: the request line, Host, our headers, the body's length and the body.
    const [request] = receiver.requests;
    expect(request!.startsWith("POST /hooks HTTP/1.1\r\n")).toBe(true);
    expect(request).toContain(`\r\nhost: ${new URL(receiver.url).host}\r\n`);
    expect(request).toContain(`\r\ncontent-length: ${Buffer.byteLength(body)}\r\n`);
    expect(request).toContain("\r\nwebhook-id: evt_1\r\n");
    expect(request!.endsWith(`\r\n\r\n${body}`)).toBe(true);
  });

  it("skips interim 1xx answers; a length-framed body is read to its length, the connection kept", async () => {
    const receiver = await rawReceiver(() => "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok", 7);
    expect(await send(receiver.url)).toMatchObject({ ok: true, statusCode: 201, responseBody: "ok" });
    expect(await send(receiver.url)).toMatchObject({ ok: true, statusCode: 201 });
    expect(receiver.connections).toBe(1);
  });

  it("does not use a connection again after Connection: close, HTTP/1.0, a close-delimited body or bytes after the answer", async () => {
    const answers = [
      "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n",
      "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
      "HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
    ];
    for (const answer of answers) {
      const receiver = await rawReceiver(() => answer);
      expect(await send(receiver.url), answer).toMatchObject({ ok: true });
      expect(await send(receiver.url), answer).toMatchObject({ ok: true });
      expect(receiver.connections, answer).toBe(2);
    }
    // No length, not chunked: the body ends with the connection.
    const closing = await rawReceiver(() => "HTTP/1.1 500 Oops\r\n\r\nbody until close");
    const result = send(closing.url);
    await new Promise((r) => setTimeout(r, 200));
    await closing.close();
    expect(await result).toMatchObject({ ok: false, statusCode: 500, error: null, responseBody: "body until close" });
  });

  it("fails on a malformed status line, conflicting lengths or an oversized head, and drops the connection", async () => {
    const garbled = await rawReceiver(() => "HTTX/1.1 200 OK\r\n\r\n");
    expect(await send(garbled.url)).toMatchObject({ ok: false, statusCode: null, error: "network" });
    const lengths = await rawReceiver(() => "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok");
    expect(await send(lengths.url)).toMatchObject({ ok: false, statusCode: null, error: "network" });
    expect(await send(lengths.url)).toMatchObject({ ok: false, error: "network" });
    expect(lengths.connections).toBe(2);
    const huge = await rawReceiver(() => `HTTP/1.1 200 OK\r\nX-Big: ${"b".repeat(20_000)}\r\n\r\n`);
    expect(await send(huge.url)).toMatchObject({ ok: false, statusCode: null, error: "network" });
    expect(await send(garbled.url)).toMatchObject({ ok: false, error: "network" });
    expect(garbled.connections).toBe(2);
  });

  it("never sends a header that would split the request", async () => {
    const receiver = await rawReceiver(() => "HTTP/1.1 204 No Content\r\n\r\n");
    expect(await send(receiver.url, { "webhook-id": "evt_1\r\nx-injected: 1" })).toMatchObject({ ok: false, error: "network" });
    expect(await send(receiver.url, { "bad name": "x" })).toMatchObject({ ok: false, error: "network" });
    expect(receiver.requests).toHaveLength(0);
    expect(await send(receiver.url)).toMatchObject({ ok: true, statusCode: 204 });
  });
});
