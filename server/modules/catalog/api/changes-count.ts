import { Params } from './filters.js';

/** The created_at range a changes search applied: (from, to], ISO timestamps, either open. */
export interface ChangeWindow {
  from: string | null;
  to: string | null;
}

const HOUR = 3_600_000;

/**
 * The changes page's count by change type when only the window (and hiding deleted items) narrows it: the whole UTC
 * hours inside the window from config_change_rollup (0052, kept by triggers), the partial hours at its edges counted
 * exactly with the same conditions. Null when the window holds no whole hour (the exact count is as cheap).
 */
export function hourlyCountSql(where: string[], window: ChangeWindow, values: unknown[], liveOnly: boolean) {
  const from = window.from ? Math.ceil(Date.parse(window.from) / HOUR) * HOUR : null;
  const to = Math.floor((window.to ? Date.parse(window.to) : Date.now()) / HOUR) * HOUR;
  if (from !== null && from >= to) return null;
  const p = new Params();
  p.values.push(...values);
  const a = from === null ? `'-infinity'::timestamptz` : `${p.add(new Date(from).toISOString())}::timestamptz`;
  const b = `${p.add(new Date(to).toISOString())}::timestamptz`;
  const edge = (cond: string) => `SELECT c.change_type, count(*) AS n FROM catalog_changes c
    WHERE ${[...where, cond].join(' AND ')} GROUP BY c.change_type`;
  const sql = `SELECT change_type, sum(n)::int AS n FROM (
      SELECT r.change_type, r.n FROM config_change_rollup r WHERE r.hour >= ${a} AND r.hour < ${b}${liveOnly ? ' AND r.live' : ''}
      UNION ALL ${edge(`c.created_at < ${a}`)}
      UNION ALL ${edge(`c.created_at >= ${b}`)}
    ) x GROUP BY change_type HAVING sum(n) <> 0`;
  return { sql, values: p.values };
}
