import { LRUCache } from "lru-cache";
import { logger } from "../logger";

/** How often one process writes a "last used" time for the same thing (the paths that record it are hot). */
export const LAST_USED_GRANULARITY_MS = 60_000;

/**
 * A "last used" recorder: `record(key)` runs `write(key)` at most once per key per
 * LAST_USED_GRANULARITY_MS in this process, in the background; a failed write is logged, never
 * thrown, so it cannot fail or delay the request that used the thing. Client secrets (token
 * endpoint) and connected apps (code and refresh grants) use it.
 */
export function lastUsedRecorder(what: string, max: number, write: (key: string) => Promise<unknown>): (key: string) => void {
  const recentlyWritten = new LRUCache<string, true>({ max, ttl: LAST_USED_GRANULARITY_MS });
  return (key) => {
    if (recentlyWritten.has(key)) return;
    recentlyWritten.set(key, true);
    write(key).catch((error: Error) => logger.warn(`${what} last-used update failed`, { error: error.message }));
  };
}
