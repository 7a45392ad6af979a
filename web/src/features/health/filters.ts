import type { CheckSummary } from '@contracts/health';

/*
 * The health dashboard's filtering, tabbing and grouping: pure functions over the fetched checks, memoised by the
 * page, so typing in the search box or toggling a label stays instant at 10,000 checks.
 */

/** The all-zero agent id: checks run by this console itself. */
export const LOCAL_AGENT_ID = '00000000-0000-0000-0000-000000000000';
/** Spec 000 §2: the namespace tab of checks without one. */
export const NO_NAMESPACE = 'none';
export const ALL_TAB = 'All';

export const NO_GROUPING = 'none';
/** Spec 000 §9: health defaults. */
export const HEALTH_DEFAULTS = { groupBy: 'canary_name', tabBy: 'namespace', hidePassing: true } as const;

/** Group By choices other than label keys (which come as `label:<key>`). */
export const GROUP_FIELDS: { value: string; label: string }[] = [
  { value: NO_GROUPING, label: 'No Grouping' },
  { value: 'canary_name', label: 'Group Name' },
  { value: 'name', label: 'Name' },
  { value: 'description', label: 'Description' },
  { value: 'type', label: 'Type' },
];

export const LABEL_PREFIX = 'label:';

/** Uptime in percent over the window; null without results. */
export function uptimePercent(c: Pick<CheckSummary, 'uptime'>): number | null {
  const total = c.uptime.passed + c.uptime.failed;
  return total ? (c.uptime.passed / total) * 100 : null;
}

/** Spec 000 §9: p95, falling back to p97, then p99. */
export function latencyOf(c: Pick<CheckSummary, 'latency'>): number | null {
  return c.latency.p95 ?? c.latency.p97 ?? c.latency.p99 ?? null;
}

/** Passing: healthy now and no failure in the window. */
export function isPassing(c: CheckSummary): boolean {
  return c.status === 'healthy' && c.uptime.failed === 0;
}

export function isLocalAgent(agentId: string | null | undefined): boolean {
  return !agentId || agentId === LOCAL_AGENT_ID;
}

// ---------------------------------------------------------------------------------------------------------------
// Label filters

export interface LabelFilterDef {
  key: string;
  /** Boolean labels (only "true"/"false") filter with a tri-state toggle; the rest with a multi-select. */
  kind: 'boolean' | 'multi';
  values: string[];
}

/** Label filter state: label id (`key=value`) to 1 (include) or -1 (exclude). */
export type LabelSelection = Record<string, 1 | -1>;

export const labelId = (key: string, value: string) => `${key}=${value}`;

function splitLabelId(id: string): [string, string] {
  const i = id.indexOf('=');
  return i < 0 ? [id, ''] : [id.slice(0, i), id.slice(i + 1)];
}

/** The label filters the checks allow, by key. */
export function labelFilterDefs(checks: readonly CheckSummary[]): LabelFilterDef[] {
  const byKey = new Map<string, Set<string>>();
  for (const c of checks) {
    for (const [k, v] of Object.entries(c.labels)) {
      let set = byKey.get(k);
      if (!set) byKey.set(k, (set = new Set()));
      set.add(v);
    }
  }
  return [...byKey.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, set]) => {
      const values = [...set].sort((a, b) => a.localeCompare(b));
      const boolean = values.every((v) => v === 'true' || v === 'false');
      return { key, kind: boolean ? 'boolean' : 'multi', values };
    });
}

/** Reads the `labels` query parameter (JSON of label id to 1 or -1); junk reads as no filter. */
export function parseLabelSelection(raw: string): LabelSelection {
  if (!raw) return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    const out: LabelSelection = {};
    for (const [k, v] of Object.entries(parsed)) if (v === 1 || v === -1) out[k] = v;
    return out;
  } catch {
    return {};
  }
}

export function serializeLabelSelection(sel: LabelSelection): string {
  return Object.keys(sel).length ? JSON.stringify(sel) : '';
}

/** Tri-state: choosing the active state again returns to off (0). */
export function toggleTriState(sel: LabelSelection, id: string, state: 1 | -1): LabelSelection {
  const next = { ...sel };
  if (next[id] === state) delete next[id];
  else next[id] = state;
  return next;
}

type Matcher = (c: CheckSummary) => boolean;

