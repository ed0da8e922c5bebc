import { defineConfig } from "prisma/config";
import { PrismaPg } from "@prisma/adapter-pg";

// Prisma 6.19 with the JS engine: the CLI would otherwise download a schema-engine binary (no internet here).
export default defineConfig({
  schema: "prisma/schema.prisma",
  experimental: { adapter: true },
  engine: "js",
  async adapter() {
    // A short idle timeout: the CLI never closes its pool, and pg's default (10 s) keeps it alive that long.
    return new PrismaPg({ connectionString: process.env.DATABASE_URL ?? "postgresql://localhost:5432/postgres", idleTimeoutMillis: 200 });
  },
});
