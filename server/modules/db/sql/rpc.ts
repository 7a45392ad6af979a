import type { FunctionArg, FunctionInfo } from '../schema-cache.js';
import { ident } from './params.js';
import type { BuildContext } from './plan.js';

/**
 * The call of a function with named arguments. Arguments travel as one JSON object expanded by json_to_record with
 * the catalog's argument types, so arrays, JSON and scalars convert exactly as PostgreSQL's input functions do.
 * Returns the FROM prefix that defines `_a` (empty when there are no arguments) and the call expression.
 */
export function callSql(ctx: BuildContext, fn: FunctionInfo, args: FunctionArg[], values: Record<string, unknown>): { from: string; call: string } {
  const named = args.map((a) => `${ident(a.name)} := _a.${ident(a.name)}`).join(', ');
  const call = `${ident(fn.name)}(${named})`;
  if (!args.length) return { from: '', call };
  const record = args.map((a) => `${ident(a.name)} ${a.type}`).join(', ');
  return { from: `json_to_record(${ctx.params.add(JSON.stringify(values))}::json) AS _a(${record})`, call };
}

/** A scalar (or non-row) function: its result as JSON text. */
export function scalarCallSql(ctx: BuildContext, fn: FunctionInfo, args: FunctionArg[], values: Record<string, unknown>): string {
  const { from, call } = callSql(ctx, fn, args, values);
  const value = fn.returnsSet ? `coalesce(json_agg(_r), '[]')` : `to_json(${call})`;
  if (fn.returnsSet) return `SELECT ${value}::text AS body, count(*) AS n FROM ${from ? `${from} CROSS JOIN LATERAL ` : ''}${call} _r`;
  return `SELECT ${value}::text AS body, 1 AS n${from ? ` FROM ${from}` : ''}`;
}

/** FROM item for a row-returning function, aliased like a relation so the read builder can use it. */
export function rowsFromSql(ctx: BuildContext, fn: FunctionInfo, args: FunctionArg[], values: Record<string, unknown>, alias: string): string {
  const { from, call } = callSql(ctx, fn, args, values);
  return from ? `${from} CROSS JOIN LATERAL ${call} ${alias}` : `${call} ${alias}`;
}
