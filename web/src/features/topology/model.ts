import type { TopologyComponent } from '@contracts/topology';

/*
 * The topology page's decisions, free of React: the filters as they sit in the URL and as /api/topology reads them,
 * the sort choices, the card's size steps, and how a property is shown.
 */

/** The filters kept in the URL (a shared link restores them); '' means "All". */
export const TOPOLOGY_URL_DEFAULTS = {
  status: '',
  type: '',
  team: '',
  /** `k=v,k2=v2`, as /api/topology's `labels`. */
  labels: '',
  agent: '',
  showHidden: false,
  /** The selector parent a card was reached through (the breadcrumb goes through it). */
  refererId: '',
  /** `graph` shows the components as a graph (graph/, loaded on demand) instead of cards. */
  view: '',
};
export type TopologyFilters = typeof TOPOLOGY_URL_DEFAULTS;

/** Health order, worst first: the list shows unhealthy, warning, healthy, info (spec 001 §4). */
export const HEALTH_ORDER = ['unhealthy', 'warning', 'healthy', 'info'] as const;

export interface TopologySort {
  /** health, name, type, updated, or `field:<property>` for a headline property. */
  by: string;
  order: 'asc' | 'desc';
}
export const DEFAULT_SORT: TopologySort = { by: 'health', order: 'desc' };

const SORT_FIELDS: Record<string, { label: string; api: string }> = {
  health: { label: 'Health', api: 'status' },
  name: { label: 'Name', api: 'name' },
  type: { label: 'Type', api: 'type' },
  updated: { label: 'Last Updated', api: 'updated_at' },
};

/** The sort menu: the fixed fields, then each headline property of the cards shown (by name, once). */
export function sortChoices(components: readonly TopologyComponent[]): { value: string; label: string }[] {
  const fixed = Object.entries(SORT_FIELDS).map(([value, f]) => ({ value, label: f.label }));
  const names = new Set<string>();
  for (const c of components) for (const p of c.properties ?? []) if (p.headline && p.name) names.add(p.name);
  return [...fixed, ...[...names].sort().map((n) => ({ value: `field:${n}`, label: n }))];
}

/** The query /api/topology takes for these filters, this sort and (on /topology/{id}) this component. */
export function topologyQuery(f: TopologyFilters, sort: TopologySort, id?: string): Record<string, string> {
  const q: Record<string, string> = {};
  if (id) q.id = id;
  if (f.status) q.status = f.status;
  // a type filter lists every component of that type, not only the roots that are one (as the reference)
  if (f.type) Object.assign(q, { type: f.type, flatten: 'true' });
  if (f.team) q.team = f.team;
  if (f.labels) q.labels = f.labels;
  if (f.agent) q.agent_id = f.agent;
  q.hidden = f.showHidden ? 'true' : 'false';
  // only what is drawn: the cards and the children listed on them (roots and theirs at the top; the component, its
  // children and theirs when zoomed). The API's default depth 5 sends every component (10 MB at 20,000); the graph
  // view draws deeper levels
  if (f.view !== 'graph' && !f.type) q.depth = id ? '3' : '2';
  q.sortBy = SORT_FIELDS[sort.by]?.api ?? (sort.by.startsWith('field:') ? sort.by : 'status');
  q.sortOrder = sort.order;
  return q;
}

/** `k=v,k2=v2` ⇄ the picked pairs. */
export function parseLabels(s: string): string[] {
  return s.split(',').map((p) => p.trim()).filter((p) => p.includes('='));
}
export const formatLabels = (pairs: readonly string[]): string => pairs.join(',');

// ---------------------------------------------------------------------------------------------------------------
// card width and size, kept in the browser with the sort (spec 001 §2)

export const CARD_WIDTH = { min: 250, max: 768, step: 2, default: 554 } as const;
/** The reference's four card sizes; the slider's width picks the largest that fits. */
export const CARD_SIZES = { small: 198, medium: 258, large: 356, extra_large: 554 } as const;
export type CardSize = keyof typeof CARD_SIZES;

