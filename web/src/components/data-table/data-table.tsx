import {
  lazy,
  memo,
  Suspense,
  useCallback,
  useDeferredValue,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type KeyboardEvent,
  type MouseEvent,
  type ReactNode,
} from 'react';
import { Button, makeStyles, mergeClasses, Spinner, Text, tokens } from '@fluentui/react-components';
import { ArrowSortDown16Filled, ArrowSortUp16Filled, ArrowSort16Regular, ChevronDown16Regular, ChevronRight16Regular } from '@fluentui/react-icons';
import { flexRender, useTable, type Cell, type ExpandedState, type Header, type RowData } from '@tanstack/react-table';
import { measureElement, observeElementRect, useVirtualizer, type Virtualizer } from '@tanstack/react-virtual';
import {
  dataTableFeatures,
  EMPTY_TABLE_MESSAGE,
  PAGE_SIZES,
  ROW_ESTIMATE_PX,
  ROW_OVERSCAN,
  type DataTableColumn,
  type DataTableFeatures,
  type DataTableRow,
} from './columns';
import type { PaginationBarProps } from './pagination-bar';
import { useDataTableState, type DataTableStateHandle, type SortDirectionParam } from './use-data-table-state';
import { stickyHeaderCellStyle, tableFrameStyle, tableStyle } from './table-styles';

const useStyles = makeStyles({
  root: { ...tableFrameStyle, position: 'relative' },
  // an indeterminate bar like Fluent's ProgressBar, drawn here (the component and its styles are not worth a
  // download for one line; the group count below likewise replaces CounterBadge)
  progress: {
    position: 'absolute',
    top: 0,
    left: 0,
    right: 0,
    zIndex: 2,
    height: '2px',
    overflow: 'hidden',
    backgroundColor: tokens.colorNeutralBackground6,
    '::after': {
      content: '""',
      position: 'absolute',
      top: 0,
      bottom: 0,
      width: '33%',
      backgroundColor: tokens.colorCompoundBrandBackground,
      animationName: { from: { left: '-33%' }, to: { left: '100%' } },
      animationDuration: '1.5s',
      animationIterationCount: 'infinite',
      animationTimingFunction: 'linear',
      '@media (prefers-reduced-motion: reduce)': { animationName: 'none', left: 0, width: '100%', opacity: 0.5 },
    },
  },
  count: {
    flexShrink: 0,
    minWidth: '20px',
    padding: `0 ${tokens.spacingHorizontalXS}`,
    boxSizing: 'border-box',
    borderRadius: tokens.borderRadiusCircular,
    color: tokens.colorBrandForeground1,
    fontSize: tokens.fontSizeBase100,
    fontWeight: tokens.fontWeightSemibold,
    lineHeight: '16px',
    textAlign: 'center',
  },
  // layout and paint of the rows stay inside the scroller: a window of rows changing does not re-lay the page out
  scroll: { overflow: 'auto', minHeight: 0, flex: 1, contain: 'content' },
  table: tableStyle,
  th: {
    ...stickyHeaderCellStyle,
    zIndex: 1,
    padding: `0 ${tokens.spacingHorizontalM}`,
    height: '36px',
    textAlign: 'start',
  },
  sortButton: {
    display: 'inline-flex',
    alignItems: 'center',
    gap: tokens.spacingHorizontalXS,
    maxWidth: '100%',
    border: 'none',
    background: 'none',
    padding: `${tokens.spacingVerticalXXS} 0`,
    font: 'inherit',
    color: 'inherit',
    cursor: 'pointer',
    borderRadius: tokens.borderRadiusSmall,
    ':hover': { color: tokens.colorNeutralForeground1 },
    ':focus-visible': { outline: `${tokens.strokeWidthThick} solid ${tokens.colorStrokeFocus2}` },
  },
  sortIdle: { color: tokens.colorNeutralForeground4 },
  sortActive: { color: tokens.colorBrandForeground1 },
  end: { textAlign: 'end' },
  td: {
    padding: `${tokens.spacingVerticalXS} ${tokens.spacingHorizontalM}`,
    height: `${ROW_ESTIMATE_PX}px`,
    boxSizing: 'border-box',
    borderBottom: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke3}`,
    overflow: 'hidden',
    textOverflow: 'ellipsis',
    whiteSpace: 'nowrap',
    color: tokens.colorNeutralForeground1,
  },
  row: { ':hover': { backgroundColor: tokens.colorNeutralBackground1Hover } },
  clickable: {
    cursor: 'pointer',
    ':focus-visible': { outline: `${tokens.strokeWidthThick} solid ${tokens.colorStrokeFocus2}`, outlineOffset: '-2px' },
  },
  groupRow: { backgroundColor: tokens.colorNeutralBackground3, fontWeight: tokens.fontWeightSemibold },
  firstCell: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalXS, minWidth: 0 },
  cellText: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
  toggle: { minWidth: '24px', width: '24px', height: '24px', flexShrink: 0 },
  toggleSpacer: { width: '24px', flexShrink: 0 },
  detail: {
    padding: tokens.spacingHorizontalM,
    backgroundColor: tokens.colorNeutralBackground2,
    borderBottom: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke3}`,
  },
  message: {
    padding: `${tokens.spacingVerticalXXL} ${tokens.spacingHorizontalM}`,
    textAlign: 'center',
    color: tokens.colorNeutralForeground3,
  },
  spacer: { padding: 0, border: 'none' },
  pagerPlaceholder: {
    height: '41px',
    boxSizing: 'border-box',
    borderTop: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
  },
});

