/**
 * Retries `check` (which throws, e.g. a failed expect) every `intervalMs` until it passes, or
 * rethrows its last failure after `withinMs`. For what becomes true when a cache entry expires or
 * the change channel delivers: a fixed sleep of the cache's lifetime races it, this
 * waits exactly as long as needed and fails only past a stated bound.
 */
export async function until<T>(check: () => Promise<T>, options: { withinMs: number; intervalMs?: number }): Promise<T> {
  const deadline = Date.now() + options.withinMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
    }
  }
}
