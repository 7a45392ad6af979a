import { parseError, tooLarge } from '../errors.js';
import type { Condition, Filter } from './ast.js';
import { MAX_IN_LIST } from './filter.js';

/** Columns mission-control treats as dates in `<col>.filter=` (reference/postgrest.md, proxy step 3). */
export const DATE_FIELDS: ReadonlySet<string> = new Set([
  'acknowledged', 'check_time', 'closed', 'created_at', 'deleted_at', 'end_time', 'expires_at', 'first_observed',
  'last_attempt', 'last_login', 'last_observed', 'last_received', 'last_runtime', 'last_scraped_time', 'last_seen',
  'last_transition_time', 'next_runtime', 'resolved', 'scheduled_time', 'silenced_at', 'start_time', 'time',
  'time_end', 'time_start', 'updated_at',
]);

const UNIT_MS: Record<string, number> = { s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 7 * 86400e3 };

/**
 * Evaluates date math: `now`, `now-24h`, `now+1d-2h`, `now-7d/d` (rounded down to the unit), `now-1M`, or an
 * absolute ISO date. Returns an RFC3339 string (UTC).
 */
export function dateMath(expr: string, now = new Date()): string | null {
  const m = /^now((?:[+-]\d{1,6}[smhdwMy])*)(?:\/([smhdwMy]))?$/.exec(expr);
  if (!m) {
    if (!/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(expr)) return null;
    const d = new Date(expr);
    return Number.isNaN(d.getTime()) ? null : d.toISOString();
  }
  const d = new Date(now.getTime());
  for (const [, sign, n, unit] of m[1].matchAll(/([+-])(\d+)([smhdwMy])/g)) {
    const k = (sign === '-' ? -1 : 1) * Number(n);
    if (unit === 'M') d.setUTCMonth(d.getUTCMonth() + k);
    else if (unit === 'y') d.setUTCFullYear(d.getUTCFullYear() + k);
    else d.setTime(d.getTime() + k * UNIT_MS[unit]);
  }
  const round = m[2];
  if (round) {
    if (round === 'y') d.setUTCMonth(0, 1);
    else if (round === 'M') d.setUTCDate(1);
    else if (round === 'w') d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
    const ms = ({ s: 1e3, m: 60e3, h: 3600e3 } as Record<string, number>)[round] ?? 86400e3;
    d.setTime(Math.floor(d.getTime() / ms) * ms);
  }
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

const cond = (name: string, op: Condition['op'], value: string, negate = false, list?: string[]): Condition => ({
  type: 'cond', embed: [], field: { name, json: [] }, op, value, negate, list,
});

/**
 * mission-control's `<col>.filter=<expr>` convenience, turned straight into filter AST (no string rewriting):
 * date columns take `[=|>|<]<datemath>` (default `<`); other columns a comma list where plain values are an `in`,
 * `!x` a `not.in`, and values with `*` globs a `like`. Positive terms are ORed, negative ones ANDed.
 */
export function searchFilter(column: string, expr: string): Filter[] {
  if (DATE_FIELDS.has(column)) {
    const op = expr[0] === '>' ? 'gt' : expr[0] === '=' ? 'eq' : 'lt';
    const rest = /^[<>=]/.test(expr) ? expr.slice(1) : expr;
    const at = dateMath(rest.trim());
    if (!at) throw parseError(`${column}.filter parameter`, expr, 'expected [=|>|<] followed by a date or date math like now-24h');
    return [cond(column, op, at)];
  }
  const items = expr.split(',').map((v) => v.trim()).filter((v) => v !== '');
  if (items.length > MAX_IN_LIST) throw tooLarge(`a filter may hold at most ${MAX_IN_LIST} values`);
  const include: string[] = [], exclude: string[] = [];
  const positive: Condition[] = [], out: Filter[] = [];
  for (const item of items) {
    const neg = item.startsWith('!');
    const v = neg ? item.slice(1) : item;
    if (v === '') continue;
    if (v.includes('*')) (neg ? out : positive).push(cond(column, 'like', v, neg));
    else (neg ? exclude : include).push(v);
  }
  if (include.length) positive.push(cond(column, 'in', '', false, include));
  if (exclude.length) out.push(cond(column, 'in', '', true, exclude));
  if (positive.length === 1) out.push(positive[0]);
  else if (positive.length > 1) out.push({ type: 'logic', op: 'or', negate: false, children: positive });
  return out;
}