export interface DataTableProps<TData extends RowData> {
  /** Names the table for assistive technology. */
  label: string;
  columns: DataTableColumn<TData>[];
  /** Keep this reference stable (state, query data, useMemo): a new array rebuilds every row. */
  data: TData[];
  getRowId?: (row: TData, index: number) => string;
  /** Shows a spinner in an empty table, or a progress line above rows being refreshed. */
  loading?: boolean;
  /** Replaces "No data available" (e.g. "There are no incidents matching this criteria"). */
  emptyMessage?: string;
  /** Row click and Enter on a focused row. */
  onRowClick?: (row: TData) => void;
  /**
   * Server mode: `data` is the current page, already sorted, and `total` counts every record. Pass `state` from
   * `useDataTableState()` so the query can use the same sort and page.
   */
  manual?: boolean;
  total?: number;
  state?: DataTableStateHandle;
  /** Show the pagination bar and page the rows (default true). */
  paginate?: boolean;
  pageSizes?: readonly number[];
  defaultPageSize?: number;
  defaultSort?: { id: string; desc?: boolean };
  /** Keep sort and page in the URL query (default true); only one table per page should. */
  urlState?: boolean;
  /** The URL's sort direction parameter: `sortOrder=asc|desc` (default) or `sortDesc=true|false`. */
  sortDirectionParam?: SortDirectionParam;
  /** Group rows by these column ids; group rows show their record count and expand or collapse. */
  groupBy?: string[];
  /** Start with every group and tree row open. */
  defaultExpanded?: boolean;
  /** A detail panel under a row, opened by a chevron in its first cell. */
  renderDetail?: (row: TData) => ReactNode;
  /** Nested records shown as an expandable tree. */
  getSubRows?: (row: TData) => TData[] | undefined;
  /** The scroll area's maximum height (default 70vh); rows beyond it are virtualised. */
  maxHeight?: string;
  className?: string;
}

// The pagination bar (go-to-page input, page-size select, four buttons with tooltips) loads with the first paged
// table: an unpaged one (the health list) never needs it. Meanwhile an empty bar of the same height holds its place.
const PaginationBar = lazy(() => import('./pagination-bar').then((m) => ({ default: m.PaginationBar })));

function Pagination(props: PaginationBarProps) {
  const s = useStyles();
  return (
    <Suspense fallback={<div className={s.pagerPlaceholder} />}>
      <PaginationBar {...props} />
    </Suspense>
  );
}

const FALLBACK_VIEWPORT_PX = 600;

