import type pg from 'pg';
import type { BuiltComponent, SavedComponent } from '../../server/modules/topology/runner/types.js';
import { TOPO, seedTopology } from './topology-fixtures.js';

/**
 * The shared topology fixture, committed with its topology already @never: the app's scheduler runs a topology as soon
 * as it sees it, and a run of this spec-less one would rebuild its components and own their links, racing the steps
 * these tests call by hand. One transaction, so the scheduler never sees it schedulable.
 */
export async function seedNeverRun(db: pg.Pool, personId: string): Promise<void> {
  const c = await db.connect();
  try {
    await c.query('BEGIN');
    await seedTopology(c as unknown as pg.Pool, personId);
    await c.query(`UPDATE topologies SET schedule = '@never', spec = '{"schedule":"@never"}' WHERE id = $1`, [TOPO.topology]);
    await c.query('COMMIT');
  } catch (err) {
    await c.query('ROLLBACK');
    throw err;
  } finally {
    c.release();
  }
}

/** A saved component as the run hands it to the link steps: its row id and what was built for it. */
export function savedComponent(id: string, name: string, built: Partial<BuiltComponent> = {}, parentId: string | null = null): SavedComponent {
  return { id, parentId, built: { name, externalId: name, children: [], specPath: `spec.components.${name}`, ...built } };
}

/** The ids a component links to (live links only), sorted. */
export async function liveLinks(db: pg.Pool, table: 'component_relationships' | 'check_component_relationships' | 'config_component_relationships', owner: string): Promise<string[]> {
  const [own, target] = table === 'component_relationships' ? ['relationship_id', 'component_id']
    : table === 'check_component_relationships' ? ['component_id', 'check_id'] : ['component_id', 'config_id'];
  const { rows } = await db.query<{ t: string }>(
    `SELECT ${target}::text AS t FROM ${table} WHERE ${own} = $1 AND deleted_at IS NULL ORDER BY 1`, [owner],
  );
  return rows.map((r) => r.t);
}
