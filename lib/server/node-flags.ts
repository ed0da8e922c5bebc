/**
 * V8 flags of the production server (`npm start`, package.json), which only take effect on the
 * command line (v8.setFlagsFromString is too late for the heap's layout). Peak RSS: V8's
 * young generation grows to 2 × 16 MiB semi-spaces under load; 2 × 8 MiB cut the bench's RSS by
 * 15–25 MB with no change in throughput beyond noise (4 MiB cost 5–13 % on the fastest reads).
 * The bench starts its servers with the same flags; a test keeps package.json in step.
 */
export const PRODUCTION_NODE_FLAGS = ["--max-semi-space-size=8"] as const;

/**
 * The environment `npm start` gives the server unless the shell set it already: glibc's malloc
 * makes up to 8 arenas per core, one for each thread that allocates at once (libuv's pool, V8's
 * GC helpers, OpenSSL), and memory freed in an arena mostly stays in the process. Two arenas cut
 * the bench's peak RSS through the events cases by 15–25 MB (253 / 265 / 282 → 238 / 244 / 257 MB
 * at 100 / 200 / 400 posts/s; idle with Next 214 → 208 MB) with the token endpoint and the
 * deliveries per core unchanged beyond noise. glibc reads it once, at start-up: it has to be in the
 * environment the process starts with, not set by the process.
 */
export const PRODUCTION_NODE_ENV = { MALLOC_ARENA_MAX: "2" } as const;

/** `env` with PRODUCTION_NODE_ENV's defaults under it (what the shell set wins). */
export function withProductionEnv<T extends Record<string, string | undefined>>(env: T): T {
  const out: Record<string, string | undefined> = { ...env };
  for (const [name, value] of Object.entries(PRODUCTION_NODE_ENV)) out[name] ??= value;
  return out as T;
}
