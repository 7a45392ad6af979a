import type pg from 'pg';
import { ApiError } from '../../lib/errors.js';
import { setActor } from './actor.js';
import { badBody, forbidden } from './errors.js';
import { JSON_TYPE, type DbRequest, type DbResponse } from './http.js';
import { checkMaxAffected, negotiate, parsePrefer } from './parse/headers.js';
import { parseQuery } from './parse/query.js';
import { namingBadArgument } from './rpc-args.js';
import { pageOf, pageResponse } from './read-service.js';
import type { FunctionInfo, SchemaCache } from './schema-cache.js';
import { BuildContext, plan, requireRead } from './sql/plan.js';
import { readSql } from './sql/read.js';
import { rowsFromSql, scalarCallSql } from './sql/rpc.js';

/**
 * One statement; a volatile function runs in a transaction that names the caller as the actor (./actor.ts), and
 * `check` may refuse the result before it commits.
 */
async function runAs(db: pg.Pool, actor: string | undefined, sql: string, params: unknown[], check?: (n: number) => void): Promise<pg.QueryResult> {
  if (!actor) {
    const result = await db.query(sql, params);
    check?.(Number(result.rows[0].n));
    return result;
  }
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    await setActor(client, actor);
    const result = await client.query(sql, params);
    check?.(Number(result.rows[0].n));
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

function notFound(name: string, given: string[]): ApiError {
  return new ApiError(404, 'PGRST202', `Could not find the function public.${name.slice(0, 100)}(${given.join(', ').slice(0, 200)}) in the schema cache`,
    null, 'Check the function name and its argument names.');
}

/**
 * GET|HEAD|POST /rpc/<fn> over the registered functions. GET takes arguments from the query (and only for
 * STABLE/IMMUTABLE functions), POST from a JSON object. Row-returning functions accept select, filters, order,
 * limit and embeds like a relation.
 */
export async function callFunction(db: pg.Pool, cache: SchemaCache, req: DbRequest): Promise<DbResponse> {
  const fn: FunctionInfo | undefined = cache.functions.get(req.target);
  if (!fn) throw notFound(req.target, []);
  const isGet = req.method === 'GET' || req.method === 'HEAD';
  if (isGet && fn.volatile) {
    throw new ApiError(405, 'PGRST101', `Function '${fn.name}' changes data and can only be called with POST`);
  }
  if (!req.can(fn.spec.resource, fn.spec.action)) throw forbidden(fn.name, fn.spec.resource, fn.spec.action);

  const query = parseQuery(req.query, isGet ? new Set(fn.args.map((a) => a.name)) : undefined);
  let values: Record<string, unknown>;
  if (isGet) values = Object.fromEntries(query.args);
  else if (req.body === undefined || req.body === null) values = {};
  else if (typeof req.body === 'object' && !Array.isArray(req.body)) values = req.body as Record<string, unknown>;
  else throw badBody('Function arguments must be a JSON object of named arguments');

  const names = Object.keys(values);
  const known = new Set(fn.args.map((a) => a.name));
  if (names.some((n) => !known.has(n)) || fn.args.some((a) => !a.hasDefault && !(a.name in values))) throw notFound(fn.name, names);
  if (JSON.stringify(values).includes('\\u0000')) throw badBody('NUL characters are not allowed in values');
  const args = fn.args.filter((a) => a.name in values);
  const ctx = new BuildContext(cache, req.can);
  const prefer = parsePrefer(req.prefer);
  // Prefer: handling=strict, max-affected=n counts the rows a function returns, so it needs a set-returning one.
  if (prefer.maxAffected !== null && !fn.returnsSet) {
    throw new ApiError(400, 'PGRST128', 'Function must return SETOF or TABLE when max-affected preference is used with handling=strict');
  }
  const check = prefer.maxAffected === null ? undefined : (n: number) => checkMaxAffected(prefer, n);

  if (!fn.rows) {
    const { rows } = await runAs(db, fn.volatile ? req.actor : undefined, scalarCallSql(ctx, fn, args, values), ctx.params.values, check)
      .catch(async (err) => { throw await namingBadArgument(db, args, values, err); });
    return { status: 200, headers: { 'content-type': JSON_TYPE }, body: req.method === 'HEAD' ? null : rows[0].body };
  }
  if (cache.relations.get(fn.rows.name) === fn.rows) requireRead(ctx, fn.rows);
  const node = plan(ctx, fn.rows, query);
  const from = rowsFromSql(ctx, fn, args, values, node.alias);
  const page = pageOf(query.nodes.get(''), req.range);
  const { format, stripNulls } = negotiate(req.accept);
  const sql = readSql(ctx, node, { ...page, from, count: prefer.count, bodyless: req.method === 'HEAD', format, stripNulls });
  const { rows } = await runAs(db, fn.volatile ? req.actor : undefined, sql, ctx.params.values, check)
    .catch(async (err) => { throw await namingBadArgument(db, args, values, err); });
  if (fn.returnsSet) return pageResponse(req, rows[0], page.offset, prefer.count);
  // A function returning one row answers with that object (or null), as PostgREST does.
  const body = Number(rows[0].n) ? (rows[0].body as string).slice(1, -1) : 'null';
  return { status: 200, headers: { 'content-type': JSON_TYPE }, body: req.method === 'HEAD' ? null : body };
}
