/** Spec 001 §9: insights come 50 at a time, the next page loading within 300 px of the end. */
export const INSIGHTS_PAGE_SIZE = 50;
export const LOAD_MORE_WITHIN_PX = 300;
/** Spec 001 §9: an insight's message is shown as plain text, cut at 500 characters. */
export const MESSAGE_MAX = 500;

/** Spec 001 §9 "Severity values". */
export const INSIGHT_SEVERITIES = ['critical', 'blocker', 'high', 'medium', 'low', 'warning', 'info'] as const;
/** config_analysis.status as config-db writes it; `open` is the default filter. */
export const INSIGHT_STATUSES = ['open', 'resolved', 'silenced'] as const;
export const ALL = 'all';

/** The filters as the URL keeps them, under the reference UI's names (`type` is the analysis type). */
export type InsightFilters = {
  configType: string;
  type: string;
  severity: string;
  analyzer: string;
  component: string;
  status: string;
};

export const INSIGHT_FILTER_DEFAULTS: InsightFilters = { configType: '', type: '', severity: '', analyzer: '', component: '', status: 'open' };

const SORT_COLUMNS: Record<string, string> = {
  config: 'config_name',
  analysis_type: 'analysis_type',
  analyzer: 'analyzer',
  severity: 'severity',
  status: 'status',
  source: 'source',
  first_observed: 'first_observed',
  last_observed: 'last_observed',
};

export const LIST_SELECT =
  'id,config_id,analysis_type,analyzer,summary,severity,status,source,first_observed,last_observed,config_name,config:configs(id,name,config_class,type)';

export interface InsightSort {
  sortBy: string;
  desc: boolean;
}

/**
 * The /api/db/config_analysis_items query of a page (spec 001 §7 "Insights"): equality filters (severity
 * lower-cased), the item's id on its tab, the component's configs, a known sort column (default newest first).
 */
export function insightsQuery(
  f: InsightFilters,
  sort: InsightSort,
  pageIndex: number,
  opts: { configId?: string; componentConfigIds?: string[] } = {},
): Record<string, string | number> {
  const q: Record<string, string | number> = {
    select: LIST_SELECT,
    order: `${SORT_COLUMNS[sort.sortBy] ?? 'first_observed'}.${sort.desc ? 'desc' : 'asc'}`,
    limit: INSIGHTS_PAGE_SIZE,
    offset: pageIndex * INSIGHTS_PAGE_SIZE,
  };
  if (f.status && f.status !== ALL) q.status = `eq.${f.status}`;
  if (f.severity) q.severity = `eq.${f.severity.toLowerCase()}`;
  if (f.type) q.analysis_type = `eq.${f.type}`;
  if (f.analyzer) q.analyzer = `eq.${f.analyzer}`;
  if (f.configType) q.config_type = `eq.${f.configType}`;
  if (opts.configId) q.config_id = `eq.${opts.configId}`;
  else if (opts.componentConfigIds) {
    // a component with no linked configs has no insights: an impossible id keeps the answer empty
    q.config_id = `in.(${opts.componentConfigIds.length ? opts.componentConfigIds.join(',') : '00000000-0000-0000-0000-000000000000'})`;
  }
  return q;
}

/**
 * An insight's message as plain text, cut at 500 characters. Analyzers write HTML or Markdown; the markup goes
 * (tags dropped, entities decoded through an inert document: nothing in it runs or loads), the words stay.
 */
export function plainMessage(message: string | null | undefined, max = MESSAGE_MAX): string {
  if (!message) return '';
  let text = message;
  if (/<[a-z!/][^>]*>|&[a-z#0-9]+;/i.test(text) && typeof DOMParser !== 'undefined') {
    const doc = new DOMParser().parseFromString(text, 'text/html');
    doc.querySelectorAll('script, style').forEach((el) => el.remove());
    text = doc.body.textContent ?? '';
  }
  text = text.replace(/\s+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
