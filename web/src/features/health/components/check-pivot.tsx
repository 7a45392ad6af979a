import { memo, useCallback, useDeferredValue, useMemo, useRef } from 'react';
import { makeStyles, mergeClasses, Spinner, Text, tokens } from '@fluentui/react-components';
import { observeElementRect, useVirtualizer, type Virtualizer } from '@tanstack/react-virtual';
import type { CheckSummary } from '@contracts/health';
import { stickyHeaderCellStyle, tableFrameStyle, tableStyle } from '../../../components/data-table/table-styles';
import { HealthIndicator } from '../../../components/status/health-indicator';
import { UptimeBar } from '../../../components/status/uptime-bar';
import { formatDuration, formatPercent } from '../../../lib/format';
import { latencyOf, uptimePercent } from '../filters';
import { buildPivot, cellDescription, type PivotCell, type PivotRow } from '../pivot';
import type { PivotCellType } from '../pivot-params';
import { CheckIcon } from './check-icon';
import { LatencyText } from './check-facts';

/** Every row has this height (cells are one line and clip), so the virtualiser needs no measuring. */
const ROW_PX = 36;
/** Up to this many rows render at once; past it only the rows in view (plus overscan) do. */
export const PIVOT_VIRTUAL_ROWS = 200;
const OVERSCAN = 10;
const FIRST_COLUMN_PX = 280;
/** As the table's (calc(100vh - 250px)), less the second toolbar line that Pivot By and Cell take at 1366 px. */
const PIVOT_MAX_HEIGHT = 'calc(100vh - 320px)';
/** Value columns are as wide as their cells need; the table scrolls sideways once they no longer fit. */
const COLUMN_PX: Record<PivotCellType, number> = { checkStatuses: 96, uptime: 132, latency: 104 };

const useStyles = makeStyles({
  root: tableFrameStyle,
  scroll: { overflow: 'auto', minHeight: 0, flex: 1 },
  table: tableStyle,
  th: {
    ...stickyHeaderCellStyle,
    zIndex: 2,
    padding: `0 ${tokens.spacingHorizontalS}`,
    height: `${ROW_PX}px`,
    boxSizing: 'border-box',
    textAlign: 'center',
  },
  // the top-left cell stays above both the header row and the first column as they scroll under it
  corner: { left: 0, zIndex: 3, textAlign: 'start', paddingLeft: tokens.spacingHorizontalM },
  firstColumn: { borderRight: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}` },
  rowHeader: {
    position: 'sticky',
    left: 0,
    zIndex: 1,
    backgroundColor: tokens.colorNeutralBackground1,
    padding: `0 ${tokens.spacingHorizontalM}`,
    textAlign: 'start',
    fontWeight: tokens.fontWeightRegular,
  },
  td: {
    height: `${ROW_PX}px`,
    boxSizing: 'border-box',
    padding: `0 ${tokens.spacingHorizontalXS}`,
    borderBottom: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke3}`,
    textAlign: 'center',
    whiteSpace: 'nowrap',
    overflow: 'hidden',
    color: tokens.colorNeutralForeground1,
  },
  row: {
    ':hover': { backgroundColor: tokens.colorNeutralBackground1Hover },
    ':hover > th': { backgroundColor: tokens.colorNeutralBackground1Hover },
  },
  name: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS, minWidth: 0 },
  icon: { color: tokens.colorNeutralForeground3, display: 'inline-flex' },
  nameText: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', minWidth: 0 },
  cellButton: {
    display: 'inline-flex',
    alignItems: 'center',
    justifyContent: 'center',
    gap: tokens.spacingHorizontalXS,
    width: '100%',
    height: '28px',
    padding: `0 ${tokens.spacingHorizontalXS}`,
    border: 'none',
    borderRadius: tokens.borderRadiusMedium,
    background: 'none',
    font: 'inherit',
    color: 'inherit',
    cursor: 'pointer',
    ':hover': { backgroundColor: tokens.colorSubtleBackgroundHover },
    ':focus-visible': { outline: `${tokens.strokeWidthThick} solid ${tokens.colorStrokeFocus2}`, outlineOffset: '-2px' },
  },
  uptime: { display: 'inline-flex', alignItems: 'center', gap: tokens.spacingHorizontalS, minWidth: 0 },
  bar: { width: '40px', flexShrink: 0 },
  // one width for 0.0% to 100.0%, so the bars of a column line up
  pct: { fontVariantNumeric: 'tabular-nums', minWidth: '46px', textAlign: 'end' },
  count: { color: tokens.colorNeutralForeground3, fontSize: tokens.fontSizeBase100, fontVariantNumeric: 'tabular-nums' },
  muted: { color: tokens.colorNeutralForeground3 },
  spacer: { padding: 0, border: 'none' },
  message: {
    padding: `${tokens.spacingVerticalXXL} ${tokens.spacingHorizontalM}`,
    textAlign: 'center',
    color: tokens.colorNeutralForeground3,
  },
});

