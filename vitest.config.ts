import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  resolve: {
    // The SDK workspace package from its sources (its `source` export condition), as tsc and tsx see it.
    alias: { "@social-dev-platform/sdk": path.join(root, "sdk", "src", "index.ts"), "@": root },
  },
  test: {
    include: ["tests/**/*.test.ts", "lib/**/*.test.ts", "bin/**/*.test.ts"],
    // tests/reliability (multi-process, faults, soak) runs on its own: `npm run test:reliability`.
    exclude: ["node_modules", "e2e/**", ".next", ".data", ".test-data", "tests/reliability/**"],
    globalSetup: ["tests/global-setup.ts"],
    pool: "forks",
    // Three files at once on two cores: a file spends much of its time waiting on its server and
    // PostgreSQL (boots, polls, sockets), so a third keeps the cores busy (quiet 2-core machine: 397 s
    // with two, 315 s with three, the same 1,013 tests passing, including the few with a
    // time bound: a stream closing within 250 ms, a third app's deliveries under 1.5 s at p99).
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 300_000,
    teardownTimeout: 60_000,
    env: { NODE_ENV: "test", NEXT_TELEMETRY_DISABLED: "1" },
  },
});