// The virtualizer's callbacks live at module scope: a new function per render would make it recompute the
// position of every row (10,000 of them) on each scroll frame.
const estimateSize = () => ROW_ESTIMATE_PX;
// the same, once a rendered row has shown the table's real row height (e.g. 37 px with avatars in a cell)
const rowSizeEstimators = new Map<number, () => number>();
const estimateRowSize = (px: number) => {
  let f = rowSizeEstimators.get(px);
  if (!f) rowSizeEstimators.set(px, (f = () => px));
  return f;
};
// with no layout (a hidden tab, a test DOM) sizes read 0: fall back to a screenful of estimated rows
// Columns without a fixed width get at least this much before the table scrolls sideways instead of squeezing them.
const FLEX_COLUMN_MIN_PX = 140;

/** The width below which the table scrolls horizontally: fixed pixel widths plus a floor for flexible columns. */
function minTableWidth(columns: readonly { columnDef: { meta?: { width?: string | number } } }[]): number {
  return columns.reduce((sum, c) => {
    const w = c.columnDef.meta?.width;
    const px = typeof w === 'number' ? w : typeof w === 'string' && /^\d+(\.\d+)?px$/.test(w) ? parseFloat(w) : NaN;
    return sum + (Number.isFinite(px) ? px : FLEX_COLUMN_MIN_PX);
  }, 0);
}

const observeRect = (instance: Virtualizer<HTMLDivElement, Element>, cb: (rect: { width: number; height: number }) => void) =>
  observeElementRect(instance, (rect) => cb(rect.height ? rect : { ...rect, height: FALLBACK_VIEWPORT_PX }));
const measureRow = (el: Element, entry: ResizeObserverEntry | undefined, instance: Virtualizer<HTMLDivElement, Element>) =>
  measureElement(el, entry, instance) || ROW_ESTIMATE_PX;
// the first render already fills a screen, instead of a window sized for a 0 px viewport
const INITIAL_RECT = { width: 0, height: FALLBACK_VIEWPORT_PX };

type Item<TData extends RowData> = { kind: 'row' | 'detail'; row: DataTableRow<TData> };

/**
 * The items of a window that intersect the viewport `[offset, offset + height)`, with two rows of margin either side
 * (the table header, sticky above the rows, is not part of the virtualizer's offsets).
 */
export function rowsInView<T extends { start: number; end: number }>(items: T[], offset: number, height: number): T[] {
  const margin = ROW_ESTIMATE_PX * 2;
  const first = items.findIndex((v) => v.end > offset - margin);
  if (first < 0) return items;
  let last = first;
  while (last + 1 < items.length && items[last + 1].start < offset + height + margin) last++;
  return items.slice(first, last + 1);
}

/** How many rows of the window `next` the rendered window `shown` does not hold (both are index ranges). */
export function enteringRows(next: readonly { index: number }[], shown: readonly { index: number }[]): number {
  if (!next.length || !shown.length) return 0;
  const from = next[0].index;
  const to = next[next.length - 1].index;
  const overlap = Math.max(0, Math.min(to, shown[shown.length - 1].index) - Math.max(from, shown[0].index) + 1);
  return to - from + 1 - overlap;
}

function leafCount<TData extends RowData>(row: DataTableRow<TData>): number {
  return row.subRows.reduce((n, r) => n + (r.subRows.length && r.getIsGrouped() ? leafCount(r) : 1), 0);
}

function leafRecords<TData extends RowData>(row: DataTableRow<TData>): TData[] {
  return row.getLeafRows().filter((r) => !r.getIsGrouped()).map((r) => r.original);
}

function isInteractive(target: EventTarget | null, row: HTMLElement): boolean {
  const el = (target as HTMLElement | null)?.closest?.('a, button, input, select, textarea, [role="button"], [role="menuitem"]');
  return !!el && el !== row && row.contains(el);
}

/**
 * The class names a row needs, worked out once per table (and per column for the cells) rather than by a style hook
 * and `mergeClasses` in each of the rows a scroll frame renders.
 */
interface RowLook {
  /** per leaf column: the cell's class (with `align: 'end'` merged in) */
  cells: string[];
  row: string;
  clickableRow: string;
  groupRow: string;
  firstCell: string;
  cellText: string;
  count: string;
  toggle: string;
  toggleSpacer: string;
  detail: string;
}