// The virtualiser's callbacks live at module scope (a new function per render makes it recompute every position).
const estimateSize = () => ROW_PX;
const FALLBACK_VIEWPORT_PX = 600;
const observeRect = (instance: Virtualizer<HTMLDivElement, Element>, cb: (rect: { width: number; height: number }) => void) =>
  observeElementRect(instance, (rect) => cb(rect.height ? rect : { ...rect, height: FALLBACK_VIEWPORT_PX }));
const INITIAL_RECT = { width: 0, height: FALLBACK_VIEWPORT_PX };

/** What a cell shows of its check: the status dot, the uptime (bar and percent) or the latency. */
function CellValue({ cell, type }: { cell: PivotCell; type: PivotCellType }) {
  const s = useStyles();
  const { check } = cell;
  if (type === 'checkStatuses') return <HealthIndicator health={check.status} />;
  if (type === 'latency') return <LatencyText check={check} />;
  const pct = uptimePercent(check);
  if (pct === null) return <Text size={200} className={s.muted}>No runs</Text>;
  // coloured as the table's Uptime cell: the bar is the share of failed runs (a long red bar mostly fails)
  return (
    <span className={s.uptime}>
      <span className={s.bar}>
        <UptimeBar percent={100 - pct} label={`${formatPercent(100 - pct)} of runs failed`} hideValue />
      </span>
      <Text size={200} className={s.pct}>{formatPercent(pct)}</Text>
    </span>
  );
}

function formattedValue(check: CheckSummary, type: PivotCellType): string {
  if (type === 'uptime') return formatPercent(uptimePercent(check));
  if (type === 'latency') return formatDuration(latencyOf(check));
  return '';
}

interface RowViewProps {
  row: PivotRow;
  /** The row's position among all rows (aria-rowindex: the header row is 1), so a virtualised window still reads right. */
  index: number;
  columns: string[];
  label: string;
  type: PivotCellType;
  onOpen: (check: CheckSummary) => void;
}

const RowView = memo(function RowView({ row, index, columns, label, type, onOpen }: RowViewProps) {
  const s = useStyles();
  return (
    <tr className={s.row} aria-rowindex={index + 2}>
      <th scope="row" className={mergeClasses(s.td, s.rowHeader, s.firstColumn)}>
        <span className={s.name}>
          <span className={s.icon}><CheckIcon type={row.type} /></span>
          <span className={s.nameText} title={row.name}>{row.name}</span>
        </span>
      </th>
      {row.cells.map((cell, i) => {
        if (!cell) {
          return (
            <td key={columns[i]} className={mergeClasses(s.td, s.muted)} title={`No ${row.name} check with ${label}=${columns[i]}`}>
              –
            </td>
          );
        }
        const description = cellDescription(cell, type, formattedValue(cell.check, type));
        return (
          <td key={columns[i]} className={s.td}>
            <button
              type="button"
              className={s.cellButton}
              aria-label={description}
              title={`${row.name}, ${label}=${columns[i]}: ${description}`}
              onClick={() => onOpen(cell.check)}
            >
              <CellValue cell={cell} type={type} />
              {cell.count > 1 && <span className={s.count} aria-hidden="true">×{cell.count}</span>}
            </button>
          </td>
        );
      })}
    </tr>
  );
});

