// Starts an embedded PostgreSQL for Prisma CLI calls during development (`prisma migrate diff`
// needs a reachable server through the driver adapter) and prints its URL. Ctrl-C stops it.
import { ensureDatabase, startEmbeddedPostgres } from "../lib/database/embedded";

const dir = process.argv[2] ?? ".data/dev-cli";
const port = Number(process.argv[3] ?? 54400);
const db = await startEmbeddedPostgres({ dir, port });
await ensureDatabase(db.serverUrl, "platform");
console.log(db.url("platform"));
const stop = () => void db.stop().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
setInterval(() => {}, 1 << 30);