export function cardSize(width: number): CardSize {
  if (width >= CARD_SIZES.extra_large) return 'extra_large';
  if (width >= CARD_SIZES.large) return 'large';
  if (width >= CARD_SIZES.medium) return 'medium';
  return 'small';
}

export const TOPOLOGY_PREFS_KEY = 'topology.prefs';
export interface TopologyPrefs {
  width: number;
  sort: TopologySort;
}

/** The saved width and sort; anything missing or malformed falls back to the default. */
export function loadPrefs(storage: Pick<Storage, 'getItem'> | undefined = globalThis.localStorage): TopologyPrefs {
  let raw: unknown;
  try {
    raw = JSON.parse(storage?.getItem(TOPOLOGY_PREFS_KEY) ?? 'null');
  } catch {
    raw = null;
  }
  const r = (raw ?? {}) as Partial<{ width: unknown; sort: Partial<TopologySort> }>;
  const width = typeof r.width === 'number' && Number.isFinite(r.width) ? clampWidth(r.width) : CARD_WIDTH.default;
  const by = typeof r.sort?.by === 'string' && r.sort.by ? r.sort.by : DEFAULT_SORT.by;
  const order = r.sort?.order === 'asc' || r.sort?.order === 'desc' ? r.sort.order : DEFAULT_SORT.order;
  return { width, sort: { by, order } };
}

export function savePrefs(prefs: TopologyPrefs, storage: Pick<Storage, 'setItem'> | undefined = globalThis.localStorage): void {
  try {
    storage?.setItem(TOPOLOGY_PREFS_KEY, JSON.stringify(prefs));
  } catch {
    // private mode or a full quota: the choice lasts for this visit only
  }
}

export function clampWidth(w: number): number {
  const stepped = CARD_WIDTH.min + Math.round((w - CARD_WIDTH.min) / CARD_WIDTH.step) * CARD_WIDTH.step;
  return Math.min(CARD_WIDTH.max, Math.max(CARD_WIDTH.min, stepped));
}

// ---------------------------------------------------------------------------------------------------------------
// the card's contents

/**
 * The card's border: red for unhealthy, orange for warning, none otherwise (spec 001 §4). The rolled-up `status` (what
 * a failing check changes) decides; the runner's own `health` only while nothing has rolled up (`unknown`).
 */
export function borderColor(c: Pick<TopologyComponent, 'status' | 'health'>): 'red' | 'orange' | undefined {
  const h = c.status && c.status !== 'unknown' ? c.status : c.health;
  return h === 'unhealthy' ? 'red' : h === 'warning' ? 'orange' : undefined;
}

export type Property = NonNullable<TopologyComponent['properties']>[number];

export interface ShownProperty {
  label: string;
  /** What the card prints. */
  text: string;
  /** value of max, 0–100, when the property has a max: drawn as a bar. */
  percent?: number;
  /** Above 70 % of its max: the bar and value turn orange. */
  high?: boolean;
  url?: string;
  /** The exact value, for the tooltip. */
  title?: string;
}

const MAX_PROPERTIES = 6;

