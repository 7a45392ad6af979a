import type pg from 'pg';

/** Runs `work` in one transaction on one client: committed if it returns, rolled back if it throws. */
export async function inTransaction<T>(db: pg.Pool, work: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    const out = await work(client);
    await client.query('COMMIT');
    return out;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
