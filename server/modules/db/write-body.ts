import { ApiError } from '../../lib/errors.js';
import { badBody } from './errors.js';
import type { DbRequest } from './http.js';
import type { Relation } from './schema-cache.js';

export type Row = Record<string, unknown>;
export const isRow = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Rows of a POST body: one object or an array of objects with the same keys (unless `columns=` picks them). */
export function insertRows(body: unknown, columns: string[] | undefined): { rows: Row[]; columns: string[] } {
  const rows = Array.isArray(body) ? body : [body];
  if (!rows.every(isRow)) throw badBody('Body must be a JSON object or an array of objects');
  if (columns) return { rows, columns: [...new Set(columns)] };
  const keys = rows.length ? Object.keys(rows[0]) : [];
  const signature = [...keys].sort().join('\u0001');
  if (rows.some((r) => Object.keys(r).sort().join('\u0001') !== signature)) {
    throw badBody('All object keys must match', 'Every object of a bulk insert needs the same keys (or send columns=)');
  }
  return { rows, columns: keys };
}

const CREATED_BY = 'created_by';

function refuseOtherCreator(rel: Relation, req: DbRequest, value: unknown): void {
  if (value === undefined || value === null || value === req.actor || req.roles?.includes('admin')) return;
  throw new ApiError(403, '42501', `only an admin may name another person as created_by of '${rel.name}'`, null,
    'Leave created_by out: it is set to you.');
}

/**
 * created_by on insert, for every relation with that column (the reference's tables require it and its UI sends it):
 * left out or null, it is the acting person; another person is refused unless the caller is an admin. Answers the
 * columns to insert (created_by added when the body had none). Rows are changed in place.
 */
export function stampCreator(rel: Relation, req: DbRequest, rows: Row[], columns: string[]): string[] {
  const w = rel.spec.write;
  if (!rel.columns.has(CREATED_BY) || w?.readOnly?.includes(CREATED_BY) || w?.creatorByTrigger || !req.actor) return columns;
  const listed = columns.includes(CREATED_BY);
  for (const row of rows) {
    const given = listed ? row[CREATED_BY] : undefined;
    refuseOtherCreator(rel, req, given);
    if (given === undefined || given === null) row[CREATED_BY] = req.actor;
  }
  return listed ? columns : [...columns, CREATED_BY];
}

/** created_by in a PATCH body: another person than the caller only for an admin (the reference's UI resends it). */
export function checkCreatorPatch(rel: Relation, req: DbRequest, body: Row): void {
  if (rel.columns.has(CREATED_BY) && CREATED_BY in body && !rel.spec.write?.creatorByTrigger) refuseOtherCreator(rel, req, body[CREATED_BY]);
}