interface RowViewProps<TData extends RowData> {
  row: DataTableRow<TData>;
  look: RowLook;
  index: number;
  /** Passed so the memoised row re-renders when it opens or closes. */
  expanded: boolean;
  kind: 'row' | 'detail';
  columnCount: number;
  /** Detail rows: measured by the virtualizer (their height varies). */
  measure: (el: HTMLTableRowElement | null) => void;
  /** Plain rows: one of them is measured once for the height of all (see DataTable). */
  measureRow: ((el: HTMLTableRowElement | null) => void) | undefined;
  onRowClick?: (row: TData) => void;
  renderDetail?: (row: TData) => ReactNode;
  expandable: boolean;
}

/** One row; memoised so scrolling 10,000 rows only renders the rows entering the window. */
const RowView = memo(function RowView<TData extends RowData>({
  row,
  look: s,
  index,
  expanded,
  kind,
  columnCount,
  measure,
  measureRow,
  onRowClick,
  renderDetail,
  expandable,
}: RowViewProps<TData>) {
  if (kind === 'detail') {
    return (
      <tr data-index={index} ref={measure}>
        <td colSpan={columnCount} className={s.detail}>
          {renderDetail?.(row.original)}
        </td>
      </tr>
    );
  }
  const grouped = row.getIsGrouped();
  const cells = row.getAllCells();
  const groupedCell = grouped ? cells.find((c) => c.getIsGrouped()) : undefined;
  const clickable = !!onRowClick && !grouped;
  const canExpand = row.getCanExpand();
  const toggle = (
    <Button
      className={s.toggle}
      size="small"
      appearance="transparent"
      aria-label={expanded ? 'Collapse row' : 'Expand row'}
      aria-expanded={expanded}
      icon={expanded ? <ChevronDown16Regular /> : <ChevronRight16Regular />}
      onClick={(e) => {
        e.stopPropagation();
        row.toggleExpanded();
      }}
    />
  );

  const activate = (e: MouseEvent<HTMLTableRowElement> | KeyboardEvent<HTMLTableRowElement>) => {
    if (isInteractive(e.target, e.currentTarget)) return;
    if (grouped) row.toggleExpanded();
    else onRowClick?.(row.original);
  };

  const renderCell = (cell: Cell<DataTableFeatures, TData, unknown>, i: number) => {
    let content: ReactNode;
    if (grouped && groupedCell) {
      if (i === 0) {
        const leaves = leafCount(row);
        content = (
          <span className={s.firstCell}>
            {toggle}
            <span className={s.cellText}>{flexRender(groupedCell.column.columnDef.cell, groupedCell.getContext())}</span>
            <span className={s.count} aria-label={`${leaves} rows`} role="img">
              {leaves > 99_999 ? '99999+' : leaves}
            </span>
          </span>
        );
      } else if (cell.getIsGrouped()) content = null;
      else content = cell.column.columnDef.meta?.groupCell?.(leafRecords(row)) ?? null;
    } else if (cell.getIsPlaceholder()) {
      content = null;
    } else {
      const rendered = flexRender(cell.column.columnDef.cell, cell.getContext());
      content =
        i === 0 && (expandable || row.depth > 0) ? (
          <span className={s.firstCell} style={{ paddingInlineStart: `${row.depth * 20}px` }}>
            {canExpand ? toggle : <span className={s.toggleSpacer} />}
            <span className={s.cellText}>{rendered}</span>
          </span>
        ) : (
          rendered
        );
    }
    return (
      <td key={cell.id} className={s.cells[i]}>
        {content}
      </td>
    );
  };

  return (
    <tr
      data-index={index}
      ref={measureRow}
      className={grouped ? s.groupRow : clickable ? s.clickableRow : s.row}
      tabIndex={clickable ? 0 : undefined}
      onClick={clickable || grouped ? activate : undefined}
      onKeyDown={
        clickable
          ? (e) => {
              if (e.key === 'Enter' && e.currentTarget === e.target) activate(e);
            }
          : undefined
      }
    >
      {cells.map(renderCell)}
    </tr>
  );
}) as <TData extends RowData>(props: RowViewProps<TData>) => ReactNode;

