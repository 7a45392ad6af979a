import type pg from 'pg';
import { ApiError } from '../../lib/errors.js';
import { requireFeature } from '../auth/features.js';
import { idsFromBody, publishChange } from '../../lib/events.js';
import { setActor } from './actor.js';
import { badBody, forbidden, unknownRelation } from './errors.js';
import { JSON_TYPE, OBJECT_TYPE, type DbRequest, type DbResponse } from './http.js';
import { checkMaxAffected, parsePrefer, wantsSingular, writeContentRange, type Preferences } from './parse/headers.js';
import { parseQuery } from './parse/query.js';
import type { WriteOp } from './registry.js';
import type { Relation, SchemaCache } from './schema-cache.js';
import { BuildContext, plan, requireRead } from './sql/plan.js';
import { deleteSql, insertSql, updateSql, type OwnerCheck, type WriteOutput } from './sql/write.js';
import { checkCreatorPatch, insertRows, isRow, stampCreator, type Row } from './write-body.js';
import { writeThrough } from './write-through.js';
import type { RelationWriters } from './writers.js';

/** A body column must be visible and writable for the operation; hidden columns do not exist. */
function checkColumn(rel: Relation, name: string, op: 'insert' | 'update'): void {
  if (!rel.columns.has(name)) {
    throw new ApiError(400, 'PGRST204', `Could not find the '${name.slice(0, 100)}' column of '${rel.name}' in the schema cache`);
  }
  const w = rel.spec.write;
  if (w?.readOnly?.includes(name) || (op === 'update' && w?.immutable?.includes(name))) {
    throw new ApiError(400, 'PGRST204', `Column '${name}' of '${rel.name}' cannot be written${op === 'update' ? ' by an update' : ''}`, null,
      'Leave server-maintained columns out of the body.');
  }
}

/**
 * Runs a write; in an explicit transaction when the outcome must be checked first or rolled back anyway, or when
 * the triggers must know who acts (the caller's person id as the transaction's actor).
 */