export interface CheckPivotProps {
  /** The shown checks (filters, tab and time range already applied). */
  checks: CheckSummary[];
  /** The label key whose values are the columns. */
  label: string;
  cellType: PivotCellType;
  loading: boolean;
  emptyMessage: string;
  /** Opens a check's drawer; a cell shared by several checks opens the one whose value it shows. */
  onOpen: (check: CheckSummary) => void;
  maxHeight?: string;
}

/**
 * The pivot view: one row per check name, one column per value of a label (then "none"), each cell the worst
 * status, lowest uptime or highest latency of its checks. A plain table with a sticky header row and first column;
 * past PIVOT_VIRTUAL_ROWS rows only the rows in view render.
 */
export function CheckPivot({ checks, label, cellType, loading, emptyMessage, onOpen, maxHeight = PIVOT_MAX_HEIGHT }: CheckPivotProps) {
  const s = useStyles();
  const pivot = useMemo(() => buildPivot(checks, label, cellType), [checks, label, cellType]);
  const { columns, rows } = pivot;

  const virtual = rows.length > PIVOT_VIRTUAL_ROWS;
  const scrollRef = useRef<HTMLDivElement>(null);
  const getScrollElement = useCallback(() => scrollRef.current, []);
  const getItemKey = useCallback((i: number) => rows[i]?.name ?? i, [rows]);
  const virtualizer = useVirtualizer({
    count: rows.length,
    enabled: virtual,
    getScrollElement,
    estimateSize,
    overscan: OVERSCAN,
    getItemKey,
    initialRect: INITIAL_RECT,
    observeElementRect: observeRect,
  });
  // newly revealed rows render at transition priority, so a fast scroll is not one long task (as DataTable does)
  const items = useDeferredValue(virtualizer.getVirtualItems());
  const totalSize = virtualizer.getTotalSize();

  if (!rows.length) {
    return (
      <div className={s.root}>
        <div className={s.message}>{loading ? <Spinner size="small" label="Loading…" /> : <Text role="status">{emptyMessage}</Text>}</div>
      </div>
    );
  }

  let body;
  if (!virtual) {
    body = rows.map((row, i) => <RowView key={row.name} row={row} index={i} columns={columns} label={label} type={cellType} onOpen={onOpen} />);
  } else {
    const padTop = items.length ? items[0].start : 0;
    const padBottom = items.length ? Math.max(0, totalSize - items[items.length - 1].end) : 0;
    body = (
      <>
        {padTop > 0 && (
          <tr aria-hidden="true">
            <td colSpan={columns.length + 1} className={s.spacer} style={{ height: padTop }} />
          </tr>
        )}
        {items.map((v) => {
          const row = rows[v.index];
          // a deferred window can still hold an index past the end of rows that just shrank
          return row ? <RowView key={row.name} row={row} index={v.index} columns={columns} label={label} type={cellType} onOpen={onOpen} /> : null;
        })}
        {padBottom > 0 && (
          <tr aria-hidden="true">
            <td colSpan={columns.length + 1} className={s.spacer} style={{ height: padBottom }} />
          </tr>
        )}
      </>
    );
  }

  const columnPx = COLUMN_PX[cellType];
  return (
    <div className={s.root}>
      <div ref={scrollRef} className={s.scroll} style={{ maxHeight }}>
        <table
          className={s.table}
          style={{ minWidth: FIRST_COLUMN_PX + columns.length * columnPx }}
          aria-label={`Health checks by ${label}`}
          aria-rowcount={rows.length + 1}
          aria-busy={loading || undefined}
        >
          <colgroup>
            <col style={{ width: FIRST_COLUMN_PX }} />
            {columns.map((c) => (
              <col key={c} style={{ width: columnPx }} />
            ))}
          </colgroup>
          <thead>
            <tr aria-rowindex={1}>
              <th scope="col" className={mergeClasses(s.th, s.corner, s.firstColumn)}>Checks</th>
              {columns.map((c) => (
                <th key={c} scope="col" className={s.th} title={`${label}=${c}`}>
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>{body}</tbody>
        </table>
      </div>
    </div>
  );
}
