import type { ReactNode } from 'react';
import {
  columnGroupingFeature,
  createColumnHelper,
  createExpandedRowModel,
  createGroupedRowModel,
  createPaginatedRowModel,
  rowExpandingFeature,
  rowPaginationFeature,
  rowSortingFeature,
  sortFn_alphanumeric,
  sortFn_basic,
  sortFn_datetime,
  sortFn_text,
  tableFeatures,
  type CellData,
  type ColumnDef,
  type Row,
  type RowData,
  type TableFeatures,
} from '@tanstack/react-table';
import { createKeyedSortedRowModel } from './sorted-row-model';

/**
 * The one feature set every DataTable registers (TanStack Table v9 tree-shakes by feature). Module scope on
 * purpose: a new object per render would rebuild every row model.
 */
export const dataTableFeatures = tableFeatures({
  rowSortingFeature,
  columnGroupingFeature,
  rowExpandingFeature,
  rowPaginationFeature,
  groupedRowModel: createGroupedRowModel(),
  // TanStack's sorted row model with each row's sort value computed once (sorted-row-model.ts)
  sortedRowModel: createKeyedSortedRowModel(),
  expandedRowModel: createExpandedRowModel(),
  paginatedRowModel: createPaginatedRowModel(),
  sortFns: { alphanumeric: sortFn_alphanumeric, basic: sortFn_basic, datetime: sortFn_datetime, text: sortFn_text },
});

export type DataTableFeatures = typeof dataTableFeatures;

/** A column of a DataTable: TanStack's column definition typed with the table's features. */
export type DataTableColumn<TData extends RowData> = ColumnDef<DataTableFeatures, TData, any>;
export type DataTableRow<TData extends RowData> = Row<DataTableFeatures, TData>;

/**
 * Typed column builders: `const col = dataTableColumns<Agent>(); col.accessor('name', { header: 'Name' })`.
 * The accessor's value type flows into `cell`.
 */
export function dataTableColumns<TData extends RowData>() {
  return createColumnHelper<DataTableFeatures, TData>();
}

/** Spec 000 §9: the page-size choices every table offers unless it narrows them (agents: 50, 100, 200). */
export const PAGE_SIZES = [5, 10, 25, 50, 100, 150, 200, 250, 300, 500, 1000] as const;
export const DEFAULT_PAGE_SIZE = 50;
/** Spec 000 §9: virtual rows are estimated at 35 px with 10 rows of overscan. */
export const ROW_ESTIMATE_PX = 35;
export const ROW_OVERSCAN = 10;
export const EMPTY_TABLE_MESSAGE = 'No data available';

declare module '@tanstack/table-core' {
  interface ColumnMeta<TFeatures extends TableFeatures, TData extends RowData, TValue extends CellData = CellData> {
    /** A CSS width for the column (`'120px'`, `'20%'`); columns without one share the rest. */
    width?: string;
    /** Right-align numbers so digits line up. */
    align?: 'start' | 'end';
    /** What a group row shows in this column, from the group's leaf records (e.g. "3/5 passing"). */
    groupCell?: (rows: TData[]) => ReactNode;
  }
}
