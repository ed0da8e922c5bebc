/**
 * Baseline B: the ceiling for a DB-backed read: node:http + a raw pg pool (same size as the app's,
 * lib/database/client.ts) doing one indexed read of a user by handle per request (in the live world,
 * The (worldId, handle) unique index, as the app reads it).
 * `node bench/baselines/bare-pg.ts <port> <databaseUrl>`; GET /users/<handle>.
 */
import http from "node:http";
import pg from "pg";

const port = Number(process.argv[2] ?? 0);
const pool = new pg.Pool({ connectionString: process.argv[3], max: 20 });

const SQL = `SELECT handle, "displayName", bio, location, "avatarUrl", "friendCount", "achievementsCount"
  FROM "User" WHERE "worldId" = 0 AND handle = $1 AND NOT disabled`;

const server = http.createServer((req, res) => {
  const handle = decodeURIComponent((req.url ?? "/").split("?")[0]!.split("/")[2] ?? "").toLowerCase();
  pool.query(SQL, [handle]).then(
    ({ rows }) => {
      const row = rows[0];
      if (!row) {
        res.writeHead(404, { "content-type": "application/json; charset=utf-8" });
        res.end(JSON.stringify({ error: { code: "not_found", message: "No such user." } }));
        return;
      }
      res.writeHead(200, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
      res.end(
        JSON.stringify({
          user: {
            username: row.handle,
            displayName: row.displayName,
            bio: row.bio,
            location: row.location,
            pfpUrl: row.avatarUrl,
            friendCount: row.friendCount,
            achievementsCount: row.achievementsCount,
          },
          achievementContext: {},
          viewerContext: { areFriends: false },
          isAuthenticated: false,
          isOwnProfile: false,
        }),
      );
    },
    (error: Error) => {
      res.writeHead(500, { "content-type": "application/json; charset=utf-8" });
      res.end(JSON.stringify({ error: { code: "internal_error", message: error.message } }));
    },
  );
});
server.keepAliveTimeout = 65_000;
server.listen(port, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`listening on port ${typeof address === "object" && address ? address.port : port}\n`);
});
process.on("SIGTERM", () => server.close(() => void pool.end().then(() => process.exit(0))));
