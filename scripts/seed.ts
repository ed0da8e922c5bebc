// Seeds the demo world into DATABASE_URL (idempotent). `npm run seed`; also used by the tests.
import { EnvError, env } from "../lib/env";
import { closeDb } from "../lib/database/client";
import { seedDemoWorld } from "../lib/seed";

try {
  env();
} catch (error) {
  if (error instanceof EnvError) {
    console.error(`Error: ${error.message}`);
    process.exit(1);
  }
  throw error;
}
if (!env().DATABASE_URL) {
  console.error("Error: DATABASE_URL is required for seeding (npm start seeds the embedded database by itself).");
  process.exit(1);
}
const result = await seedDemoWorld({ log: (line) => console.log(line) });
console.log(result.seeded ? "Seeded the demo world." : "The demo world was already seeded.");
await closeDb();
