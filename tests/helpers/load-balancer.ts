import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A minimal HTTP load balancer for multi-process tests: every request goes to the next backend in
 * turn (round robin, no sticky sessions), or to backend `n` when the request carries
 * `x-backend: n` (so a test can split parallel requests deliberately). The Host header is kept, so
 * the backends see the public origin (APP_URL) exactly as behind a real balancer.
 */
export interface LoadBalancer {
  url: string;
  port: number;
  /** Which backend served each request, in order: `[index, method, path]`. */
  served: [number, string, string][];
  close(): Promise<void>;
}

export async function startLoadBalancer(backends: { port: number }[], listenPort = 0): Promise<LoadBalancer> {
  let next = 0;
  const served: LoadBalancer["served"] = [];
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const server = http.createServer((req, res) => {
    const pinned = Number(req.headers["x-backend"]);
    const index = Number.isInteger(pinned) && pinned >= 0 && pinned < backends.length ? pinned : next++ % backends.length;
    served.push([index, req.method ?? "GET", (req.url ?? "/").split("?")[0]!]);
    const headers = { ...req.headers };
    delete headers["x-backend"];
    const upstream = http.request(
      { host: "127.0.0.1", port: backends[index]!.port, method: req.method, path: req.url, headers, agent },
      (answer) => {
        // Hop-by-hop headers are the balancer's own (RFC 9110 §7.6.1): forwarding the backend's
        // `Keep-Alive: timeout=65` told clients to keep idle connections longer than this server
        // keeps them, and a request sent on one just as it closed failed with ECONNRESET.
        const headers: string[] = [];
        for (let i = 0; i < answer.rawHeaders.length; i += 2) {
          if (!/^(connection|keep-alive|transfer-encoding)$/i.test(answer.rawHeaders[i]!)) headers.push(answer.rawHeaders[i]!, answer.rawHeaders[i + 1]!);
        }
        res.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code: "bad_gateway", message: "backend unreachable" } }));
    });
    req.pipe(upstream);
  });
  // Idle client connections last as long as behind the product's own server (server.ts), longer than any test waits.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const port = await new Promise<number>((resolve) => server.listen(listenPort, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
  return {
    url: `http://localhost:${port}`,
    port,
    served,
    async close() {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
