import type pg from 'pg';
import type { ImpactComponent, ImpactResponse } from '../../contracts/topology-extra.js';
import { NotFoundError } from '../../lib/errors.js';
import { componentNow } from './history-queries.js';
import { dependentsOf, linkedTo } from './impact-queries.js';

/** The walk stops once this many components are impacted (the answer says `truncated`). */
export const IMPACT_LIMIT = 1_000;

/**
 * GET /api/topology/{id}/impact (semantics in the contract, server/contracts/topology-extra.ts): breadth first, one
 * statement per hop, each component once at its shortest distance, so a cycle ends where it would repeat.
 */
export async function componentImpact(db: pg.Pool, id: string, limit = IMPACT_LIMIT): Promise<ImpactResponse> {
  if (!(await componentNow(db, id))) throw new NotFoundError('component', id);
  const seen = new Set([id]);
  const found: ImpactComponent[] = [];
  let frontier = [id];
  let depth = 0;
  let truncated = false;
  while (frontier.length && !truncated) {
    const next: string[] = [];
    for (const d of await dependentsOf(db, frontier)) {
      if (seen.has(d.id)) continue;
      if (found.length >= limit) { truncated = true; break; }
      seen.add(d.id);
      next.push(d.id);
      found.push({ id: d.id, name: d.name, type: d.type, icon: d.icon, status: d.status, path: d.path, depth: depth + 1,
        via: { relation: d.relation, id: d.from_id } });
    }
    if (next.length) depth += 1;
    frontier = next;
  }
  const ids = found.map((c) => c.id);
  const links = await linkedTo(db, ids, [id, ...ids]);
  return { components: found, ...links, depth, truncated };
}