/** Included values of one key match any (OR); keys combine with AND; an excluded value never matches. */
function labelMatcher(sel: LabelSelection): Matcher | null {
  const include = new Map<string, Set<string>>();
  const exclude: [string, string][] = [];
  for (const [id, state] of Object.entries(sel)) {
    const [k, v] = splitLabelId(id);
    if (state === 1) {
      let set = include.get(k);
      if (!set) include.set(k, (set = new Set()));
      set.add(v);
    } else exclude.push([k, v]);
  }
  if (!include.size && !exclude.length) return null;
  const inc = [...include.entries()];
  return (c) => {
    for (const [k, v] of exclude) if (c.labels[k] === v) return false;
    for (const [k, values] of inc) if (!values.has(c.labels[k])) return false;
    return true;
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Filtering and tabs

export interface CheckFilter {
  hidePassing: boolean;
  labels: LabelSelection;
  /** Case-insensitive match on name, description or endpoint. */
  query: string;
}

/**
 * The search text the query matches, per check; built once per fetched array. The summary carries no endpoint
 * (it lives in the check's spec, fetched by the drawer), so name, description and group name are searched.
 */
export function searchIndex(checks: readonly CheckSummary[]): Map<CheckSummary, string> {
  const index = new Map<CheckSummary, string>();
  for (const c of checks) index.set(c, `${c.name}\n${c.description ?? ''}\n${c.canary_name}`.toLowerCase());
  return index;
}

export function filterChecks(checks: readonly CheckSummary[], f: CheckFilter, index?: Map<CheckSummary, string>): CheckSummary[] {
  const q = f.query.trim().toLowerCase();
  const labels = labelMatcher(f.labels);
  const idx = q ? (index ?? searchIndex(checks)) : null;
  return checks.filter(
    (c) => (!f.hidePassing || !isPassing(c)) && (!labels || labels(c)) && (!idx || idx.get(c)!.includes(q)),
  );
}

/** Tab By choices: namespace, every label key, Agent. */
export function tabByOptions(defs: readonly LabelFilterDef[]): { value: string; label: string }[] {
  return [
    { value: 'namespace', label: 'Namespace' },
    ...defs.map((d) => ({ value: LABEL_PREFIX + d.key, label: d.key })),
    { value: 'agent', label: 'Agent' },
  ];
}

export function groupByOptions(defs: readonly LabelFilterDef[]): { value: string; label: string }[] {
  return [...GROUP_FIELDS, ...defs.map((d) => ({ value: LABEL_PREFIX + d.key, label: d.key }))];
}

/** The agent name a tab or badge shows: "local" for this console's own checks, else its name (the id until known). */
export function agentName(agentId: string | null | undefined, names?: ReadonlyMap<string, string>): string {
  return isLocalAgent(agentId) ? 'local' : (names?.get(agentId!) ?? agentId!);
}

/** Which tab a check belongs to; checks without the label go to "none". */
export function tabValue(c: CheckSummary, tabBy: string, names?: ReadonlyMap<string, string>): string {
  if (tabBy === 'agent') return agentName(c.agent_id, names);
  if (tabBy.startsWith(LABEL_PREFIX)) return c.labels[tabBy.slice(LABEL_PREFIX.length)] || NO_NAMESPACE;
  return c.namespace || NO_NAMESPACE;
}

/** Tabs: All first, then sorted names, each with its count. */
export function tabsOf(checks: readonly CheckSummary[], tabBy: string, names?: ReadonlyMap<string, string>): { name: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const c of checks) {
    const t = tabValue(c, tabBy, names);
    counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  return [
    { name: ALL_TAB, count: checks.length },
    ...[...counts.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, count]) => ({ name, count })),
  ];
}

export function inTab(checks: readonly CheckSummary[], tabBy: string, tab: string, names?: ReadonlyMap<string, string>): CheckSummary[] {
  if (tab === ALL_TAB) return checks as CheckSummary[];
  return checks.filter((c) => tabValue(c, tabBy, names) === tab);
}

/** The group a check falls in; an empty value reads as "(none)". */
export function groupValue(c: CheckSummary, groupBy: string): string {
  let v: string | null | undefined;
  if (groupBy.startsWith(LABEL_PREFIX)) v = c.labels[groupBy.slice(LABEL_PREFIX.length)];
  else if (groupBy === 'canary_name' || groupBy === 'name' || groupBy === 'description' || groupBy === 'type') v = c[groupBy];
  return v || '(none)';
}

/** "passing/total" of a group: checks fully passing out of all. */
export function passingCount(checks: readonly CheckSummary[]): { passing: number; total: number } {
  let passing = 0;
  for (const c of checks) if (isPassing(c)) passing++;
  return { passing, total: checks.length };
}

/**
 * A group's health (spec 000 §4): healthy when every check passes, unknown while none has run, unhealthy when none
 * passes, else mixed.
 */
export function groupHealth(checks: readonly CheckSummary[]): 'healthy' | 'unhealthy' | 'mixed' | 'unknown' {
  const { passing, total } = passingCount(checks);
  if (passing === total) return 'healthy';
  // a group whose checks have not run yet is not failing: it says so as its rows do
  if (checks.every((c) => !c.status)) return 'unknown';
  if (passing === 0) return 'unhealthy';
  return 'mixed';
}

// ---------------------------------------------------------------------------------------------------------------
// Duration filter (spec 000 §5)

export const DURATION_ERROR = 'duration is allowed only in milli seconds & seconds';

/** `500ms` -> 500, `1.5s` -> 1500; anything else is refused with the spec's message. */
export function parseDurationFilter(text: string): { ms: number } | { error: string } {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s)\s*$/i.exec(text);
  if (!m) return { error: DURATION_ERROR };
  const n = Number(m[1]);
  return { ms: Math.round(m[2].toLowerCase() === 's' ? n * 1000 : n) };
}
