import { celFunc, celMethod, CelScalar, isCelList, isCelMap, isCelUint, listType } from '@bufbuild/cel';
import { celContext, celToNative } from './cel-funcs.js';
import { runJq } from './cel-jq.js';

/**
 * CEL functions config-db's own ScrapeConfig fixtures call, beyond those in cel.ts and cel-funcs.ts:
 * - `jq(expr, value)` (gomplate funcs/coll_gen.go, coll/json.go): runs jq over the value (a string holding a JSON
 *   object is parsed first); one output is returned as itself, none or several as a list. Only part of jq is here
 *   (cel-jq.ts); the rest is refused with a message.
 * - `list.uniq()` (gomplate coll.Uniq): the distinct values in first-seen order (deep equality; 1 and 1.0 differ, as
 *   Go's reflect.DeepEqual tells int64 from float64).
 * - `catalog.traverse(id, type[, direction])` (duty query/config_traversal.go): the related config items of a type,
 *   direction `incoming` unless given; read from the evaluation's context (CelContext.traverse), and an error where
 *   the caller has no catalog at hand.
 * - `len(value)`: the size of a list, map or string. The reference declares no `len` (its CEL has `size`); config-db's
 *   access_logs.yaml calls it, so it is accepted here as `size`.
 */

const LIST = listType(CelScalar.DYN);

/** A key equal for deeply equal CEL values and different across types (int 1, uint 1, double 1, "1"). */
function identity(v: unknown): string {
  if (typeof v === 'bigint') return `i${v}`;
  if (isCelUint(v)) return `u${v.value}`;
  if (typeof v === 'number') return `d${v}`;
  if (isCelList(v)) return `[${[...v].map(identity).join(',')}]`;
  if (isCelMap(v)) return `{${[...v.entries()].map(([k, x]) => `${identity(k)}:${identity(x)}`).sort().join(',')}}`;
  return JSON.stringify(celToNative(v)) ?? 'null';
}

function jqInput(v: unknown): unknown {
  if (typeof v !== 'string') return celToNative(v);
  try {
    const parsed: unknown = JSON.parse(v);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : v;
  } catch {
    return v;
  }
}

function traverse(id: string, type: string, direction: string): never {
  const lookup = celContext().traverse;
  if (!lookup) throw new Error('catalog.traverse: the catalog is not available to this expression');
  return lookup(id, type, direction) as never;
}

export const CONFIG_DB_FUNCS = [
  celFunc('jq', [CelScalar.STRING, CelScalar.DYN], CelScalar.DYN, (expr, v) => {
    const out = runJq(expr, jqInput(v));
    return (out.length === 1 ? out[0] : out) as never;
  }),
  celMethod('uniq', LIST, [], LIST, function () {
    const seen = new Set<string>();
    return [...this].filter((x) => {
      const key = identity(x);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    }) as never;
  }),
  celFunc('catalog.traverse', [CelScalar.STRING, CelScalar.STRING], LIST, (id, type) => traverse(id, type, 'incoming')),
  celFunc('catalog.traverse', [CelScalar.STRING, CelScalar.STRING, CelScalar.STRING], LIST, traverse),
  celFunc('len', [CelScalar.DYN], CelScalar.INT, (v) => {
    if (typeof v === 'string') return BigInt([...v].length);
    if (isCelList(v) || isCelMap(v)) return BigInt(v.size);
    if (v instanceof Uint8Array) return BigInt(v.length);
    throw new Error('len: expects a list, map or string');
  }),
];
