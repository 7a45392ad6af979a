import { DEFAULT_TIME_RANGE, resolveTimeRange, timeRangeFromParams, type TimeRange } from '../../lib/time-range';

/** job_history.status as the reference writes it, and the two choices that are not one status. */
export const JOB_STATUSES = ['RUNNING', 'SUCCESS', 'WARNING', 'FAILED', 'STALE', 'SKIPPED'] as const;
/** The status filter: `!X` excludes X, `X` keeps only X, `all` keeps everything. Default: every status but SUCCESS. */
export const ALL = 'all';
export const DEFAULT_STATUS = '!SUCCESS';
/** Spec 001 §9: resource type filter choices, and where each kind's settings page is. */
export const JOB_RESOURCE_TYPES = ['canary', 'topology', 'config_scraper'] as const;
export const RESOURCE_TABLES: Record<string, string> = { canary: 'canaries', topology: 'topologies', config_scraper: 'config_scrapers' };
/** Spec 001 §9: 150 rows a page. */
export const JOB_PAGE_SIZE = 150;
export const JOB_PAGE_SIZES = [50, 100, 150, 500] as const;

/** The page's filters as the URL keeps them (`name`, `resourceType`, `status`, `duration` in ms). */
export type JobFilters = { name: string; resourceType: string; status: string; duration: string };
export const URL_DEFAULTS: JobFilters = { name: ALL, resourceType: ALL, status: DEFAULT_STATUS, duration: '' };

export function statusLabel(value: string): string {
  if (value === ALL) return 'All';
  if (value === DEFAULT_STATUS) return 'All but Success';
  const word = (s: string) => s.charAt(0) + s.slice(1).toLowerCase();
  return value.startsWith('!') ? `All but ${word(value.slice(1))}` : word(value);
}

const RANGE_KEYS = ['rangeType', 'timeRange'];

/**
 * What is wrong with the filters of a link, in words; null when they are fine. A bad value is said, not silently
 * dropped: the page would otherwise show rows that do not match what the link claims.
 */
export function filterProblem(f: JobFilters, params: URLSearchParams): string | null {
  const status = f.status.startsWith('!') ? f.status.slice(1) : f.status;
  if (f.status !== ALL && !(JOB_STATUSES as readonly string[]).includes(status)) {
    return `Unknown status "${f.status}": use one of ${JOB_STATUSES.join(', ')}, all, or !STATUS to leave one out.`;
  }
  if (f.resourceType !== ALL && !(JOB_RESOURCE_TYPES as readonly string[]).includes(f.resourceType)) {
    return `Unknown resource type "${f.resourceType}": use one of ${JOB_RESOURCE_TYPES.join(', ')}.`;
  }
  if (f.duration && !/^\d{1,9}$/.test(f.duration.trim())) {
    return `Minimum duration "${f.duration}" is not a whole number of milliseconds.`;
  }
  if (RANGE_KEYS.some((k) => params.has(k))) {
    const none = { ...DEFAULT_TIME_RANGE };
    if (timeRangeFromParams(params, none) === none) return 'The time range in this link is not valid.';
  }
  return null;
}

/** The range of the link, or the default (the last 2 days). */
export function jobTimeRange(params: URLSearchParams): TimeRange {
  return timeRangeFromParams(params, DEFAULT_TIME_RANGE);
}

export interface JobPage {
  pageIndex: number;
  pageSize: number;
  sortBy: string;
  desc: boolean;
}

const SORT_COLUMNS: Record<string, string> = { created_at: 'created_at', name: 'name', duration: 'duration_millis', status: 'status' };
export const LIST_SELECT =
  'id,name,agent,hostname,resource_id,resource_type,resource_name,status,time_start,time_end,duration_millis,success_count,error_count,created_at,details';

/**
 * The /api/db query of the page (spec 001 §7 `GET /job_histories`): status neq/eq, name, resource_type,
 * duration_millis=gte., created_at gte/lte of the range resolved now, newest first, limit/offset.
 */
export function jobListQuery(f: JobFilters, range: TimeRange, page: JobPage, now = new Date()) {
  const { from, to } = resolveTimeRange(range, now);
  const query: Record<string, string | number | string[]> = {
    select: LIST_SELECT,
    created_at: [`gte.${from.toISOString()}`, `lte.${to.toISOString()}`],
    order: `${SORT_COLUMNS[page.sortBy] ?? 'created_at'}.${page.desc ? 'desc' : 'asc'}`,
    limit: page.pageSize,
    offset: page.pageIndex * page.pageSize,
  };
  if (f.status !== ALL) query.status = f.status.startsWith('!') ? `neq.${f.status.slice(1)}` : `eq.${f.status}`;
  if (f.name !== ALL) query.name = `eq.${f.name}`;
  if (f.resourceType !== ALL) query.resource_type = `eq.${f.resourceType}`;
  if (f.duration.trim()) query.duration_millis = `gte.${Number(f.duration.trim())}`;
  return query;
}
