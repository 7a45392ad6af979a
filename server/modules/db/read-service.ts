import type pg from 'pg';
import { ApiError } from '../../lib/errors.js';
import { requireFeature } from '../auth/features.js';
import { unknownRelation } from './errors.js';
import { JSON_TYPE, OBJECT_TYPE, type DbRequest, type DbResponse } from './http.js';
import type { NodeModifiers } from './parse/ast.js';
import { negotiate, parsePrefer, parseRange } from './parse/headers.js';
import { parseQuery } from './parse/query.js';
import type { SchemaCache } from './schema-cache.js';
import { BuildContext, plan, requireRead, type PlanNode } from './sql/plan.js';
import { readSql } from './sql/read.js';

const CSV_TYPE = 'text/csv; charset=utf-8';

/** db-max-rows: no response carries more rows than this, whatever limit or Range asks for. */
export const MAX_ROWS = 2000;

/** The window to return: `limit`/`offset` intersected with a `Range` header, capped at MAX_ROWS. */
export function pageOf(mods: NodeModifiers | undefined, rangeHeader: string | undefined): { limit: number; offset: number } {
  let offset = mods?.offset ?? 0;
  let end = mods?.limit !== undefined ? offset + mods.limit - 1 : Infinity;
  const range = parseRange(rangeHeader);
  if (range) {
    const rangeEnd = range.limit === null ? Infinity : range.offset + range.limit - 1;
    offset = Math.max(offset, range.offset);
    end = Math.min(end, rangeEnd);
  }
  return { offset, limit: Math.max(0, Math.min(end - offset + 1, MAX_ROWS)) };
}

interface ReadRow {
  body: string | null;
  n: string | number;
  total?: string | number | null;
}

/** Turns the statement's row into status, Content-Range and body, as PostgREST does. */
export function pageResponse(req: DbRequest, row: ReadRow, offset: number, withTotal: boolean): DbResponse {
  const n = Number(row.n);
  const total = withTotal && row.total !== undefined && row.total !== null ? Number(row.total) : null;
  if (total !== null && offset > total) {
    throw new ApiError(416, 'PGRST103', 'Requested range not satisfiable', `An offset of ${offset} was requested, but there are only ${total} rows.`);
  }
  const range = `${n ? `${offset}-${offset + n - 1}` : '*'}/${total ?? '*'}`;
  const media = negotiate(req.accept);
  if (media.singular) {
    if (n !== 1) {
      throw new ApiError(406, 'PGRST116', 'JSON object requested, multiple (or no) rows returned', `The result contains ${n} rows`);
    }
    return { status: 200, headers: { 'content-type': OBJECT_TYPE, 'content-range': range }, body: row.body?.slice(1, -1) ?? null };
  }
  const status = total !== null && n < total ? 206 : 200;
  const type = media.format === 'csv' ? CSV_TYPE : JSON_TYPE;
  return { status, headers: { 'content-type': type, 'content-range': range }, body: row.body };
}

/** The one statement a GET/HEAD on a relation runs, with its parameters and the window it returns. */
export function buildReadStatement(cache: SchemaCache, req: DbRequest) {
  const rel = cache.relations.get(req.target);
  if (!rel) throw unknownRelation(req.target);
  const ctx = new BuildContext(cache, req.can, req.actor);
  requireRead(ctx, rel);
  const query = parseQuery(req.query);
  const prefer = parsePrefer(req.prefer);
  const node: PlanNode = plan(ctx, rel, query);
  const page = pageOf(query.nodes.get(''), req.range);
  const { format, stripNulls } = negotiate(req.accept);
  const sql = readSql(ctx, node, { ...page, count: prefer.count, bodyless: req.method === 'HEAD', format, stripNulls });
  return { sql, params: ctx.params.values as unknown[], page, prefer };
}

/** GET/HEAD /<relation>: one statement builds the page, its row count and (with Prefer: count) the total. */
export async function readRelation(db: pg.Pool, cache: SchemaCache, req: DbRequest): Promise<DbResponse> {
  const feature = cache.relations.get(req.target)?.spec.feature;
  if (feature) await requireFeature(db, feature);
  const { sql, params, page, prefer } = buildReadStatement(cache, req);
  const { rows } = await db.query<ReadRow>(sql, params);
  const res = pageResponse(req, rows[0], page.offset, prefer.count);
  const applied = prefer.applied.filter((a) => a.startsWith('count='));
  if (applied.length) res.headers['preference-applied'] = applied.join(', ');
  return res;
}
