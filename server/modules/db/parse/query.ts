import { parseError, tooLarge } from '../errors.js';
import type { Filter, NodeModifiers, ParsedQuery } from './ast.js';
import { parseFilterKey, parseLogicTree, parseOperation } from './filter.js';
import { parseCount, parseOrder } from './order.js';
import { searchFilter } from './search-filter.js';
import { Scanner } from './scanner.js';
import { MAX_SELECT_ITEMS, parseSelect } from './select.js';

/** Most query parameters accepted in one request. */
export const MAX_PARAMS = 200;

// `select` may repeat: the reference UI's catalog list sends `select=<columns>&select=agent:agents(id,name)` (its
// PostgREST proxy merges them), so the lists are joined in order.
// `order` may repeat too: the reference agents list sends its default and then the user's sort
// (`order=name.asc&order=created_at.desc`), and the later wins.
const SINGLE = new Set(['limit', 'offset', 'on_conflict', 'columns']);

/** Most names in `columns` / `on_conflict`. */
const MAX_NAMES = 500;

/** `columns` and `on_conflict`: names as in `select`, so postgrest-js's quoted `"name","spec"` parses. */
function nameList(src: string, what: string): string[] {
  return new Scanner(src, what).names(MAX_NAMES);
}

/**
 * Parses a raw query string (everything after `?`) into the request AST. Keys are decoded with URLSearchParams
 * (`+` is a space, as PostgREST does). Duplicate filters are ANDed; duplicate reserved keys are an error.
 * `argNames` diverts RPC arguments of GET /rpc/<fn> away from the filters.
 */
export function parseQuery(raw: string, argNames: ReadonlySet<string> = new Set()): ParsedQuery {
  const q: ParsedQuery = { select: [{ type: 'star' }], nodes: new Map(), args: new Map() };
  const node = (embed: string[]): NodeModifiers => {
    const key = embed.join('.');
    let n = q.nodes.get(key);
    if (!n) q.nodes.set(key, (n = { filters: [] }));
    return n;
  };
  const seen = new Set<string>();
  let count = 0;
  for (const [key, value] of new URLSearchParams(raw)) {
    if (++count > MAX_PARAMS) throw tooLarge(`at most ${MAX_PARAMS} query parameters are accepted`);
    if (key.includes('\0') || value.includes('\0')) throw parseError('query string', key, 'NUL bytes are not allowed');
    if (key === '') throw parseError('query string', value, 'a parameter has an empty name');
    if (SINGLE.has(key)) {
      if (seen.has(key)) throw parseError(`${key} parameter`, value, `"${key}" was given more than once`);
      seen.add(key);
    }
    if (argNames.has(key)) {
      q.args.set(key, value);
      continue;
    }
    switch (key) {
      case 'select':
        q.select = seen.has('select') ? [...q.select, ...parseSelect(value)] : parseSelect(value);
        if (q.select.length > MAX_SELECT_ITEMS) throw tooLarge(`select has more than ${MAX_SELECT_ITEMS} items`);
        seen.add('select');
        continue;
      case 'order': node([]).order = parseOrder(value); continue;
      case 'limit': node([]).limit = parseCount(value, 'limit parameter'); continue;
      case 'offset': node([]).offset = parseCount(value, 'offset parameter'); continue;
      case 'on_conflict': q.onConflict = nameList(value, 'on_conflict parameter'); continue;
      case 'columns': q.columns = nameList(value, 'columns parameter'); continue;
    }
    const conv = /^([\p{L}\p{N}_$]+)\.filter$/u.exec(key);
    if (conv) {
      node([]).filters.push(...searchFilter(conv[1], value));
      continue;
    }
    const k = parseFilterKey(key);
    const n = node(k.embed);
    const what = `filter ${key}`;
    switch (k.kind) {
      case 'logic': n.filters.push(parseLogicTree(k.op, k.negate, value, what)); break;
      case 'order': n.order = parseOrder(value, `${key} parameter`); break;
      case 'limit': n.limit = parseCount(value, `${key} parameter`); break;
      case 'offset': n.offset = parseCount(value, `${key} parameter`); break;
      case 'field': {
        const f: Filter = { type: 'cond', embed: [], field: k.field, ...parseOperation(value, what) };
        n.filters.push(f);
      }
    }
  }
  return q;
}
