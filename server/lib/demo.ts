import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { inTransaction } from './tx.js';

/** A named set of demo rows. `load` runs once per database, in a transaction, when DEMO_DATA is on. */
export interface DemoSet {
  name: string;
  load(client: pg.PoolClient): Promise<void>;
  /** Runs at every start with DEMO_DATA on, once the app listens (e.g. a demo agent's pinger); stops on close itself. */
  start?(app: FastifyInstance): Promise<void>;
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

/** Starts what the demo sets run while the console is up (after listen); a failure is logged, never fatal. */
export async function startDemoSets(app: FastifyInstance, sets: readonly DemoSet[]): Promise<void> {
  for (const set of sets) {
    if (set.start) await set.start(app).catch((err) => app.log.warn({ err, set: set.name }, 'demo set start failed'));
  }
}
