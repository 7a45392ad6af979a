import type pg from 'pg';
import { ApiError } from '../../lib/errors.js';
import { badBody } from './errors.js';
import { JSON_TYPE, OBJECT_TYPE, type DbRequest, type DbResponse } from './http.js';
import { checkMaxAffected, wantsSingular, writeContentRange, type Preferences } from './parse/headers.js';
import type { ParsedQuery } from './parse/ast.js';
import { readRelation } from './read-service.js';
import type { Relation, SchemaCache } from './schema-cache.js';
import { checkCreatorPatch, insertRows, isRow, stampCreator, type Row } from './write-body.js';
import type { Caller, RelationWriter } from './writers.js';

/** Query parameters that shape a response, not which rows a write touches. */
const NOT_FILTERS = new Set(['select', 'columns', 'on_conflict', 'order']);

function paramsOf(query: string): Array<{ key: string; raw: string }> {
  return query.split('&').filter(Boolean).map((raw) => {
    const i = raw.indexOf('=');
    const name = i < 0 ? raw : raw.slice(0, i);
    let key = name;
    try {
      key = decodeURIComponent(name.replace(/\+/g, ' '));
    } catch {
      // the parser has already refused a malformed query; keep the raw name
    }
    return { key, raw };
  });
}

function unknownColumn(rel: Relation, name: string): ApiError {
  return new ApiError(400, 'PGRST204', `Could not find the '${name.slice(0, 100)}' column of '${rel.name}' in the schema cache`);
}

function refuseColumns(rel: Relation, columns: readonly string[], allowed: readonly string[], op: 'insert' | 'update',
  extra: readonly string[] = []): void {
  for (const c of columns) {
    if (extra.includes(c)) continue;
    if (!rel.columns.has(c)) throw unknownColumn(rel, c);
    if (!allowed.includes(c)) {
      throw new ApiError(400, 'PGRST204', `Column '${c}' of '${rel.name}' cannot be written${op === 'update' ? ' by an update' : ''}`, null,
        `Writable: ${allowed.join(', ')}`);
    }
  }
}

const notOne = (n: number) => new ApiError(406, 'PGRST116', 'JSON object requested, multiple (or no) rows returned', `The result contains ${n} rows`);

/**
 * POST, PATCH and DELETE on a relation written by its module (registry `write.writer`): the body is parsed as
 * PostgREST parses it, each row goes to the writer (create / update / remove by id), and the answer has PostgREST's
 * status, Content-Range and body, the body read back through the read path with the request's `select`. The caller's
 * write permission, the operation and `select` have been checked by writeRelation before this runs.
 *
 * Unlike SQL writes, a bulk write is not one transaction: each row is its module's own unit of work (checks,
 * scheduler, the cluster). Every row of a bulk POST is checked before any is created, but a row refused later (a
 * name already taken) leaves the rows before it written; `Prefer: tx=rollback` is refused for the same reason.
 */
export async function writeThrough(db: pg.Pool, cache: SchemaCache, rel: Relation, req: DbRequest, query: ParsedQuery,
  prefer: Preferences, writer: RelationWriter): Promise<DbResponse> {
  if (prefer.rollback) {
    throw new ApiError(400, 'PGRST122', `Prefer: tx=rollback is not available on '${rel.name}'`, null,
      `Writes on '${rel.name}' reach beyond the database (its module's side effects), so they cannot be rolled back.`);
  }
  const caller: Caller = { id: req.actor, roles: req.roles ?? [] };
  const singular = wantsSingular(req.accept);
  const params = paramsOf(req.query);

  /** Rows by id through the read path, with the request's select (and the caller's read rights). */
  const readBack = async (ids: string[]): Promise<string> => {
    const selects = params.filter((p) => p.key === 'select').map((p) => p.raw);
    const q = [...selects, `id=in.(${ids.join(',')})`].join('&');
    const res = await readRelation(db, cache, { ...req, method: 'GET', query: q, prefer: undefined, range: undefined, accept: 'application/json' });
    return res.body ?? '[]';
  };

  let status: number;
  let ids: string[];
  if (req.method === 'POST') {
    if (req.body === undefined || req.body === null) throw badBody('Empty or invalid json');
    const parsed = insertRows(req.body, query.columns);
    const columns = stampCreator(rel, req, parsed.rows, parsed.columns);
    refuseColumns(rel, columns, writer.insertColumns, 'insert');
    if (singular && parsed.rows.length !== 1) throw notOne(parsed.rows.length);
    const rows = parsed.rows.map((row) => Object.fromEntries(columns.filter((c) => c in row).map((c) => [c, row[c]])));
    for (const row of rows) writer.check?.(row, caller);
    ids = [];
    for (const row of rows) ids.push(await writer.create(row, caller));
    status = 201;
  } else {
    const filters = params.filter((p) => !NOT_FILTERS.has(p.key));
    if (!query.nodes.get('')?.filters.length) {
      throw new ApiError(400, '21000', `${req.method === 'PATCH' ? 'UPDATE' : 'DELETE'} requires a WHERE clause`, null,
        `Add a filter such as ?id=eq.<id>; ${req.method} without filters would change every row of '${rel.name}'.`);
    }
    let patch: Row | undefined;
    let remove = req.method === 'DELETE';
    if (req.method === 'PATCH') {
      if (!isRow(req.body)) throw badBody('Body must be a JSON object');
      if (!Object.keys(req.body).length) throw badBody('Nothing to update: the body has no columns');
      checkCreatorPatch(rel, req, req.body);
      const { deleted_at: deletedAt, ...rest } = req.body;
      // an edit form that sends its whole row back carries `deleted_at: null` (the reference UI's silence editor): that
      // changes nothing (writers only touch live rows, so a deleted one is never restored by it); a value soft-deletes
      if ('deleted_at' in req.body && deletedAt !== null) remove = true;
      refuseColumns(rel, Object.keys(rest), writer.updateColumns, 'update', writer.preconditions);
      patch = Object.keys(rest).length ? rest : undefined;
    }
    const found = await readRelation(db, cache, {
      ...req, method: 'GET', query: ['select=id', ...filters.map((p) => p.raw)].join('&'), prefer: undefined, range: undefined,
      accept: 'application/json',
    });
    ids = (JSON.parse(found.body ?? '[]') as Row[]).map((r) => String(r.id));
    if (singular && ids.length !== 1) throw notOne(ids.length);
    // Prefer: handling=strict, max-affected=n: judged on the matching rows before any is written
    if (prefer.maxAffected !== null) checkMaxAffected(prefer, ids.length);
    for (const id of ids) {
      if (patch) await writer.update(id, patch, caller);
      if (remove) await writer.remove(id, caller);
    }
    status = 200;
  }

  const headers: Record<string, string> = {
    'content-range': writeContentRange(ids.length, status === 201, prefer.count),
  };
  const applied = prefer.applied.filter((a) => !a.startsWith('missing=') && (status === 200 || !/^(handling|max-affected)=/.test(a)));
  if (applied.length) headers['preference-applied'] = applied.join(', ');
  if (prefer.return === 'headers-only' && status === 201 && ids.length) headers.location = `/${rel.name}?id=eq.${encodeURIComponent(ids[0])}`;
  if (prefer.return !== 'representation' && !singular) return { status: status === 201 ? 201 : 204, headers, body: null };
  const body = ids.length ? await readBack(ids) : '[]';
  headers['content-type'] = singular ? OBJECT_TYPE : JSON_TYPE;
  return { status, headers, body: singular ? body.slice(1, -1) : body };
}
