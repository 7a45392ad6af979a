import type { CheckSummary } from '@contracts/health';
import { healthColor } from '../../components/status/health';
import { latencyOf, uptimePercent } from './filters';
import { NO_LABEL_COLUMN, type PivotCellType } from './pivot-params';

/*
 * The /health pivot (spec 000 "Health dashboard": pivotBy, pivotLabel, pivotCellType): the shown checks as a
 * matrix of check name by the values of one label. Pure functions over the filtered checks, memoised by the view:
 * one pass over 10,000 checks, so switching the pivot or the cell type stays instant. The URL parameters are in
 * pivot-params.ts.
 */

// ---------------------------------------------------------------------------------------------------------------
// The matrix

/** The column a check falls in. */
export function pivotValue(c: Pick<CheckSummary, 'labels'>, label: string): string {
  return c.labels[label] || NO_LABEL_COLUMN;
}

// numeric: "check-2" before "check-10", as people number their checks and environments; one collator for all
// comparisons (10,000 row names) instead of a localeCompare setup per call
const byText = new Intl.Collator(undefined, { numeric: true }).compare;

/** The label's distinct values, sorted, then "none" when some check lacks the label. */
export function pivotColumns(checks: readonly CheckSummary[], label: string): string[] {
  const values = new Set<string>();
  let none = false;
  for (const c of checks) {
    const v = pivotValue(c, label);
    if (v === NO_LABEL_COLUMN) none = true;
    else values.add(v);
  }
  const out = [...values].sort(byText);
  if (none) out.push(NO_LABEL_COLUMN);
  return out;
}

export interface PivotCell {
  /** The check whose value the cell shows, and the one a click opens. */
  check: CheckSummary;
  /** How many checks share the cell. */
  count: number;
}

export interface PivotRow {
  /** The checks' name: one row per distinct name. */
  name: string;
  /** The type of the row's first check (its icon). */
  type: string;
  /** One entry per column; null where no check of this name has that value. */
  cells: (PivotCell | null)[];
}

export interface Pivot {
  columns: string[];
  rows: PivotRow[];
}

/** Worse statuses rank higher: red (unhealthy...), orange (warning), gray (unknown, no run yet), green. */
const STATUS_RANK = { red: 3, orange: 2, gray: 1, green: 0 } as const;

export function statusRank(status: string | null | undefined): number {
  return STATUS_RANK[healthColor(status)];
}

/**
 * How bad a check is by the cell type's measure (higher is worse), or null when it has no value: the status, the
 * lowest uptime, the highest latency. Checks without runs or latency never outrank ones with a value.
 */
function badness(c: CheckSummary, type: PivotCellType): number | null {
  if (type === 'checkStatuses') return statusRank(c.status);
  if (type === 'uptime') {
    const pct = uptimePercent(c);
    return pct === null ? null : -pct;
  }
  return latencyOf(c);
}

/** Ties go to the earlier canary, then the lower id, so the cell (and what a click opens) does not depend on fetch order. */
function tieBreak(a: CheckSummary, b: CheckSummary): number {
  return a.canary_name.localeCompare(b.canary_name) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * One cell's value from its checks: the worst status, the lowest uptime or the highest latency, with the count.
 * The check shown is also the one a click opens (the "first" of the cell), so the drawer explains what the cell says.
 */
export function aggregateCell(checks: readonly CheckSummary[], type: PivotCellType): PivotCell {
  let best = checks[0];
  let bestScore = badness(best, type);
  for (let i = 1; i < checks.length; i++) {
    const c = checks[i];
    const score = badness(c, type);
    if (score === null) continue;
    if (bestScore === null || score > bestScore || (score === bestScore && tieBreak(c, best) < 0)) {
      best = c;
      bestScore = score;
    }
  }
  // every check without a value: still show (and open) a deterministic one
  if (bestScore === null) for (const c of checks) if (tieBreak(c, best) < 0) best = c;
  return { check: best, count: checks.length };
}

/** Rows by check name (sorted), each with its cells in the order of `columns`. */
export function pivotRows(checks: readonly CheckSummary[], label: string, columns: readonly string[], type: PivotCellType): PivotRow[] {
  const col = new Map(columns.map((v, i) => [v, i]));
  const byName = new Map<string, CheckSummary[][]>();
  for (const c of checks) {
    let cells = byName.get(c.name);
    if (!cells) byName.set(c.name, (cells = []));
    const i = col.get(pivotValue(c, label));
    if (i === undefined) continue; // a column list from other checks: the check has nowhere to go
    (cells[i] ??= []).push(c);
  }
  const rows: PivotRow[] = [];
  for (const [name, cells] of byName) {
    const row: PivotRow = { name, type: '', cells: new Array<PivotCell | null>(columns.length).fill(null) };
    for (let i = 0; i < columns.length; i++) {
      const list = cells[i];
      if (!list) continue;
      row.cells[i] = aggregateCell(list, type);
      row.type ||= list[0].type;
    }
    if (row.type) rows.push(row);
  }
  return rows.sort((a, b) => byText(a.name, b.name));
}

/** The whole matrix of the shown checks. */
export function buildPivot(checks: readonly CheckSummary[], label: string, type: PivotCellType): Pivot {
  const columns = pivotColumns(checks, label);
  return { columns, rows: pivotRows(checks, label, columns, type) };
}

/** The words a cell is read with: "unhealthy", "0.0% uptime", "1.2s latency", plus "2 checks" when shared. */
export function cellDescription(cell: PivotCell, type: PivotCellType, formatted: string): string {
  const count = cell.count > 1 ? `, ${cell.count} checks` : '';
  if (type === 'checkStatuses') return `${cell.check.status ?? 'unknown'}${count}`;
  if (type === 'uptime') return `${formatted ? `${formatted} uptime` : 'No runs'}${count}`;
  return `${formatted ? `${formatted} latency` : 'no latency'}${count}`;
}
