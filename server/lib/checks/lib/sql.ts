import { z } from 'zod';
import { ConnectionFields } from './env-var.js';

/** Rows kept in `data.rows`; the query still counts every row it returns. */
export const MAX_ROWS = 1000;
/** Longest text kept per value; longer values are cut (a SELECT of a blob must not bloat the result). */
const MAX_VALUE_CHARS = 4096;

/** Fields shared by the SQL checks (postgres, mysql): connection/url, query, results. */
export const SqlCheckSpec = z.looseObject({
  ...ConnectionFields,
  /** Defaults to `SELECT 1`, as in the reference. */
  query: z.string().optional(),
  /** Minimum number of rows the query must return (reference: fails when count < results). */
  results: z.number().int().min(0).optional(),
  /** Fail when the query returns no rows (the reference's `markFailOnEmpty`). */
  markFailOnEmpty: z.boolean().optional(),
});
export type SqlCheckSpec = z.infer<typeof SqlCheckSpec>;

export function sqlQuery(spec: SqlCheckSpec): string {
  return spec.query?.trim() ? spec.query : 'SELECT 1';
}

/** Collects streamed rows: counts all, keeps the first MAX_ROWS as JSON-safe values. */
export class RowCollector {
  rows: Array<Record<string, unknown>> = [];
  count = 0;

  add(row: Record<string, unknown>) {
    this.count++;
    if (this.rows.length < MAX_ROWS) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(row)) out[k] = jsonSafe(v);
      this.rows.push(out);
    }
  }

  get truncated() {
    return this.count > this.rows.length;
  }
}

function jsonSafe(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString();
  if (Buffer.isBuffer(v)) return cut(v.toString('utf8'));
  if (typeof v === 'string') return cut(v);
  if (typeof v === 'object') {
    try {
      const s = JSON.stringify(v);
      return s.length > MAX_VALUE_CHARS ? cut(s) : v;
    } catch {
      return cut(String(v));
    }
  }
  return v;
}

function cut(s: string) {
  return s.length > MAX_VALUE_CHARS ? `${s.slice(0, MAX_VALUE_CHARS)}…` : s;
}

/** The reference's verdict: fail on no rows with markFailOnEmpty, and when fewer rows came back than `results`. */
export function sqlVerdict(spec: SqlCheckSpec, count: number): string | undefined {
  if (count === 0 && spec.markFailOnEmpty) return 'Query has returned empty value';
  const expected = spec.results ?? 0;
  return count < expected ? `Query returned ${count} rows, expected ${expected}` : undefined;
}
