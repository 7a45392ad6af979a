import { CHANGE_SEVERITIES } from '../../../contracts/catalog-api.js';
import { BadRequestError } from '../../../lib/errors.js';

/**
 * The catalog API's filter grammar (as the reference's catalog search takes it) turned into parameterised SQL
 * conditions. Column expressions come from the callers' constants, values always go through `Params`.
 */

/** Collects bind values; `add` answers the placeholder (`$3`). */
export class Params {
  readonly values: unknown[] = [];
  add(v: unknown): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

/** A 400 that names the parameter (the field in `details`, as parseBody does). */
export function badParam(param: string, why: string): BadRequestError {
  return new BadRequestError(`invalid ${param}: ${why}`, { [param]: why });
}

/** `*` globs to LIKE, with LIKE's own wildcards escaped. */
export const likePattern = (glob: string) => glob.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%');

const MAX_ITEMS = 200;

/**
 * `a,b,!c,web*` → `(col = ANY(a,b) OR col LIKE 'web%') AND NOT (col = ANY(c))`. Excluding keeps rows whose value is
 * null (an item without a status is not "Terminated").
 */
export function listCondition(p: Params, col: string, expr: string, param: string): string | null {
  const items = expr.split(',').map((s) => s.trim()).filter(Boolean);
  if (items.length > MAX_ITEMS) throw badParam(param, `at most ${MAX_ITEMS} values`);
  const inc: string[] = [], exc: string[] = [], incLike: string[] = [], excLike: string[] = [];
  for (const item of items) {
    const neg = item.startsWith('!');
    const v = neg ? item.slice(1).trim() : item;
    if (!v) continue;
    if (v.includes('*')) (neg ? excLike : incLike).push(v);
    else (neg ? exc : inc).push(v);
  }
  const parts: string[] = [];
  const any = (vals: string[], likes: string[]) => [
    ...(vals.length ? [`${col} = ANY(${p.add(vals)}::text[])`] : []),
    ...likes.map((g) => `${col} LIKE ${p.add(likePattern(g))}`),
  ].join(' OR ');
  if (inc.length || incLike.length) parts.push(`(${any(inc, incLike)})`);
  if (exc.length || excLike.length) parts.push(`(${col} IS NULL OR NOT (${any(exc, excLike)}))`);
  return parts.length ? parts.join(' AND ') : null;
}

const RANK: Record<string, number> = Object.fromEntries(CHANGE_SEVERITIES.map((s, i) => [s, i]));

/**
 * Severity: `>=high` (and a bare `high`, as the reference reads it: high and above), `>high`, `<=medium`, `<medium`,
 * `=low`, or a list `critical,low` / `!info`.
 */
export function severityCondition(p: Params, col: string, expr: string): string | null {
  const s = expr.trim().toLowerCase();
  if (!s) return null;
  const known = (name: string) => {
    if (!(name in RANK)) throw badParam('severity', `unknown severity "${name.slice(0, 40)}"; expected ${CHANGE_SEVERITIES.join(', ')}`);
    return RANK[name];
  };
  const m = /^(>=|<=|>|<|=)?\s*([a-z]+)$/.exec(s);
  if (m && !s.includes(',')) {
    const rank = known(m[2]);
    const op = m[1] ?? '>=';
    const keep = CHANGE_SEVERITIES.filter((_, i) =>
      op === '>=' ? i <= rank : op === '>' ? i < rank : op === '<=' ? i >= rank : op === '<' ? i > rank : i === rank);
    return `${col} = ANY(${p.add(keep)}::text[])`;
  }
  for (const item of s.split(',').map((x) => x.trim().replace(/^!/, '')).filter(Boolean)) known(item);
  return listCondition(p, col, s, 'severity');
}

/**
 * A Kubernetes label selector over a jsonb column: `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`,
 * comma separated (commas inside parentheses belong to the set).
 */
export function selectorCondition(p: Params, col: string, expr: string, param: string): string | null {
  const terms: string[] = [];
  let depth = 0, cur = '';
  for (const ch of expr) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) { terms.push(cur); cur = ''; } else cur += ch;
  }
  terms.push(cur);
  const parts: string[] = [];
  for (const raw of terms.map((t) => t.trim()).filter(Boolean)) {
    let m: RegExpExecArray | null;
    if ((m = /^([\w./:-]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(raw))) {
      const vals = m[3].split(',').map((v) => v.trim()).filter(Boolean);
      const test = `${col} ->> ${p.add(m[1])} = ANY(${p.add(vals)}::text[])`;
      parts.push(m[2] === 'in' ? test : `NOT coalesce(${test}, false)`);
    } else if ((m = /^([\w./:-]+)\s*(!=|==|=)\s*([\w./:@+-]*)$/.exec(raw))) {
      const test = `${col} ->> ${p.add(m[1])} = ${p.add(m[3].trim())}`;
      parts.push(m[2] === '!=' ? `NOT coalesce(${test}, false)` : test);
    } else if ((m = /^(!)?([\w./:-]+)$/.exec(raw))) {
      parts.push(`${m[1] ? 'NOT ' : ''}coalesce(${col} ? ${p.add(m[2])}, false)`);
    } else {
      throw badParam(param, `cannot read "${raw.slice(0, 60)}"; expected key=value, key!=value, key in (a,b), key notin (a,b), key or !key`);
    }
  }
  return parts.length ? parts.join(' AND ') : null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string) => UUID.test(s);

/** A duration window `30d`, `12h`, `45m`, `2w` as whole seconds, or null when unreadable. */
export function windowSeconds(text: string): number | null {
  const m = /^(\d{1,5})(m|h|d|w)$/.exec(text.trim());
  if (!m) return null;
  return Number(m[1]) * { m: 60, h: 3600, d: 86400, w: 604800 }[m[2] as 'm' | 'h' | 'd' | 'w'];
}
