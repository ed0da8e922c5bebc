import net from "node:net";

/**
 * A TCP proxy between a server under test and PostgreSQL, so a test can take "the database" away
 * from one process without stopping the PostgreSQL every other test file shares.
 *
 * - `down("reset")`: every proxied connection is destroyed and new ones are accepted and closed at
 *   once (PostgreSQL crashed, its port still answers or a pooler is in front).
 * - `down("refuse")`: as above, but the port stops listening (ECONNREFUSED: PostgreSQL is stopped).
 * - `down("blackhole")`: proxied connections are destroyed and new ones are accepted but never
 *   answered (the client only learns from its own timeouts).
 * - `down("stall")`: a network partition: proxied connections stay open but nothing passes any
 *   more, and new ones are accepted but never answered. `up()` then closes the stalled ones.
 * - `up()`: connections are proxied again (black-holed ones are closed so their owners retry).
 */
export type DownMode = "reset" | "refuse" | "blackhole" | "stall";

export interface TcpProxy {
  port: number;
  /** `databaseUrl` with its host and port replaced by the proxy's. */
  rewrite(databaseUrl: string): string;
  down(mode?: DownMode): Promise<void>;
  up(): Promise<void>;
  /** Connections proxied right now. */
  readonly active: number;
  /** Connections accepted since start, proxied or not. */
  readonly accepted: number;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }, listenPort = 0): Promise<TcpProxy> {
  let mode: DownMode | "up" = "up";
  let accepted = 0;
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  const held = new Set<net.Socket>();

  const server = net.createServer((client) => {
    accepted++;
    client.on("error", () => {});
    if (mode === "reset" || mode === "refuse") {
      client.destroy();
      return;
    }
    if (mode === "blackhole" || mode === "stall") {
      held.add(client);
      client.on("close", () => held.delete(client));
      client.resume(); // read and drop whatever the client sends
      return;
    }
    const upstream = net.connect(target.port, target.host);
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
    const pair = { client, upstream };
    pairs.add(pair);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("close", drop);
    upstream.on("close", drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });

  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject);
        resolve((server.address() as net.AddressInfo).port);
      });
    });
  const port = await listen(listenPort);

  const stopListening = () => new Promise<void>((resolve) => server.close(() => resolve()));

  return {
    port,
    rewrite(databaseUrl) {
      const url = new URL(databaseUrl);
      url.hostname = "127.0.0.1";
      url.port = String(port);
      return url.href;
    },
    async down(next = "reset") {
      mode = next;
      for (const { client, upstream } of pairs) {
        if (next === "stall") {
          // Keep both sockets open, move nothing: what a dropped route looks like to both ends.
          client.unpipe(upstream);
          upstream.unpipe(client);
          client.pause();
          upstream.pause();
          held.add(client);
          held.add(upstream);
          continue;
        }
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
      if (next === "refuse" && server.listening) await stopListening();
    },
    async up() {
      const wasRefusing = mode === "refuse";
      mode = "up";
      for (const socket of held) socket.destroy();
      held.clear();
      if (wasRefusing || !server.listening) {
        // The same port again: the server under test keeps its DATABASE_URL. Retry briefly in case
        // the kernel has not released it yet.
        for (let attempt = 0; ; attempt++) {
          try {
            await listen(port);
            break;
          } catch (error) {
            if (attempt > 50) throw error;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
      }
    },
    get active() {
      return pairs.size;
    },
    get accepted() {
      return accepted;
    },
    async close() {
      mode = "reset";
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      for (const socket of held) socket.destroy();
      if (server.listening) await stopListening();
    },
  };
}
