import { useCallback, useMemo, useState } from 'react';
import type { PaginationState, SortingState, Updater } from '@tanstack/react-table';
import { useUrlState } from '../../lib/url-state';
import { DEFAULT_PAGE_SIZE, PAGE_SIZES } from './columns';

/** What a table's view is: its sort and its page. Server-mode callers put this in their query key. */
export interface DataTableState {
  sorting: SortingState;
  pagination: PaginationState;
}

/**
 * How the URL keeps the sort direction: `sortOrder=asc|desc` (the default, most of the console's lists) or
 * `sortDesc=true|false` (the health dashboard's name for it, spec 000 "Health dashboard").
 */
export type SortDirectionParam = 'sortOrder' | 'sortDesc';

export interface DataTableStateOptions {
  /** The sort before the user picks one; a table with a default sort always keeps some sort. */
  defaultSort?: { id: string; desc?: boolean };
  defaultPageSize?: number;
  /** The page sizes offered; a page size in the URL outside them falls back to the default. */
  pageSizes?: readonly number[];
  /**
   * Keep sort and page in the URL query as `sortBy`, `sortOrder` (or `sortDesc`), `pageIndex`, `pageSize` (default
   * true), so a shared link restores the view. Only one table per page can do this; others keep their state locally.
   */
  url?: boolean;
  /**
   * `sortDesc` keeps the direction as `sortDesc=true|false` (left out while it is the default direction) and still
   * reads an older link's `sortOrder=asc|desc`, which the next sort change removes. Default `sortOrder`.
   */
  sortDirectionParam?: SortDirectionParam;
}

export interface DataTableStateHandle {
  state: DataTableState;
  setSorting: (updater: Updater<SortingState>) => void;
  setPagination: (updater: Updater<PaginationState>) => void;
}

function apply<T>(updater: Updater<T>, prev: T): T {
  return typeof updater === 'function' ? (updater as (p: T) => T)(prev) : updater;
}

/**
 * Sort and page state for a DataTable, from the URL (default) or local state. A new sort or page size goes back
 * to the first page.
 */
export function useDataTableState(options: DataTableStateOptions = {}): DataTableStateHandle {
  const {
    defaultSort,
    defaultPageSize = DEFAULT_PAGE_SIZE,
    pageSizes = PAGE_SIZES,
    url = true,
    sortDirectionParam = 'sortOrder',
  } = options;
  const defaultDesc = !!defaultSort?.desc;
  const bySortDesc = sortDirectionParam === 'sortDesc';
  const defaults = {
    sortBy: defaultSort?.id ?? '',
    // in sortDesc mode sortOrder is only read (an old link), so its default is "absent"
    sortOrder: bySortDesc ? '' : defaultDesc ? 'desc' : 'asc',
    // '' is "not in the URL": then sortOrder (an old link) or the default direction decides
    sortDesc: '',
    pageIndex: 0,
    pageSize: defaultPageSize,
  };
  const [fromUrl, setUrl] = useUrlState(defaults);
  const [local, setLocal] = useState(defaults);
  const raw = url ? fromUrl : local;
  const set = url ? setUrl : (patch: Partial<typeof defaults>) => setLocal((prev) => ({ ...prev, ...patch }));

  const desc = bySortDesc
    ? raw.sortDesc === 'true' || (raw.sortDesc !== 'false' && (raw.sortOrder ? raw.sortOrder === 'desc' : defaultDesc))
    : raw.sortOrder === 'desc';
  const state = useMemo<DataTableState>(() => {
    const pageSize = pageSizes.includes(raw.pageSize) ? raw.pageSize : defaultPageSize;
    const pageIndex = Number.isInteger(raw.pageIndex) && raw.pageIndex > 0 ? raw.pageIndex : 0;
    return {
      sorting: raw.sortBy ? [{ id: raw.sortBy, desc }] : [],
      pagination: { pageIndex, pageSize },
    };
  }, [raw.sortBy, desc, raw.pageIndex, raw.pageSize, pageSizes, defaultPageSize]);

  const setSorting = useCallback(
    (updater: Updater<SortingState>) => {
      const [first] = apply(updater, state.sorting);
      const nextDesc = !!first?.desc;
      set(
        bySortDesc
          ? { sortBy: first?.id ?? '', sortDesc: nextDesc === defaultDesc ? '' : String(nextDesc), sortOrder: '', pageIndex: 0 }
          : { sortBy: first?.id ?? '', sortOrder: nextDesc ? 'desc' : 'asc', pageIndex: 0 },
      );
    },
    [state.sorting, url, setUrl, bySortDesc, defaultDesc],
  );
  const setPagination = useCallback(
    (updater: Updater<PaginationState>) => {
      const next = apply(updater, state.pagination);
      const sizeChanged = next.pageSize !== state.pagination.pageSize;
      set({ pageSize: next.pageSize, pageIndex: sizeChanged ? 0 : Math.max(0, next.pageIndex) });
    },
    [state.pagination, url, setUrl],
  );
  return { state, setSorting, setPagination };
}
