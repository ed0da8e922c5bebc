/**
 * Baseline D: the password check alone, the part of a sign-in the flow must pay. The
 * app's own verifyPassword (lib/crypto/passwords.ts): the same hash parameters (read from the
 * stored hash), the same limit on hashes at once and the same libuv thread pool as the server,
 * behind bare node:http. `node bench/baselines/password-hash.ts <port> <storedHash>`; POST / with
 * the password as the body answers 204 when it matches, 401 otherwise.
 */
import http from "node:http";
import { verifyPassword } from "../../lib/crypto/passwords";

const port = Number(process.argv[2] ?? 0);
const stored = process.argv[3] ?? "";

const server = http.createServer((req, res) => {
  let body = "";
  req.setEncoding("utf8");
  req.on("data", (chunk: string) => (body += chunk));
  req.on("end", () => {
    verifyPassword(body, stored).then(
      (match) => {
        res.writeHead(match ? 204 : 401);
        res.end();
      },
      () => {
        res.writeHead(500);
        res.end();
      },
    );
  });
});
server.keepAliveTimeout = 65_000;
server.listen(port, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`listening on port ${typeof address === "object" && address ? address.port : port}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