function HeaderCell<TData extends RowData>({ header }: { header: Header<DataTableFeatures, TData, unknown> }) {
  const s = useStyles();
  const column = header.column;
  const meta = column.columnDef.meta;
  const content = header.isPlaceholder ? null : flexRender(column.columnDef.header, header.getContext());
  if (!column.getCanSort()) {
    return (
      <th scope="col" colSpan={header.colSpan} className={mergeClasses(s.th, meta?.align === 'end' && s.end)}>
        {content}
      </th>
    );
  }
  const sorted = column.getIsSorted();
  const icon =
    sorted === 'asc' ? (
      <ArrowSortUp16Filled className={s.sortActive} />
    ) : sorted === 'desc' ? (
      <ArrowSortDown16Filled className={s.sortActive} />
    ) : (
      <ArrowSort16Regular className={s.sortIdle} />
    );
  return (
    <th
      scope="col"
      colSpan={header.colSpan}
      aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : 'none'}
      className={mergeClasses(s.th, meta?.align === 'end' && s.end)}
    >
      {/* a real button: Enter and Space sort, and it is in the tab order */}
      <button type="button" className={s.sortButton} onClick={() => column.toggleSorting(undefined, false)}>
        <span className={s.cellText}>{content}</span>
        {icon}
      </button>
    </th>
  );
}

/** Whether the element's content is larger than its box (it scrolls), kept current as either changes size. */
function useOverflowing(ref: { current: HTMLElement | null }): boolean {
  const [overflowing, setOverflowing] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const check = () => setOverflowing(el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1);
    const observer = new ResizeObserver(check);
    observer.observe(el);
    if (el.firstElementChild) observer.observe(el.firstElementChild);
    check();
    return () => observer.disconnect();
  }, [ref]);
  return overflowing;
}

/**
 * The console's one table (spec 000 §2 "Shared tables"): sortable columns, optional grouping and row expansion,
 * virtualised rows, row click, empty and loading states, and the pagination bar. Client mode sorts and pages
 * `data` itself; server mode (`manual`) shows `data` as the current page of `total` records. Sort and page live
 * in the URL query unless `urlState` is false.
 */
