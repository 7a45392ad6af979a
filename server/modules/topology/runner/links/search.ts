import { itemsClause, likeOf, Params, propertyText, SelectorError, type SelectorTarget } from './resource-selector.js';

/**
 * duty's ResourceSelector `search` (its free-text query) over one table, as parameterised clauses ANDed with the
 * selector's other fields. Space-separated terms, all must hold:
 * - `key=value` / `key!=value` (`==` too): `value` may list alternatives `a,b` and glob with `*` at either end;
 *   keys: `name`, `namespace`, `type`, `status`, `health`, `id`, the table's other fieldSelector columns,
 *   `labels.<k>` (`label.<k>`), `tags.<k>` (`tag.<k>`, config items), and on components any property name;
 * - a bare word: the name starts with it, case-insensitive (`*` globs inside it).
 * A value may be quoted ("a b"). `>`/`<` comparisons and unknown keys are a SelectorError (a note, no links).
 */

const TERM_RE = /^([A-Za-z_][\w./-]*)\s*(!=|==|=|>=|<=|>|<)(.*)$/;

/** The terms of a search text: split on spaces outside double quotes, quotes removed. */
export function searchTerms(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (const ch of text) {
    if (ch === '"') { quoted = !quoted; continue; }
    if (!quoted && /\s/.test(ch)) { if (cur) out.push(cur); cur = ''; continue; }
    cur += ch;
  }
  if (quoted) throw new SelectorError('search: an unclosed quote');
  if (cur) out.push(cur);
  return out;
}

/** The SQL text expression that yields `key` on `t` (bound parameters into `ps`), or throws for an unknown key. */
function keyExpr(key: string, t: SelectorTarget, ps: Params): string {
  const k = key.toLowerCase();
  if (k === 'namespace') return t.namespace;
  const dot = key.indexOf('.');
  if (dot > 0) {
    const [head, sub] = [key.slice(0, dot).toLowerCase(), key.slice(dot + 1)];
    if (head === 'labels' || head === 'label') return `labels->>${ps.p(sub)}`;
    if (head === 'tags' || head === 'tag') {
      if (!t.tags) throw new SelectorError(`search: ${t.table} have no tags (use labels.${sub})`);
      return `${t.tags}->>${ps.p(sub)}`;
    }
  }
  const col = (t.fields as Record<string, string>)[k];
  if (col) return col;
  if (t.properties) return propertyText(key, ps);
  throw new SelectorError(`search: unknown field '${key.slice(0, 60)}' (known: ${Object.keys(t.fields).join(', ')}, labels.<key>${t.tags ? ', tags.<key>' : ''})`);
}

/** The clauses of a search text on `t`; none for blank text. */
export function searchClauses(text: string, t: SelectorTarget, ps: Params): string[] {
  const out: string[] = [];
  for (const term of searchTerms(text)) {
    const m = TERM_RE.exec(term);
    if (!m) {
      // a bare word: a name prefix, case-insensitive
      const glob = term.includes('*') ? likeOf(term) : `${likeOf(term)}%`;
      out.push(`name ILIKE ${ps.p(glob)}`);
      continue;
    }
    const [, key, op, raw] = m;
    if (op !== '=' && op !== '==' && op !== '!=') throw new SelectorError(`search: '${term.slice(0, 60)}': only = and != are supported`);
    if (key.toLowerCase() === 'agent' || key.toLowerCase() === 'agent_id') throw new SelectorError('search: use the selector\'s agent field');
    const values = raw.split(',').map((v) => v.trim()).filter(Boolean);
    if (!values.length) throw new SelectorError(`search: '${term.slice(0, 60)}' has no value`);
    const clause = itemsClause(keyExpr(key, t, ps), op === '!=' ? values.map((v) => `!${v}`) : values, ps);
    if (clause) out.push(`(${clause})`);
  }
  return out;
}
