import { execFileSync } from "node:child_process";
import dns from "node:dns";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { checkWebhookUrl, deliverWebhook } from "../../lib/events/deliver-http";
import { resetEnv } from "../../lib/env";
import { describeWebhookUrlRule } from "../../lib/schemas/webhooks";

/**
 * lib/events/deliver-http.ts against real receivers on 127.0.0.1 (node:http and node:https):
 * what counts as delivered, that redirects are not followed, that at most 4 KiB of an answer is
 * read, the deadline, the error kinds, and the SSRF guard — with WEBHOOKS_ALLOW_PRIVATE off, a
 * loopback, private, link-local or metadata target is refused before any connection is made.
 */
interface Receiver {
  url: string;
  port: number;
  /** Connections the receiver accepted. */
  connections: number;
  requests: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[];
  /** Sockets closed (by either side) so far. */
  closed: number;
  close(): Promise<void>;
}

const receivers: Receiver[] = [];

async function startReceiver(handle: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void, server: http.Server = http.createServer()): Promise<Receiver> {
  const receiver: Receiver = { url: "", port: 0, connections: 0, requests: [], closed: 0, close: async () => {} };
  server.on("connection", (socket: import("node:net").Socket) => {
    receiver.connections += 1;
    socket.once("close", () => (receiver.closed += 1));
  });
  server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      receiver.requests.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      handle(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `${server instanceof https.Server ? "https" : "http"}://127.0.0.1:${receiver.port}`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  receivers.push(receiver);
  return receiver;
}

/** A port nothing listens on. */
async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const body = JSON.stringify({ id: "evt_1", type: "ping", created_at: 1, data: { text: "héllo" } });
const headers = { "content-type": "application/json", "webhook-id": "evt_1", "webhook-timestamp": "1", "webhook-signature": "v1,abc" };
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(() => {
  vi.restoreAllMocks();
});

afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

describe("a delivery attempt (WEBHOOKS_ALLOW_PRIVATE on, receivers on 127.0.0.1)", () => {
  it("POSTs the body and headers; any 2xx is delivered", async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(204).end());
    const result = await deliverWebhook({ url: `${receiver.url}/hooks?x=1`, body, headers, allowPrivate: true });
    expect(result).toMatchObject({ ok: true, statusCode: 204, error: null, responseBody: "" });
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request).toMatchObject({ method: "POST", url: "/hooks?x=1", body });
    expect(request!.headers).toMatchObject({ ...headers, host: `127.0.0.1:${receiver.port}`, "content-length": String(Buffer.byteLength(body)) });
  });

  it("keeps the connection for the next delivery to the same receiver; one the receiver drops after reading the request is not sent again", async () => {
    const served = new WeakSet<object>();
    let dropNext = false;
    const receiver = await startReceiver((req, res) => {
      if (dropNext && served.has(req.socket)) {
        dropNext = false;
        req.socket.destroy(); // as a receiver closing an idle connection just as it is reused
        return;
      }
      served.add(req.socket);
      res.writeHead(204).end();
    });
    for (let i = 0; i < 3; i += 1) {
      expect(await deliverWebhook({ url: receiver.url, body, headers, allowPrivate: true })).toMatchObject({ ok: true, statusCode: 204 });
    }
    expect(receiver.connections).toBe(1);
    dropNext = true;
    // The receiver read it before it dropped the connection: sending it again would deliver it twice.
    expect(await deliverWebhook({ url: receiver.url, body, headers, allowPrivate: true })).toMatchObject({ ok: false, statusCode: null, error: "network" });
    expect(receiver.requests).toHaveLength(4);
    expect(await deliverWebhook({ url: receiver.url, body, headers, allowPrivate: true })).toMatchObject({ ok: true, statusCode: 204, error: null });
    expect(receiver.connections).toBe(2);
    expect(receiver.requests).toHaveLength(5);
  });

  it("a receiver that stops answering on a kept-alive connection gets each attempt once and holds no socket past the deadline", async () => {
    let answer = true;
    const receiver = await startReceiver((_req, res) => {
      if (answer) res.writeHead(204).end();
    });
    expect(await deliverWebhook({ url: receiver.url, body, headers, allowPrivate: true })).toMatchObject({ ok: true });
    expect(receiver.connections).toBe(1);
    answer = false;
    for (let i = 0; i < 2; i += 1) {
      const started = performance.now();
      const result = await deliverWebhook({ url: receiver.url, body: `${body}${i}`, headers, allowPrivate: true, timeoutMs: 300 });
      expect(result).toMatchObject({ ok: false, statusCode: null, error: "timeout" });
      expect(performance.now() - started).toBeLessThan(1_000);
    }
    // Well past the deadline: no copy went on a new connection, and every socket is closed.
    await wait(500);
    expect(receiver.requests.map((r) => r.body)).toEqual([body, `${body}0`, `${body}1`]);
    expect(receiver.closed).toBe(receiver.connections);
  });

  it("a 500 is not delivered and keeps its status and the start of the answer", async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(500, { "content-type": "text/plain" }).end("oops"));
    const result = await deliverWebhook({ url: receiver.url, body, headers, allowPrivate: true });
    expect(result).toMatchObject({ ok: false, statusCode: 500, error: null, responseBody: "oops" });
  });

  it("does not follow a redirect: a 302 is a failure with its status, and its target receives nothing", async () => {
    const target = await startReceiver((_req, res) => res.writeHead(200).end("ok"));
    const redirecting = await startReceiver((_req, res) => res.writeHead(302, { location: `${target.url}/elsewhere` }).end());
    const result = await deliverWebhook({ url: redirecting.url, body, headers, allowPrivate: true });
    expect(result).toMatchObject({ ok: false, statusCode: 302, error: null });
    await wait(100);
    expect(target.connections).toBe(0);
    expect(redirecting.requests).toHaveLength(1);
  });

  it("reads at most 4 KiB of the answer and keeps 1 KiB: a receiver sending 1 MiB and never ending is cut off at once", async () => {
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("é".repeat(512 * 1024)); // 1 MiB, 2 bytes a character; the answer never ends
    });
    const started = performance.now();
    const result = await deliverWebhook({ url: receiver.url, body, headers, allowPrivate: true, timeoutMs: 5_000 });
    // Had it read on, it would have waited for the end of an answer that never ends, up to the deadline.
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(result).toMatchObject({ ok: true, statusCode: 200, error: null });
    expect(result.responseBody).toBe("é".repeat(512));
    await vi.waitFor(() => expect(receiver.closed).toBe(1), { timeout: 2_000 });
  });

  it("ends the attempt at timeoutMs when the receiver does not answer, and drops the connection", async () => {
    const receiver = await startReceiver(() => {}); // never answers
    const started = performance.now();
    const result = await deliverWebhook({ url: receiver.url, body, headers, allowPrivate: true, timeoutMs: 300 });
    const took = performance.now() - started;
    expect(result).toMatchObject({ ok: false, statusCode: null, error: "timeout", responseBody: "" });
    expect(took).toBeGreaterThanOrEqual(295);
    expect(took).toBeLessThan(2_000);
    expect(result.latencyMs).toBeGreaterThanOrEqual(295);
    await vi.waitFor(() => expect(receiver.closed).toBe(1), { timeout: 2_000 });
  });

  it("names the error: refused, dns, tls", async () => {
    const closed = await freePort();
    expect(await deliverWebhook({ url: `http://127.0.0.1:${closed}`, body, headers, allowPrivate: true })).toMatchObject({ ok: false, statusCode: null, error: "refused" });
    expect(await deliverWebhook({ url: "https://no-such-host.invalid/hook", body, headers, allowPrivate: true })).toMatchObject({ ok: false, error: "dns" });

    // A receiver whose certificate no CA vouches for.
    const dir = mkdtempSync(path.join(os.tmpdir(), "webhook-tls-"));
    try {
      execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj", "/CN=localhost", "-keyout", path.join(dir, "key.pem"), "-out", path.join(dir, "cert.pem")], { stdio: "ignore" });
      const tlsServer = https.createServer({ key: readFileSync(path.join(dir, "key.pem")), cert: readFileSync(path.join(dir, "cert.pem")) });
      const receiver = await startReceiver((_req, res) => res.writeHead(200).end(), tlsServer);
      expect(await deliverWebhook({ url: receiver.url, body, headers, allowPrivate: true })).toMatchObject({ ok: false, statusCode: null, error: "tls" });
      expect(receiver.requests).toHaveLength(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("connects to the address it checked, keeping the URL's host in Host (no second lookup to rebind)", async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(200).end());
    // hooks.example resolves only through this answer; a second lookup (the system resolver) would fail with ENOTFOUND.
    const lookup = vi.spyOn(dns.promises, "lookup").mockImplementation((async (hostname: string) => {
      expect(hostname).toBe("hooks.example");
      return [{ address: "127.0.0.1", family: 4 }];
    }) as unknown as typeof dns.promises.lookup);
    const result = await deliverWebhook({ url: `http://hooks.example:${receiver.port}/in`, body, headers, allowPrivate: true });
    expect(result).toMatchObject({ ok: true, statusCode: 200, error: null });
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(receiver.requests[0]!.headers.host).toBe(`hooks.example:${receiver.port}`);
  });

  it("still refuses link-local and metadata addresses", async () => {
    for (const url of ["https://169.254.169.254/latest/meta-data", "https://[fd00:ec2::254]/", "http://[fe80::1]/", "http://0.0.0.0/", "http://224.0.0.1/"]) {
      expect(await deliverWebhook({ url, body, headers, allowPrivate: true }), url).toMatchObject({ ok: false, statusCode: null, error: "blocked_address" });
    }
  });
});

