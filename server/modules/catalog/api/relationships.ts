import type pg from 'pg';
import { CATALOG_DEPTH_MAX, type RelationshipsQuery, RelationshipsQuery as QuerySchema, type RelationshipsResponse } from '../../../contracts/catalog-api.js';
import { NotFoundError } from '../../../lib/errors.js';
import { badParam } from './filters.js';

/**
 * GET /api/catalog/:id/relationships: the item's graph as nodes and edges, walked by related_configs_recursive (the
 * same RPC the reference UI calls, 0051) and the links between the nodes it returns. `manual` edges were made by hand.
 */
export async function relationships(db: pg.Pool, id: string, input: RelationshipsQuery): Promise<RelationshipsResponse> {
  const r = QuerySchema.safeParse(input ?? {});
  if (!r.success) throw badParam(r.error.issues[0].path.join('.') || 'query', r.error.issues[0].message);
  const q = r.data;
  const depth = q.depth ?? 5;
  if (depth < 1 || depth > CATALOG_DEPTH_MAX) throw badParam('depth', `expected 1 to ${CATALOG_DEPTH_MAX}`);
  const exists = await db.query('SELECT 1 FROM config_items WHERE id = $1', [id]);
  if (!exists.rowCount) throw new NotFoundError('config item', id);
  const relation = q.relation ?? 'both';
  const { rows: nodes } = await db.query(
    `SELECT id, name, type, config_class, status, health, ready, tags, deleted_at, depth
     FROM related_configs_recursive($1, $2, $3, $4, $5, $5)`,
    [id, q.direction ?? 'outgoing', q.include_deleted_configs ?? false, depth, relation],
  );
  const ids = nodes.map((n) => n.id as string);
  const { rows: edges } = await db.query(
    `SELECT DISTINCT config_id, related_id, relation, coalesce(selector_id = 'manual', false) AS manual
     FROM config_relationships
     WHERE config_id = ANY($1::uuid[]) AND related_id = ANY($1::uuid[]) AND deleted_at IS NULL
       AND ($2 <> 'hard' OR relation = 'hard')
     ORDER BY config_id, related_id, relation`,
    [ids, relation],
  );
  return {
    id,
    nodes: nodes.map((n) => ({ ...n, deleted_at: n.deleted_at ? (n.deleted_at as Date).toISOString() : null })),
    edges,
  };
}
