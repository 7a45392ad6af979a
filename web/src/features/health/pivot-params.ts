import { LABEL_PREFIX, NO_NAMESPACE, type LabelFilterDef } from './filters';

/*
 * The /health pivot's URL parameters (spec 000 "Health dashboard": pivotBy, pivotLabel, pivotCellType) and the
 * choices the page offers. The matrix itself is built in pivot.ts, which loads with the pivot view, so the /health
 * entry stays within its JavaScript budget.
 */

export const PIVOT_NONE = 'none';
export const PIVOT_LABELS = 'labels';
export type PivotBy = typeof PIVOT_NONE | typeof PIVOT_LABELS;

export const CELL_TYPES = ['checkStatuses', 'uptime', 'latency'] as const;
export type PivotCellType = (typeof CELL_TYPES)[number];

/** The three URL parameters' defaults (the table, no label, status cells). */
export const PIVOT_DEFAULTS = { pivotBy: PIVOT_NONE as string, pivotLabel: '', pivotCellType: 'checkStatuses' as string };

/** The Cell choices, in the order the dropdown lists them. */
export const CELL_TYPE_OPTIONS: { value: PivotCellType; label: string }[] = [
  { value: 'checkStatuses', label: 'Status' },
  { value: 'uptime', label: 'Uptime' },
  { value: 'latency', label: 'Latency' },
];

/**
 * The column of checks without the label. As with Tab By (filters.tabValue), an empty value and a literal "none"
 * land in it too, so one label reads the same in its tabs and its pivot columns.
 */
export const NO_LABEL_COLUMN = NO_NAMESPACE;

export interface PivotParams {
  pivotBy: PivotBy;
  /** The label key the columns come from; '' unless pivoting. */
  pivotLabel: string;
  cellType: PivotCellType;
}

/**
 * Reads the three URL parameters; anything unknown falls back to its default: a pivotBy other than none/labels, a
 * missing label, an unknown cell type. Given the label keys of the loaded checks, a label no check carries (an old
 * link) also falls back to the table; while the checks load (no keys given) the pivot is kept, so it does not
 * flicker to the table and back.
 */
export function parsePivotParams(
  raw: { pivotBy: string; pivotLabel: string; pivotCellType: string },
  labelKeys?: readonly string[],
): PivotParams {
  const cellType = (CELL_TYPES as readonly string[]).includes(raw.pivotCellType) ? (raw.pivotCellType as PivotCellType) : 'checkStatuses';
  const label = raw.pivotLabel.trim();
  const known = !labelKeys || labelKeys.includes(label);
  if (raw.pivotBy !== PIVOT_LABELS || !label || !known) return { pivotBy: PIVOT_NONE, pivotLabel: '', cellType };
  return { pivotBy: PIVOT_LABELS, pivotLabel: label, cellType };
}

/** Pivot By choices: None, then every label key as "Label: <key>" (values `label:<key>`, as Group By names them). */
export function pivotByOptions(defs: readonly LabelFilterDef[]): { value: string; label: string }[] {
  return [{ value: PIVOT_NONE, label: 'None' }, ...defs.map((d) => ({ value: LABEL_PREFIX + d.key, label: `Label: ${d.key}` }))];
}

/** The Pivot By option a parsed state selects. */
export function pivotOptionValue(p: PivotParams): string {
  return p.pivotBy === PIVOT_LABELS ? LABEL_PREFIX + p.pivotLabel : PIVOT_NONE;
}

/** The URL patch a Pivot By option makes (None clears all three parameters). */
export function pivotPatch(option: string): { pivotBy: string; pivotLabel: string; pivotCellType?: string } {
  if (!option.startsWith(LABEL_PREFIX) || option.length === LABEL_PREFIX.length) {
    return { pivotBy: PIVOT_NONE, pivotLabel: '', pivotCellType: PIVOT_DEFAULTS.pivotCellType };
  }
  return { pivotBy: PIVOT_LABELS, pivotLabel: option.slice(LABEL_PREFIX.length) };
}
