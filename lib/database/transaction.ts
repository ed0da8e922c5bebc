import type pg from "pg";

/**
 * The one BEGIN … COMMIT over a raw pg connection (Prisma's own is `db.$transaction`): `work` runs
 * between them; on any error the transaction is rolled back and the error rethrown. A failed
 * ROLLBACK is ignored: the connection is then broken anyway, and the first error is the one to
 * report. Imports nothing but pg's types, so the migrator can use it before anything else loads.
 */
export async function inPgTransaction<T>(client: pg.ClientBase, work: () => Promise<T>): Promise<T> {
  await client.query("BEGIN");
  try {
    const result = await work();
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}

/** The same on a connection of `pool`, given back to it afterwards. */
export async function pgTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    return await inPgTransaction(client, () => work(client));
  } finally {
    client.release();
  }
}