describe("the SSRF guard (WEBHOOKS_ALLOW_PRIVATE off)", () => {
  it("refuses loopback, private, link-local and metadata targets without connecting", async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(200).end());
    const urls = [
      `http://127.0.0.1:${receiver.port}/`,
      `https://127.0.0.1:${receiver.port}/`,
      `https://localhost:${receiver.port}/`, // a name resolving to 127.0.0.1
      `https://[::1]:${receiver.port}/`,
      `https://[::ffff:127.0.0.1]:${receiver.port}/`,
      `https://2130706433:${receiver.port}/`, // 127.0.0.1 written as one number
      "https://10.0.0.1/",
      "https://172.16.5.4/",
      "https://192.168.1.1/",
      "https://100.64.0.1/",
      "https://169.254.169.254/latest/meta-data",
      "https://[fd00:ec2::254]/",
      "https://[fc00::1]/",
      "https://[64:ff9b::a9fe:a9fe]/", // NAT64 of 169.254.169.254
      "https://0.0.0.0/",
      "https://255.255.255.255/",
      "https://240.0.0.1/",
    ];
    for (const url of urls) {
      const started = performance.now();
      // The receiver's port allowed: the address alone refuses these.
      const result = await deliverWebhook({ url, body, headers, allowPrivate: false, allowedPorts: [443, receiver.port], timeoutMs: 5_000 });
      expect(result, url).toMatchObject({ ok: false, statusCode: null, error: "blocked_address", responseBody: "" });
      expect(performance.now() - started, url).toBeLessThan(1_000);
    }
    await wait(100);
    expect(receiver.connections).toBe(0);
  });

  it("refuses a name that resolves to loopback at delivery time, without connecting", async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(200).end());
    const lookup = vi.spyOn(dns.promises, "lookup").mockImplementation((async () => [{ address: "127.0.0.1", family: 4 }]) as unknown as typeof dns.promises.lookup);
    // Registration could not know: the name is fine, its address today is not.
    expect(checkWebhookUrl(`https://hooks.attacker.example:${receiver.port}/`, false, [receiver.port])).toMatchObject({ ok: true });
    const result = await deliverWebhook({ url: `https://hooks.attacker.example:${receiver.port}/`, body, headers, allowPrivate: false, allowedPorts: [receiver.port] });
    expect(result).toMatchObject({ ok: false, statusCode: null, error: "blocked_address" });
    expect(lookup).toHaveBeenCalledTimes(1);
    await wait(100);
    expect(receiver.connections).toBe(0);
  });

  it("refuses a name when any of its addresses is blocked", async () => {
    vi.spyOn(dns.promises, "lookup").mockImplementation((async () => [
      { address: "93.184.215.14", family: 4 },
      { address: "10.1.2.3", family: 4 },
    ]) as unknown as typeof dns.promises.lookup);
    expect(await deliverWebhook({ url: "https://mixed.example/hook", body, headers, allowPrivate: false })).toMatchObject({ ok: false, error: "blocked_address" });
  });

  it("follows WEBHOOKS_ALLOW_PRIVATE when the caller does not say: off unless 1", async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(204).end());
    const before = process.env.WEBHOOKS_ALLOW_PRIVATE;
    try {
      for (const [value, error] of [[undefined, "blocked_address"], ["0", "blocked_address"], ["1", null]] as const) {
        if (value === undefined) delete process.env.WEBHOOKS_ALLOW_PRIVATE;
        else process.env.WEBHOOKS_ALLOW_PRIVATE = value;
        resetEnv();
        expect(await deliverWebhook({ url: receiver.url, body, headers }), String(value)).toMatchObject({ error, ok: error === null });
        expect(checkWebhookUrl(receiver.url).ok, String(value)).toBe(error === null);
      }
    } finally {
      if (before === undefined) delete process.env.WEBHOOKS_ALLOW_PRIVATE;
      else process.env.WEBHOOKS_ALLOW_PRIVATE = before;
      resetEnv();
    }
    expect(receiver.requests).toHaveLength(1);
  });

  it("refuses 6to4, Teredo, local-use NAT64, the 6to4 relay, IPv4 behind an IPv6 prefix, and ports other than the allowed ones, at registration and at delivery", async () => {
    const refused = [
      "https://[::ffff:127.0.0.1]/", // IPv4-mapped (::ffff:0:0/96): judged as its IPv4 address
      "https://[::ffff:a00:1]/",
      "https://[::ffff:0:7f00:1]/", // IPv4-translated (SIIT)
      "https://[2002:c000:201::1]/", // 6to4 (2002::/16), even of a public-looking IPv4
      "https://[2002:808:808::1]/",
      "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", // Teredo (2001::/32)
      "https://[64:ff9b:1::808:808]/", // local-use NAT64 (64:ff9b:1::/48)
      "https://192.88.99.1/", // 6to4 relay anycast (192.88.99.0/24)
    ];
    const ports = ["https://hooks.example.com:22/", "https://hooks.example.com:6379/", "https://93.184.215.14:8443/", "http://hooks.example.com:8080/"];
    for (const url of [...refused, ...ports]) {
      expect(checkWebhookUrl(url, false), url).toMatchObject({ ok: false });
      expect(await deliverWebhook({ url, body, headers, allowPrivate: false, timeoutMs: 2_000 }), url).toMatchObject({ ok: false, statusCode: null, error: url.startsWith("http:") ? "invalid_url" : "blocked_address" });
    }
    for (const url of ports.slice(0, 2)) expect(checkWebhookUrl(url, false), url).toMatchObject({ ok: false, message: expect.stringMatching(/port 443 or 80/) });
    // Tunnels stay refused even for a development receiver; a public IPv4 address written as IPv4-mapped is that address.
    for (const url of refused.slice(3)) expect(checkWebhookUrl(url, true), url).toMatchObject({ ok: false });
    expect(checkWebhookUrl("https://[::ffff:93.184.215.14]/", false)).toMatchObject({ ok: true });
    expect(checkWebhookUrl("https://hooks.example.com:443/", false)).toMatchObject({ ok: true });
    expect(checkWebhookUrl("https://hooks.example.com:8443/", false, [8443])).toMatchObject({ ok: true });
    // A name whose address today is a tunnel is refused at delivery.
    vi.spyOn(dns.promises, "lookup").mockImplementation((async () => [{ address: "2002:808:808::1", family: 6 }]) as unknown as typeof dns.promises.lookup);
    expect(await deliverWebhook({ url: "https://tunnel.example/hook", body, headers, allowPrivate: false })).toMatchObject({ ok: false, error: "blocked_address" });
  });

  it("the portal form's hint names the ports the check accepts", () => {
    for (const allowedPorts of [[443, 80], [443], [8443], [443, 8443, 9000]]) {
      const hint = describeWebhookUrlRule({ allowPrivate: false, allowedPorts });
      for (const port of [22, 80, 443, 6379, 8080, 8443, 9000]) {
        const accepted = checkWebhookUrl(`https://hooks.example.com:${port}/in`, false, allowedPorts).ok;
        expect(accepted, `${port} with ${allowedPorts.join(",")}`).toBe(allowedPorts.includes(port));
        expect(new RegExp(`\\b${port}\\b`).test(hint), `${hint} / ${port}`).toBe(accepted);
      }
    }
    expect(describeWebhookUrlRule({ allowPrivate: true, allowedPorts: [443] })).toMatch(/any port/);
    expect(checkWebhookUrl("http://127.0.0.1:4567/in", true, [443]).ok).toBe(true);
  });

  it("an invalid URL is invalid_url", async () => {
    for (const url of ["not a url", "ftp://hooks.example.com/", "https://user:pass@hooks.example.com/", "http://hooks.example.com/"]) {
      expect(await deliverWebhook({ url, body, headers, allowPrivate: false }), url).toMatchObject({ ok: false, error: "invalid_url" });
    }
  });
});

