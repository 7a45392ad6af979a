import type pg from 'pg';
import type { BuiltComponent, SavedComponent } from '../../server/modules/topology/runner/types.js';

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
