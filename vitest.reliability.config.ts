import { defineConfig } from "vitest/config";
import base from "./vitest.config";

/**
 * `npm run test:reliability`: the long-running tests of tests/reliability (two processes on one
 * database, database outages, SIGTERM under load, the soak). One file at a time: they measure
 * latency and memory, and would skew each other on a small machine.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ["tests/reliability/**/*.test.ts"],
    exclude: ["node_modules", "e2e", ".next", ".data", ".test-data"],
    maxWorkers: 1,
    // The soak runs SOAK_SECONDS (default 150) plus warm-up inside one test.
    testTimeout: 30 * 60_000,
  },
});
