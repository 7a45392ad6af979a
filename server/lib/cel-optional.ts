import { celFunc, CelScalar, isCelMap, listType, type CelValue } from '@bufbuild/cel';

/**
 * CEL's optional field selection (`results.?newest.modified.orValue('now')`, `x.?f.?a`), which the reference enables
 * (cel.OptionalTypes) and its manifests use, but @bufbuild/cel's parser does not accept. Before parsing, `.?name`
 * becomes `.__opt__name`; after parsing, each select chain holding such a field becomes one call of a hidden
 * function that walks it with cel-go's rules: a `.?` step on a missing key ends the chain as none, a plain step after
 * it must exist (else "no such key"), and the chain ends in
 * - `.orValue(d)`: the value, or d when none;
 * - `.hasValue()`: whether there is a value;
 * - anything else (`x.?f` on its own): the value, or null when none (the reference prints an empty optional as "").
 * Not supported: optional indexing (`m[?k]`), optional.of()/none(), and optional values kept in variables.
 */

const MARK = '__opt__';

/** Rewrites `.?ident` outside string literals to `.__opt__ident`. */
export function markOptionalSelects(expr: string): string {
  if (!expr.includes('.?')) return expr;
  let out = '';
  let i = 0;
  while (i < expr.length) {
    const c = expr[i];
    const quote = /^(?:[rRbB]{0,2})('''|"""|'|")/.exec(expr.slice(i));
    if (quote && (c === "'" || c === '"' || /[rRbB]/.test(c)) && !/[A-Za-z0-9_]/.test(expr[i - 1] ?? '')) {
      const raw = /[rR]/.test(quote[0].slice(0, -quote[1].length));
      const q = quote[1];
      let j = i + quote[0].length;
      while (j < expr.length && !expr.startsWith(q, j)) j += !raw && expr[j] === '\\' ? 2 : 1;
      out += expr.slice(i, j + q.length);
      i = j + q.length;
      continue;
    }
    if (c === '.' && expr[i + 1] === '?' && /[A-Za-z_]/.test(expr[i + 2] ?? '')) {
      out += `.${MARK}`;
      i += 2;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

type Expr = { id: bigint; exprKind: { case?: string; value?: unknown } } & Record<string, unknown>;
type Select = { operand: Expr; field: string; testOnly: boolean };
type Call = { function: string; target?: Expr; args: Expr[] };

/** Rewrites optional select chains in a parsed expression (in place). */
export function rewriteOptionals(root: Expr): void {
  let nextId = maxId(root) + 1n;
  const node = (kind: string, value: Record<string, unknown>, typeName: string): Expr => ({
    $typeName: 'cel.expr.Expr', id: nextId++, exprKind: { case: kind, value: { $typeName: typeName, ...value } },
  }) as unknown as Expr;
  const str = (s: string) => node('constExpr', { constantKind: { case: 'stringValue', value: s } }, 'cel.expr.Constant');
  const call = (fn: string, args: Expr[]) => node('callExpr', { function: fn, args }, 'cel.expr.Expr.Call');

  /** The chain under `e` if it holds an optional step: its base and its steps ('?name' for optional ones). */
  const chainOf = (e: Expr): { base: Expr; steps: string[] } | null => {
    const steps: string[] = [];
    let cur = e;
    let optionalAt = -1;
    while (cur.exprKind.case === 'selectExpr' && !(cur.exprKind.value as Select).testOnly) {
      const sel = cur.exprKind.value as Select;
      if (sel.field.startsWith(MARK)) {
        steps.unshift(`?${sel.field.slice(MARK.length)}`);
        optionalAt = steps.length;
      } else steps.unshift(sel.field);
      cur = sel.operand;
    }
    if (optionalAt < 0) return null;
    // plain steps before the first optional one stay in the base
    const first = steps.findIndex((s) => s.startsWith('?'));
    let base = cur;
    for (const s of steps.slice(0, first)) base = node('selectExpr', { operand: base, field: s, testOnly: false }, 'cel.expr.Expr.Select');
    return { base, steps: steps.slice(first) };
  };

  const replace = (target: Expr, by: Expr) => {
    target.exprKind = by.exprKind;
  };

  const visit = (e: Expr): void => {
    const kind = e.exprKind.case;
    if (kind === 'callExpr') {
      const c = e.exprKind.value as Call;
      const chain = c.target && (c.function === 'orValue' || c.function === 'hasValue') ? chainOf(c.target) : null;
      if (chain) {
        visit(chain.base);
        c.args.forEach(visit);
        const steps = node('listExpr', { elements: chain.steps.map(str), optionalIndices: [] }, 'cel.expr.Expr.CreateList');
        replace(e, c.function === 'orValue'
          ? call('@opt_or', [chain.base, steps, ...c.args])
          : call('@opt_has', [chain.base, steps]));
        return;
      }
    }
    if (kind === 'selectExpr') {
      const chain = chainOf(e);
      if (chain) {
        visit(chain.base);
        const steps = node('listExpr', { elements: chain.steps.map(str), optionalIndices: [] }, 'cel.expr.Expr.CreateList');
        replace(e, call('@opt_or', [chain.base, steps, node('constExpr', { constantKind: { case: 'nullValue', value: 0 } }, 'cel.expr.Constant')]));
        return;
      }
    }
    for (const v of Object.values(e.exprKind.value ?? {})) walkChildren(v, visit);
  };
  visit(root);
}

function walkChildren(v: unknown, visit: (e: Expr) => void): void {
  if (v === null || typeof v !== 'object') return;
  if (Array.isArray(v)) return v.forEach((x) => walkChildren(x, visit));
  const o = v as Record<string, unknown>;
  if (o.$typeName === 'cel.expr.Expr') return visit(o as unknown as Expr);
  for (const [k, x] of Object.entries(o)) if (k !== '$typeName') walkChildren(x, visit);
}

function maxId(v: unknown): bigint {
  if (v === null || typeof v !== 'object') return 0n;
  let m = 0n;
  const o = v as Record<string, unknown>;
  if (typeof o.id === 'bigint' && o.id > m) m = o.id;
  for (const [k, x] of Object.entries(o)) {
    if (k === '$typeName') continue;
    const c = maxId(x);
    if (c > m) m = c;
  }
  return m;
}

const NONE = Symbol('none');

/** Walks the steps from `base`: the value, or NONE when an optional step finds nothing. */
function walk(base: CelValue, steps: Iterable<unknown>): CelValue | typeof NONE {
  let v: CelValue = base;
  for (const s of steps) {
    const step = String(s);
    const optional = step.startsWith('?');
    const key = optional ? step.slice(1) : step;
    // @bufbuild/cel's has() is false for a key whose value is null; cel-go's optional holds that null
    if (isCelMap(v) && (v.has(key) || [...v.keys()].includes(key))) {
      v = v.get(key) as CelValue;
      continue;
    }
    if (optional && (v === null || isCelMap(v))) return NONE;
    throw new Error(isCelMap(v) ? `no such key: ${key}` : `no such key: ${key} (on ${v === null ? 'null' : typeof v})`);
  }
  return v;
}

export const OPTIONAL_FUNCS = [
  celFunc('@opt_or', [CelScalar.DYN, listType(CelScalar.STRING), CelScalar.DYN], CelScalar.DYN, (base, steps, fallback) => {
    const v = walk(base, steps);
    return (v === NONE ? fallback : v) as never;
  }),
  celFunc('@opt_has', [CelScalar.DYN, listType(CelScalar.STRING)], CelScalar.BOOL, (base, steps) => walk(base, steps) !== NONE),
];
