import type pg from 'pg';
import { inTransaction } from './tx.js';

/** A named set of demo rows. `load` runs once per database, in a transaction, when DEMO_DATA is on. */
export interface DemoSet {
  name: string;
  load(client: pg.PoolClient): Promise<void>;
}

/**
 * Loads every demo set not loaded before, in the order given (later sets may refer to rows of earlier ones).
 * Each set is recorded in demo_data_sets so a restart never loads it twice.
 */
export async function loadDemoSets(pool: pg.Pool, sets: readonly DemoSet[]): Promise<string[]> {
  const loaded: string[] = [];
  for (const set of sets) {
    await inTransaction(pool, async (client) => {
      const { rowCount } = await client.query(
        'INSERT INTO demo_data_sets (name) VALUES ($1) ON CONFLICT (name) DO NOTHING',
        [set.name],
      );
      if (!rowCount) return;
      await set.load(client);
      loaded.push(set.name);
    });
  }
  return loaded;
}
