import type pg from 'pg';
import { ApiError } from '../../lib/errors.js';
import { isPgError } from '../../lib/pg-errors.js';
import type { FunctionArg } from './schema-cache.js';
import { ident } from './sql/params.js';

const clip = (s: string) => (s.length > 100 ? `${s.slice(0, 100)}…` : s);

/**
 * After a call failed with a data exception (SQLSTATE class 22: bad input syntax, out of range, bad datetime...),
 * finds the argument PostgreSQL cannot read as its declared type and answers a 400 naming it; PostgreSQL's own
 * message goes in details. Each argument is read alone with the same json_to_record conversion the call uses
 * (./sql/rpc.ts), so the verdict is PostgreSQL's, not a guess, and a call that succeeds costs nothing extra.
 * When every argument reads, the failure came from a filter or the function body and the original error stands.
 */
export async function namingBadArgument(db: pg.Pool, args: FunctionArg[], values: Record<string, unknown>, err: unknown): Promise<unknown> {
  if (!isPgError(err) || !err.code.startsWith('22')) return err;
  for (const a of args) {
    try {
      await db.query(`SELECT 1 FROM json_to_record($1::json) AS _a(${ident(a.name)} ${a.type})`, [JSON.stringify({ [a.name]: values[a.name] })]);
    } catch (argErr) {
      if (!isPgError(argErr) || !argErr.code.startsWith('22')) return err;
      const v = values[a.name];
      return new ApiError(400, argErr.code, `invalid ${a.name}: ${clip(typeof v === 'string' ? v : JSON.stringify(v))} is not a valid ${a.type}`, argErr.message);
    }
  }
  return err;
}