function bytes(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];
  let v = Math.abs(n);
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${n < 0 ? '-' : ''}${i === 0 ? v : v.toFixed(1).replace(/\.0$/, '')} ${units[i]}`;
}

/** A number in the property's unit: millicores as cores, bytes in KB/MB/GB, a percent unit as %. */
function inUnit(value: number, unit: string | undefined): string {
  if (unit?.startsWith('milli')) return (value / 1000).toFixed(2);
  if (unit === 'bytes') return bytes(value);
  if (unit === 'percent') return `${Number((value * 100).toFixed(2))}%`;
  return `${Number(value.toFixed(2))}${unit ? ` ${unit}` : ''}`;
}

/** Money as the reference prints it: k above 1000, fewer decimals as the amount grows. */
export function formatAmount(amount: number): string {
  if (amount > 1_000_000) return `${(amount / 1_000_000).toFixed(1)}M`;
  if (amount > 1000) return `${(amount / 1000).toFixed(1)}k`;
  if (amount > 100) return amount.toFixed(0);
  if (amount > 10) return amount.toFixed(1);
  return amount.toFixed(2);
}

/** One property as the card shows it, or undefined when it has nothing to show (hidden, empty). */
export function showProperty(p: Property): ShownProperty | undefined {
  if (p.type === 'hidden') return undefined;
  const label = p.label || p.name || '';
  if (p.type === 'url' && p.text) return { label, text: p.text.replace(/^https?:\/\//, ''), url: p.text, title: p.text };
  if (p.type === 'currency' && p.value !== undefined) {
    return { label, text: `$${formatAmount(p.value)}`, title: String(p.value) };
  }
  if (p.value !== undefined && p.max !== undefined && p.max > 0) {
    const percent = Math.max(0, Math.min(100, (p.value / p.max) * 100));
    return {
      label,
      text: `${inUnit(p.value, p.unit)} of ${inUnit(p.max, p.unit)}`,
      percent,
      high: percent > 70,
      title: `${inUnit(p.value, p.unit)} of ${inUnit(p.max, p.unit)} (${percent.toFixed(0)}%)`,
    };
  }
  if (p.value !== undefined) return { label, text: inUnit(p.value, p.unit), title: String(p.value) };
  if (p.text) return { label, text: p.text, title: p.text };
  return undefined;
}

/** The card's properties: headline ones as metrics, the rest in the panel (collapsed after 6). */
export function cardProperties(c: Pick<TopologyComponent, 'properties'>): {
  headline: ShownProperty[];
  rest: ShownProperty[];
  collapsed: number;
} {
  const headline: ShownProperty[] = [];
  const rest: ShownProperty[] = [];
  for (const p of c.properties ?? []) {
    const shown = showProperty(p);
    if (shown) (p.headline ? headline : rest).push(shown);
  }
  return { headline, rest, collapsed: Math.max(0, rest.length - MAX_PROPERTIES) };
}
export const PROPERTIES_SHOWN = MAX_PROPERTIES;
export const INSIGHTS_SHOWN = 5;

const healthRank = (s: string | null | undefined) => {
  const i = (HEALTH_ORDER as readonly string[]).indexOf(s ?? '');
  return i < 0 ? HEALTH_ORDER.length : i;
};

/** Children worst first, then by name: the card lists what needs attention on top. */
export function childrenByHealth(children: readonly TopologyComponent[]): TopologyComponent[] {
  return [...children].sort((a, b) => healthRank(a.status) - healthRank(b.status) || a.name.localeCompare(b.name));
}

/** `{healthy, unhealthy, warning}` counts with their links to /health (the card's "Health Checks" line). */
export function checkCounts(c: Pick<TopologyComponent, 'summary'>): { status: string; count: number }[] {
  const checks = c.summary?.checks ?? {};
  return (['unhealthy', 'warning', 'healthy'] as const)
    .map((status) => ({ status, count: checks[status] ?? 0 }))
    .filter((x) => x.count > 0);
}

/** The breadcrumb's ids after Dashboard: the ancestors from `path`, then the selector parent it came through. */
export function ancestorIds(c: Pick<TopologyComponent, 'id'> & { path?: unknown }, refererId?: string): string[] {
  const path = typeof c.path === 'string' ? c.path.split('.').filter(Boolean) : [];
  const ids = path.filter((id) => id !== c.id);
  if (refererId && refererId !== c.id && !ids.includes(refererId)) ids.push(refererId);
  return ids;
}

/** A path with its query string (empty values left out). */
export function href(path: string, query: Record<string, string | undefined> = {}): string {
  const qs = new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => !!e[1])).toString();
  return qs ? `${path}?${qs}` : path;
}
export const componentHref = (id: string, query?: Record<string, string | undefined>) =>
  href(`/topology/${encodeURIComponent(id)}`, query);
