/**
 * V8 flags of the production server (`npm start`, package.json), which only take effect on the
 * command line (v8.setFlagsFromString is too late for the heap's layout). Peak RSS: V8's
 * young generation grows to 2 × 16 MiB semi-spaces under load; 2 × 8 MiB cut the bench's RSS by
 * 15–25 MB with no change in throughput beyond noise (4 MiB cost 5–13 % on the fastest reads).
 * The bench starts its servers with the same flags; a test keeps package.json in step.
 */
export const PRODUCTION_NODE_FLAGS = ["--max-semi-space-size=8"] as const;
