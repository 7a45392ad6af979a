import type pg from 'pg';

type Q = Pick<pg.Pool, 'query'>;

export interface Dependent {
  from_id: string; relation: 'parent' | 'selector';
  id: string; name: string; type: string | null; icon: string | null; status: string; path: string | null;
}

/**
 * One step of the impact walk from the given components: their live parents, and the live components whose
 * selectors picked them (component_relationships: the picked one is component_id, the selector relationship_id).
 */
export async function dependentsOf(db: Q, ids: string[]): Promise<Dependent[]> {
  const { rows } = await db.query<Dependent>(
    `SELECT c.id AS from_id, 'parent' AS relation, p.id, p.name, p.type, p.icon, p.status, p.path
       FROM components c JOIN components p ON p.id = c.parent_id AND p.deleted_at IS NULL
       WHERE c.id = ANY ($1::uuid[])
     UNION ALL
     SELECT r.component_id, 'selector', s.id, s.name, s.type, s.icon, s.status, s.path
       FROM component_relationships r JOIN components s ON s.id = r.relationship_id AND s.deleted_at IS NULL
       WHERE r.component_id = ANY ($1::uuid[]) AND r.deleted_at IS NULL
     ORDER BY relation, name, id`,
    [ids]);
  return rows;
}

/** The live checks and config items linked to the components, and the teams owning any of `owners`. */
export async function linkedTo(db: Q, ids: string[], owners: string[]) {
  const [checks, configs, teams] = await Promise.all([
    db.query<{ id: string; name: string; type: string; status: string | null; component_id: string }>(
      `SELECT ch.id, ch.name, ch.type, ch.status, r.component_id FROM check_component_relationships r
         JOIN checks ch ON ch.id = r.check_id AND ch.deleted_at IS NULL
         WHERE r.component_id = ANY ($1::uuid[]) AND r.deleted_at IS NULL ORDER BY ch.name, ch.id, r.component_id`, [ids]),
    db.query<{ id: string; name: string | null; type: string; component_id: string }>(
      `SELECT ci.id, ci.name, ci.type, r.component_id FROM config_component_relationships r
         JOIN config_items ci ON ci.id = r.config_id AND ci.deleted_at IS NULL
         WHERE r.component_id = ANY ($1::uuid[]) AND r.deleted_at IS NULL ORDER BY ci.name, ci.id, r.component_id`, [ids]),
    db.query<{ id: string; name: string }>(
      `SELECT DISTINCT t.id, t.name FROM team_components tc JOIN teams t ON t.id = tc.team_id AND t.deleted_at IS NULL
         WHERE tc.component_id = ANY ($1::uuid[]) ORDER BY t.name, t.id`, [owners]),
  ]);
  return { checks: checks.rows, configs: configs.rows, teams: teams.rows };
}
