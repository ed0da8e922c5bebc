import DataLoader from "dataloader";

/**
 * Hot reads that many concurrent requests make with different keys (a profile by handle, an app's
 * status, a client's secret hash) share one query per event-loop turn: every request Node parsed in
 * the same I/O phase asks, then the batch runs on `setImmediate`, so under load one round trip and
 * one statement serve a whole turn's requests instead of one each. A quiet server answers a lone
 * request just as fast (the batch of one runs right after the I/O phase).
 *
 * DataLoader with its cache off: every call reads fresh rows (no stale answers), only the round
 * trip is shared. `load` must return one result per key, in key order; an error rejects the whole
 * batch's callers, as a failed query of their own would.
 */
export const MAX_BATCH = 256;

/**
 * A batched query's rows back in key order: the statement numbers its keys with `WITH ORDINALITY
 * AS k(…, i)` and returns `k.i`; undefined where a key matched nothing.
 */
export function byPosition<R extends { i: string | number }>(rows: R[], count: number): (R | undefined)[] {
  const out = new Array<R | undefined>(count).fill(undefined);
  for (const row of rows) out[Number(row.i) - 1] = row;
  return out;
}

export function turnBatched<K, V>(load: (keys: readonly K[]) => Promise<V[]>): (key: K) => Promise<V> {
  const loader = new DataLoader<K, V>(
    async (keys) => {
      const values = await load(keys);
      if (values.length !== keys.length) throw new Error(`batch returned ${values.length} results for ${keys.length} keys`);
      return values;
    },
    { cache: false, maxBatchSize: MAX_BATCH, batchScheduleFn: (run) => setImmediate(run) },
  );
  return (key) => loader.load(key);
}
