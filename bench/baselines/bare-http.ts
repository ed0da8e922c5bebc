/**
 * Baseline A: the ceiling for any Node service on this machine: a bare node:http server answering
 * a small, profile-sized JSON document. `node bench/baselines/bare-http.ts <port>`
 */
import http from "node:http";

const port = Number(process.argv[2] ?? 0);

const BODY = JSON.stringify({
  user: {
    username: "u000042",
    displayName: "Bench User 42",
    bio: "Benchmark account.",
    location: "Loopback",
    pfpUrl: "http://127.0.0.1/avatars/u000042.svg",
    friendCount: 4,
    achievementsCount: 2,
  },
  achievementContext: {},
  viewerContext: { areFriends: false },
  isAuthenticated: true,
  isOwnProfile: false,
});

const server = http.createServer((_req, res) => {
  res.writeHead(200, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
  res.end(BODY);
});
server.keepAliveTimeout = 65_000;
server.listen(port, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`listening on port ${typeof address === "object" && address ? address.port : port}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