describe("checkWebhookUrl (at registration)", () => {
  it("accepts an https URL with a host", () => {
    expect(checkWebhookUrl("https://hooks.example.com/platform?x=1", false)).toEqual({ ok: true, url: "https://hooks.example.com/platform?x=1" });
    expect(checkWebhookUrl("https://93.184.215.14:443/in", false)).toMatchObject({ ok: true });
    expect(checkWebhookUrl("https://93.184.215.14:8443/in", false, [443, 8443])).toMatchObject({ ok: true });
  });

  it("refuses http (unless private targets are allowed), user info, over-long URLs, other schemes and non-URLs", () => {
    expect(checkWebhookUrl("http://hooks.example.com/", false)).toEqual({ ok: false, message: "A webhook URL uses https." });
    expect(checkWebhookUrl("http://hooks.example.com/", true)).toMatchObject({ ok: true });
    expect(checkWebhookUrl("https://user:secret@hooks.example.com/", false)).toMatchObject({ ok: false, message: expect.stringMatching(/user name or password/) });
    expect(checkWebhookUrl("https://user@hooks.example.com/", false)).toMatchObject({ ok: false });
    expect(checkWebhookUrl(`https://hooks.example.com/${"a".repeat(2048)}`, false)).toMatchObject({ ok: false, message: expect.stringMatching(/2048/) });
    expect(checkWebhookUrl(`https://hooks.example.com/${"a".repeat(2048 - 26)}`, false)).toMatchObject({ ok: true });
    expect(checkWebhookUrl("ftp://hooks.example.com/", false)).toMatchObject({ ok: false });
    expect(checkWebhookUrl("javascript:alert(1)", false)).toMatchObject({ ok: false });
    expect(checkWebhookUrl("hooks.example.com", false)).toMatchObject({ ok: false });
    expect(checkWebhookUrl("https://", false)).toMatchObject({ ok: false });
  });

  it("refuses literal addresses delivery would refuse", () => {
    for (const url of ["https://127.0.0.1/", "http://127.0.0.1/", "https://10.0.0.1/", "https://[::1]/", "https://169.254.169.254/", "https://[::ffff:10.0.0.1]/", "https://0x7f.1/"]) {
      expect(checkWebhookUrl(url, false), url).toMatchObject({ ok: false, message: expect.stringMatching(/address/) });
    }
    for (const url of ["https://localhost/", "https://LOCALHOST.:8443/", "https://hooks.localhost/"]) {
      expect(checkWebhookUrl(url, false), url).toMatchObject({ ok: false, message: expect.stringMatching(/loopback name/) });
    }
    expect(checkWebhookUrl("https://localhost.example.com/", false)).toMatchObject({ ok: true });
    expect(checkWebhookUrl("https://10.0.0.1/", true)).toMatchObject({ ok: true });
    expect(checkWebhookUrl("http://127.0.0.1:4000/", true)).toMatchObject({ ok: true });
    expect(checkWebhookUrl("https://169.254.169.254/", true)).toMatchObject({ ok: false });
  });
});