export function DataTable<TData extends RowData>({
  label,
  columns,
  data,
  getRowId,
  loading,
  emptyMessage = EMPTY_TABLE_MESSAGE,
  onRowClick,
  manual = false,
  total,
  state: controlled,
  paginate = true,
  pageSizes = PAGE_SIZES,
  defaultPageSize,
  defaultSort,
  urlState = true,
  sortDirectionParam,
  groupBy,
  defaultExpanded = false,
  renderDetail,
  getSubRows,
  maxHeight = '70vh',
  className,
}: DataTableProps<TData>) {
  const s = useStyles();
  const own = useDataTableState({ defaultSort, defaultPageSize, pageSizes, url: urlState && !controlled, sortDirectionParam });
  const { state, setSorting, setPagination } = controlled ?? own;
  const [expanded, setExpanded] = useState<ExpandedState>(defaultExpanded ? true : {});
  const grouping = useMemo(() => groupBy ?? [], [groupBy]);
  // unpaged tables still go through the paginated model; one page holding everything leaves the rows untouched
  const pagination = useMemo(
    () => (paginate ? state.pagination : { pageIndex: 0, pageSize: Number.MAX_SAFE_INTEGER }),
    [paginate, state.pagination],
  );

  const table = useTable({
    features: dataTableFeatures,
    columns,
    data,
    getRowId,
    getSubRows,
    getRowCanExpand: renderDetail ? () => true : undefined,
    state: { sorting: state.sorting, pagination, grouping, expanded },
    onSortingChange: setSorting,
    onPaginationChange: setPagination,
    onExpandedChange: setExpanded,
    manualSorting: manual,
    manualPagination: manual || !paginate,
    rowCount: manual ? total : undefined,
    // a URL-restored page must survive the first data load
    autoResetPageIndex: false,
    autoResetExpanded: false,
    // a table with a default sort always keeps one: "no sort" could not be told apart from "default" in the URL
    enableSortingRemoval: !defaultSort,
    enableMultiSort: false,
    // every column sorts ascending first, numbers included: one rule the user can predict
    sortDescFirst: false,
    groupedColumnMode: false,
  });

  const rows = table.getRowModel().rows;
  const hasDetail = !!renderDetail;
  // With detail panels the list interleaves rows and their open panels; without, it is the rows themselves (no
  // second 10,000-entry array when a filter change brings 10,000 rows).
  const items = useMemo(() => {
    if (!hasDetail) return null;
    const out: Item<TData>[] = [];
    for (const row of rows) {
      out.push({ kind: 'row', row });
      if (!row.getIsGrouped() && row.getIsExpanded()) out.push({ kind: 'detail', row });
    }
    return out;
    // `expanded` changes which detail rows exist without changing `rows`; an inline renderDetail must not
    // rebuild the list (and with it every row's measurements) on each render
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [rows, hasDetail, expanded]);
  const itemCount = items ? items.length : rows.length;

  const [rowPx, setRowPx] = useState(ROW_ESTIMATE_PX);
  const scrollRef = useRef<HTMLDivElement>(null);
  const getScrollElement = useCallback(() => scrollRef.current, []);
  const overflowing = useOverflowing(scrollRef);
  // stable while the rows are: a new key function makes the virtualizer rebuild every row's measurements
  const getItemKey = useCallback(
    (i: number) => (items ? `${items[i].kind}:${items[i].row.id}` : rows[i].id),
    [items, rows],
  );
  const virtualizer = useVirtualizer({
    count: itemCount,
    getScrollElement,
    estimateSize: rowPx === ROW_ESTIMATE_PX ? estimateSize : estimateRowSize(rowPx),
    overscan: ROW_OVERSCAN,
    getItemKey,
    initialRect: INITIAL_RECT,
    observeElementRect: observeRect,
    measureElement: measureRow,
  });
  const measure = useCallback((el: HTMLTableRowElement | null) => virtualizer.measureElement(el), [virtualizer]);
  // Plain rows all have one height (cells are single-line and clip): the first row rendered is measured once and its
  // height used for every row, instead of observing each row with a ResizeObserver and reading its box as it
  // scrolls into view (the bulk of a scroll frame's commit at 10,000 rows). A row that grows later (chips expanded in
  // place) still lays out in flow; only the window's arithmetic is off by the difference.
  const measuredRow = useRef(false);
  const measurePlainRow = useCallback((el: HTMLTableRowElement | null) => {
    if (!el || measuredRow.current) return;
    const px = Math.round(el.getBoundingClientRect().height);
    if (!px) return; // no layout (a hidden tab, a test DOM): keep the estimate and measure a later row
    measuredRow.current = true;
    setRowPx(px);
  }, []);

  const leafColumns = table.getAllLeafColumns();
  const columnCount = leafColumns.length;
  const look = useMemo<RowLook>(
    () => ({
      cells: leafColumns.map((c) => mergeClasses(s.td, c.columnDef.meta?.align === 'end' && s.end)),
      row: s.row,
      clickableRow: mergeClasses(s.row, s.clickable),
      groupRow: mergeClasses(s.row, s.groupRow),
      firstCell: s.firstCell,
      cellText: s.cellText,
      count: s.count,
      toggle: s.toggle,
      toggleSpacer: s.toggleSpacer,
      detail: s.detail,
    }),
    [s, leafColumns],
  );
  // A step that brings in a few rows (wheel, arrow keys) shows them in the frame it scrolls, as does the first
  // render. A jump that replaces most of the window (dragging the scroll bar, a 100-row step a frame) follows the
  // scroll position at transition priority: React renders the new rows in slices between frames instead of one long
  // task, and a newer position interrupts a stale render. While such a jump is still scrolling only the rows in view
  // are rendered: its overscan rows would be replaced by the next jump before anyone saw them. They follow (at
  // transition priority) once the scroll settles, so a window at rest keeps its 10 rows of overscan either side.
  const latestItems = virtualizer.getVirtualItems();
  const committedItems = useRef(latestItems);
  const jump = enteringRows(latestItems, committedItems.current) > ROW_OVERSCAN;
  const viewport = virtualizer.scrollRect?.height ?? FALLBACK_VIEWPORT_PX;
  const target = jump && virtualizer.isScrolling ? rowsInView(latestItems, virtualizer.scrollOffset ?? 0, viewport) : latestItems;
  const deferredItems = useDeferredValue(target);
  const virtualItems = jump ? deferredItems : latestItems;
  useLayoutEffect(() => {
    committedItems.current = virtualItems;
  });
  const totalSize = virtualizer.getTotalSize();
  const padTop = virtualItems.length ? virtualItems[0].start : 0;
  const padBottom = virtualItems.length ? Math.max(0, totalSize - virtualItems[virtualItems.length - 1].end) : 0;
  const expandable = !!renderDetail || !!getSubRows;

  const rowCount = manual ? (total ?? data.length) : table.getPrePaginatedRowModel().rows.length;
  const pageCount = Math.max(1, Math.ceil(rowCount / pagination.pageSize));
  // a shared link or a shrinking list can point past the last page: move to the last page that exists
  const pastEnd = paginate && rowCount > 0 && pagination.pageIndex > pageCount - 1;
  useEffect(() => {
    if (pastEnd) setPagination((p) => ({ ...p, pageIndex: pageCount - 1 }));
  }, [pastEnd, pageCount, setPagination]);

  let body: ReactNode;
  if (!rows.length) {
    body = (
      <tr>
        <td colSpan={columnCount} className={s.message}>
          {loading ? <Spinner size="small" label="Loading…" /> : <Text role="status">{emptyMessage}</Text>}
        </td>
      </tr>
    );
  } else {
    body = (
      <>
        {padTop > 0 && (
          <tr aria-hidden="true">
            <td colSpan={columnCount} className={s.spacer} style={{ height: padTop }} />
          </tr>
        )}
        {virtualItems.map((v) => {
          const row = items ? items[v.index]?.row : rows[v.index];
          // a deferred window can still hold an index past the end of rows that just shrank
          if (!row) return null;
          return (
            <RowView
              key={v.key}
              row={row}
              look={look}
              index={v.index}
              kind={items ? items[v.index].kind : 'row'}
              expanded={row.getIsExpanded()}
              columnCount={columnCount}
              measure={measure}
              measureRow={measuredRow.current ? undefined : measurePlainRow}
              onRowClick={onRowClick}
              renderDetail={renderDetail}
              expandable={expandable}
            />
          );
        })}
        {padBottom > 0 && (
          <tr aria-hidden="true">
            <td colSpan={columnCount} className={s.spacer} style={{ height: padBottom }} />
          </tr>
        )}
      </>
    );
  }

  return (
    <div className={mergeClasses(s.root, className)}>
      {loading && rows.length > 0 && <div className={s.progress} role="progressbar" aria-label="Refreshing" />}
      {/* a scroller whose rows cannot take focus is a tab stop itself while it scrolls, so a keyboard can scroll it */}
      <div
        ref={scrollRef}
        className={s.scroll}
        style={{ maxHeight }}
        {...(overflowing && !onRowClick && { tabIndex: 0, role: 'region', 'aria-label': label })}
      >
        <table className={s.table} style={{ minWidth: minTableWidth(leafColumns) }} aria-label={label} aria-busy={loading || undefined}>
          <colgroup>
            {leafColumns.map((c) => (
              <col key={c.id} style={c.columnDef.meta?.width ? { width: c.columnDef.meta.width } : undefined} />
            ))}
          </colgroup>
          <thead>
            {table.getHeaderGroups().map((group) => (
              <tr key={group.id}>
                {group.headers.map((header) => (
                  <HeaderCell key={header.id} header={header} />
                ))}
              </tr>
            ))}
          </thead>
          <tbody>{body}</tbody>
        </table>
      </div>
      {paginate && (
        <Pagination
          pageIndex={pagination.pageIndex}
          pageCount={pageCount}
          pageSize={pagination.pageSize}
          pageSizes={pageSizes}
          total={rowCount}
          onPageChange={(pageIndex) => setPagination((p) => ({ ...p, pageIndex }))}
          onPageSizeChange={(pageSize) => setPagination((p) => ({ ...p, pageSize }))}
        />
      )}
    </div>
  );
}