async function run(db: pg.Pool, sql: string, params: unknown[], prefer: Preferences, actor?: string, check?: (row: Row) => void): Promise<Row> {
  if (!check && !prefer.rollback && !actor) return (await db.query(sql, params)).rows[0];
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    if (actor) await setActor(client, actor);
    const row = (await client.query(sql, params)).rows[0];
    check?.(row);
    await client.query(prefer.rollback ? 'ROLLBACK' : 'COMMIT');
    return row;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/**
 * POST (insert/upsert), PATCH and DELETE on a registered relation. Each is one statement (atomic on its own); the
 * body travels as one JSON parameter. PATCH and DELETE refuse to run without a filter. A relation whose registry entry
 * says `write.writer` is written by its module instead (./write-through.ts), after the same permission checks.
 */
export async function writeRelation(db: pg.Pool, cache: SchemaCache, req: DbRequest, writers?: RelationWriters): Promise<DbResponse> {
  const rel = cache.relations.get(req.target);
  if (!rel) throw unknownRelation(req.target);
  const prefer = parsePrefer(req.prefer);
  const op: WriteOp = req.method === 'POST' ? (prefer.resolution ? 'upsert' : 'insert') : req.method === 'PATCH' ? 'update' : 'delete';
  // Permission first: a caller without write access learns nothing about the relation's write policy. Rows with an
  // owner are every signed-in person's to write: whose rows they may change is checked with the statement below.
  const owned = rel.spec.write?.owner !== undefined && req.actor !== undefined;
  if (!owned && !req.can(rel.spec.resource, 'write')) throw forbidden(rel.name, rel.spec.resource, 'write');
  if (!rel.spec.write?.ops.includes(op)) {
    throw new ApiError(405, 'PGRST117', `${op} is not allowed on '${rel.name}'`, null,
      rel.spec.write ? `Allowed: ${rel.spec.write.ops.join(', ')}` : `'${rel.name}' is read-only`);
  }
  // A settings table whose page is switched off refuses writes (properties carry no feature, so flags can be reset).
  if (rel.spec.write.feature) await requireFeature(db, rel.spec.write.feature);
  if (rel.spec.feature) await requireFeature(db, rel.spec.feature);
  const ctx = new BuildContext(cache, req.can);
  const query = parseQuery(req.query);
  const top = query.nodes.get('');
  const representation = prefer.return === 'representation';
  if (representation) requireRead(ctx, rel);
  if (top?.limit !== undefined || top?.offset !== undefined) {
    throw new ApiError(400, 'PGRST109', 'limit/offset are not allowed on writes', null, 'Filter the rows to change instead.');
  }
  const node = plan(ctx, rel, query);
  if (rel.spec.write.writer) {
    if (!writers) throw new ApiError(503, 'PGRST001', `writes on '${rel.name}' are not available in this process`);
    return writeThrough(db, cache, rel, req, query, prefer, writers.get(rel.name));
  }
  const singular = wantsSingular(req.accept);
  // Admins change anyone's rows; everyone else is held to their own (counted in the write's statement, see `others`).
  const owner: OwnerCheck | undefined = rel.spec.write.owner && !req.roles?.includes('admin')
    ? { column: rel.spec.write.owner, actor: req.actor ?? '' } : undefined;
  const out: WriteOutput = representation || singular ? { kind: 'rows', node } : { kind: 'none' };
  let sql: string;
  let headersOnly: ReturnType<typeof plan> | undefined;

  if (op === 'insert' || op === 'upsert') {
    if (req.body === undefined || req.body === null) throw badBody('Empty or invalid json');
    const parsed = insertRows(req.body, query.columns);
    const rows = parsed.rows;
    const columns = stampCreator(rel, req, rows, parsed.columns);
    for (const c of columns) checkColumn(rel, c, 'insert');
    let conflict;
    if (op === 'upsert') {
      const target = query.onConflict ?? rel.pk;
      const key = [...target].sort().join(',');
      if (!target.length || !rel.uniques.some((u) => [...u].sort().join(',') === key)) {
        throw new ApiError(400, '42P10', 'there is no unique or exclusion constraint matching the ON CONFLICT specification', null,
          `on_conflict must name the primary key or a unique constraint of '${rel.name}'`);
      }
      const set = columns.filter((c) => !target.includes(c) && !rel.spec.write?.immutable?.includes(c));
      conflict = { columns: target, mode: prefer.resolution === 'ignore-duplicates' ? 'ignore' as const : 'merge' as const, set };
    }
    if (!rows.length) return respond(req, prefer, op, { n: 0, body: '[]' }, representation);
    if (!columns.length && rows.length > 1) throw badBody('Bulk inserts need at least one column');
    const json = JSON.stringify(rows);
    if (json.includes('\\u0000')) throw badBody('NUL characters are not allowed in values');
    if (prefer.return === 'headers-only' && rel.pk.length) {
      headersOnly = plan(ctx, rel, { select: rel.pk.map((name) => ({ type: 'field', field: { name, json: [] } })), nodes: new Map(), args: new Map() });
      headersOnly.alias = node.alias;
    }
    const present = prefer.missingDefault ? rows.map((r) => new Set(Object.keys(r))) : undefined;
    sql = insertSql(ctx, node, { columns, json, conflict, present }, headersOnly ? { kind: 'rows', node: headersOnly } : out);
  } else {
    if (!top?.filters.length) {
      throw new ApiError(400, '21000', `${op === 'update' ? 'UPDATE' : 'DELETE'} requires a WHERE clause`, null,
        `Add a filter such as ?id=eq.<id>; ${req.method} without filters would change every row of '${rel.name}'.`);
    }
    if (op === 'update') {
      if (!isRow(req.body)) throw badBody('Body must be a JSON object');
      const columns = Object.keys(req.body);
      if (!columns.length) throw badBody('Nothing to update: the body has no columns');
      checkCreatorPatch(rel, req, req.body);
      for (const c of columns) checkColumn(rel, c, 'update');
      const json = JSON.stringify(req.body);
      if (json.includes('\\u0000')) throw badBody('NUL characters are not allowed in values');
      sql = updateSql(ctx, node, columns, json, out, owner);
    } else {
      sql = deleteSql(ctx, node, out, owner);
    }
  }
  // Prefer: handling=strict, max-affected=n bounds updates and deletes; the transaction is rolled back past it.
  const bounded = (op === 'update' || op === 'delete') && prefer.maxAffected !== null;
  const check = singular || bounded || owner ? (row: Row) => {
    if (Number(row.others ?? 0) > 0) throw notYours(rel.name, Number(row.others));
    if (singular && Number(row.n) !== 1) throw new ApiError(406, 'PGRST116', 'JSON object requested, multiple (or no) rows returned', `The result contains ${row.n} rows`);
    if (bounded) checkMaxAffected(prefer, Number(row.n));
  } : undefined;
  const row = await run(db, sql, ctx.params.values, prefer, req.actor, check);
  if (!prefer.rollback && Number(row.n) > 0) await publishChange(db, { relation: rel.name, ids: idsFromBody(row.body, rel.pk) });
  const res = respond(req, prefer, op, row, representation || singular);
  if (headersOnly && typeof row.body === 'string') {
    const first = (JSON.parse(row.body) as Row[])[0];
    if (first) res.headers.location = `/${rel.name}?${rel.pk.map((c) => `${c}=eq.${encodeURIComponent(String(first[c]))}`).join('&')}`;
  }
  return res;
}

function notYours(relation: string, n: number): ApiError {
  return new ApiError(403, '42501', `permission denied for ${relation}`, `${n} of the rows to change belong to someone else`,
    'Only the person who created a row (or an admin) may change or delete it.');
}

function respond(req: DbRequest, prefer: Preferences, op: WriteOp, row: Row, withBody: boolean): DbResponse {
  const n = Number(row.n);
  const headers: Record<string, string> = {
    'content-range': writeContentRange(n, op === 'insert' || op === 'upsert', prefer.count),
  };
  if (prefer.applied.length) headers['preference-applied'] = prefer.applied.join(', ');
  let status = op === 'insert' || op === 'upsert' ? 201 : withBody ? 200 : 204;
  if (op === 'upsert' && prefer.resolution === 'merge-duplicates' && n > 0 && Number(row.inserted ?? 0) === 0) status = 200;
  if (!withBody) return { status, headers, body: null };
  const singular = wantsSingular(req.accept);
  headers['content-type'] = singular ? OBJECT_TYPE : JSON_TYPE;
  const body = typeof row.body === 'string' ? row.body : '[]';
  return { status, headers, body: singular ? body.slice(1, -1) : body };
}
