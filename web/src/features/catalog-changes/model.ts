import type { CatalogChangesSearchRequest } from '@contracts/catalog-api';
import { DEFAULT_TIME_RANGE, resolveTimeRange, timeRangeFromParams, type TimeRange } from '../../lib/time-range';

/** Spec 001 §9: 200 changes a page, newest first, the last 2 days. */
export const CHANGES_PAGE_SIZE = 200;
export const CHANGES_PAGE_SIZES = [50, 100, 200, 500] as const;
export const CHANGES_DEFAULT_SORT = { id: 'created_at', desc: true } as const;

/** Spec 001 §9 "Change severities", most severe first (the search reads one as "this and above"). */
export { CHANGE_SEVERITIES } from '@contracts/catalog-api';

/** The fields the arbitrary filter may name (spec 001 §2), each its own URL parameter. */
export const ARBITRARY_FIELDS = ['id', 'summary', 'source', 'created_by', 'external_created_by'] as const;
export type ArbitraryField = (typeof ARBITRARY_FIELDS)[number];

/** An item's related changes: its own, its parents' (upstream), its children's (downstream) or both. */
export const TYPE_FILTERS = ['all', 'upstream', 'downstream'] as const;
export type TypeFilter = (typeof TYPE_FILTERS)[number];

/**
 * The filters as the URL keeps them, under the reference UI's names. `changeType`, `configTypes` and `tags` are
 * tri-state lists: `value:1` keeps, `value:-1` leaves out (`tags` values are `key____value:1`).
 */
export type ChangeFilters = {
  changeType: string;
  severity: string;
  configTypes: string;
  configType: string;
  tags: string;
  id: string;
  summary: string;
  source: string;
  created_by: string;
  external_created_by: string;
  type_filter: string;
};

export const CHANGE_FILTER_DEFAULTS: ChangeFilters = {
  changeType: '',
  severity: '',
  configTypes: '',
  configType: '',
  tags: '',
  id: '',
  summary: '',
  source: '',
  created_by: '',
  external_created_by: '',
  type_filter: '',
};

/** One entry of a tri-state list. */
export interface TriState {
  value: string;
  exclude: boolean;
}

/** `a:1,b:-1` → [{a, keep}, {b, leave out}]; entries without a state read as kept, `:0` entries are dropped. */
export function parseTriState(raw: string): TriState[] {
  if (!raw) return [];
  return raw
    .split(',')
    .map((item) => {
      const at = item.lastIndexOf(':');
      const state = at < 0 ? 1 : Number(item.slice(at + 1));
      const value = (at < 0 ? item : item.slice(0, at)).replaceAll('||||', ',');
      return { value, state };
    })
    .filter((e) => e.value && (e.state === 1 || e.state === -1))
    .map((e) => ({ value: e.value, exclude: e.state === -1 }));
}

export function formatTriState(entries: TriState[]): string {
  return entries.map((e) => `${e.value.replaceAll(',', '||||')}:${e.exclude ? -1 : 1}`).join(',');
}

/** The search API's list form: `a,!b`. */
function apiList(entries: TriState[]): string | undefined {
  return entries.length ? entries.map((e) => `${e.exclude ? '!' : ''}${e.value}`).join(',') : undefined;
}

/** `key____value` tags as the search API's selector: `k=v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`. */
export function tagSelector(entries: TriState[]): string | undefined {
  const byKey = new Map<string, { values: string[]; exclude: boolean }>();
  for (const e of entries) {
    const [key, value = ''] = e.value.split('____');
    if (!key) continue;
    const slot = byKey.get(key) ?? { values: [], exclude: e.exclude };
    slot.values.push(value);
    byKey.set(key, slot);
  }
  const parts = [...byKey].map(([key, { values, exclude }]) =>
    values.length > 1 ? `${key} ${exclude ? 'notin' : 'in'} (${values.join(',')})` : `${key}${exclude ? '!' : ''}=${values[0]}`,
  );
  return parts.length ? parts.join(',') : undefined;
}

export interface ChangesPage {
  pageIndex: number;
  pageSize: number;
  sortBy: string;
  desc: boolean;
}

/** CatalogChangesSearchRequest (server/contracts/catalog-api.ts), as `POST /api/catalog/changes` takes it. */
export type ChangesSearchRequest = CatalogChangesSearchRequest & Record<string, string | number | boolean | undefined>;

/**
 * The search request of the page's filters, range and page: one function for /catalog/changes and an item's
 * Changes tab (`configId` set: that item and, by `type_filter`, its upstream or downstream). A relative range is
 * resolved at each call, so a refetch moves with the clock.
 */
export function changesSearchRequest(
  f: ChangeFilters,
  range: TimeRange,
  page: ChangesPage,
  opts: { configId?: string; includeDeleted: boolean },
  now = new Date(),
): ChangesSearchRequest {
  const { from, to } = resolveTimeRange(range, now);
  const req: ChangesSearchRequest = {
    from: from.toISOString(),
    to: to.toISOString(),
    page: page.pageIndex + 1,
    page_size: page.pageSize,
    sort_by: `${page.desc ? '-' : ''}${page.sortBy || 'created_at'}`,
    include_deleted_configs: opts.includeDeleted,
  };
  const set = (key: string, value: string | undefined) => {
    if (value) req[key] = value;
  };
  set('config_type', apiList(parseTriState(f.configTypes)) ?? (f.configType || undefined));
  set('type', apiList(parseTriState(f.changeType)));
  set('severity', f.severity || undefined);
  set('tags', tagSelector(parseTriState(f.tags)));
  set('summary', f.summary.trim() || undefined);
  set('source', f.source.trim() || undefined);
  // the reference's search has one creator field: external_created_by is matched through created_by
  set('created_by', f.created_by.trim() || f.external_created_by.trim() || undefined);
  if (opts.configId) {
    req.id = opts.configId;
    const tf = (TYPE_FILTERS as readonly string[]).includes(f.type_filter) ? f.type_filter : '';
    req.recursive = tf || 'none';
    if (tf) req.depth = 5;
  } else {
    set('id', f.id.trim() || undefined);
    req.recursive = 'none';
  }
  return req;
}

/** The range of the link, or the default (the last 2 days). */
export function changesTimeRange(params: URLSearchParams): TimeRange {
  return timeRangeFromParams(params, DEFAULT_TIME_RANGE);
}

/**
 * The breadcrumb's type crumb: shown only when exactly one config type is kept (the reference's rule), linking to
 * `/catalog?configType=`.
 */
export function breadcrumbConfigType(f: Pick<ChangeFilters, 'configTypes' | 'configType'>): string | null {
  const kept = parseTriState(f.configTypes);
  if (kept.length === 1 && !kept[0].exclude) return kept[0].value;
  if (!kept.length && f.configType) return f.configType;
  return null;
}

/**
 * The filters as the filter bar shows them: a `configType` from the catalog's link (`?configType=`) reads as that one
 * type kept in the Config Type list, so the dropdown says what the list is filtered by rather than "All".
 */
export function shownFilters(f: ChangeFilters): ChangeFilters {
  if (f.configTypes || !f.configType) return f;
  return { ...f, configTypes: formatTriState([{ value: f.configType, exclude: false }]) };
}
