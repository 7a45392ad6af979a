import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ResourceSelector as CrdResourceSelector } from '../../../kubernetes/kinds.js';
import { searchClauses } from './search.js';

/**
 * duty's ResourceSelector as a topology spec writes it (components' `selectors`, `checks[].selector`, `configs`,
 * teams' `spec.components`), compiled to a parameterised WHERE clause over one table. Every value is a bound
 * parameter; identifiers come from the SelectorTarget constants below, never from the spec.
 */

/** A list written as an array or as "a,b" (duty's Items); `!x` excludes, `*` globs at either end. */
const Items = z.union([z.array(z.string()), z.string()], { error: 'expected a list of strings or "a,b"' }).transform((v) =>
  (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter(Boolean));

/**
 * The CRD's ResourceSelector (kinds.ts), read as duty reads it: `types`/`statuses` also as "a,b", and the older config
 * selector form (`type`, a `tags` map, a `labels` map) that topology fixtures still write.
 */
export const ResourceSelector = CrdResourceSelector.extend({
  types: Items.optional(),
  statuses: Items.optional(),
  type: z.string().optional(),
  tags: z.record(z.string(), z.string()).optional(),
  labels: z.record(z.string(), z.string()).optional(),
});
export type ResourceSelector = z.infer<typeof ResourceSelector>;

/** Which columns a selector reads on a table. All names are constants of this file. */
export interface SelectorTarget {
  table: 'components' | 'checks' | 'config_items';
  /** Where `namespace` lives (config items keep it as a tag). */
  namespace: string;
  status: string | null;
  health: string | null;
  tags: string | null;
  /** fieldSelector keys that are columns here (the rest are properties, where the table has them). */
  fields: Record<string, string>;
  properties: boolean;
}

export const TARGETS = {
  components: {
    table: 'components', namespace: 'namespace', status: 'status', health: 'health', tags: null, properties: true,
    fields: { owner: 'owner', topology_id: 'topology_id::text', parent_id: 'parent_id::text', type: 'type', name: 'name', namespace: 'namespace', status: 'status', health: 'health', external_id: 'external_id', id: 'id::text', lifecycle: 'lifecycle' },
  },
  checks: {
    table: 'checks', namespace: 'namespace', status: 'status', health: null, tags: null, properties: false,
    fields: { owner: 'owner', severity: 'severity', type: 'type', name: 'name', namespace: 'namespace', status: 'status', canary_id: 'canary_id::text', id: 'id::text', category: 'category' },
  },
  config_items: {
    table: 'config_items', namespace: "tags->>'namespace'", status: 'status', health: 'health', tags: 'tags', properties: false,
    fields: { type: 'type', name: 'name', config_class: 'config_class', status: 'status', health: 'health', external_id: 'external_id', scraper_id: 'scraper_id::text', id: 'id::text' },
  },
} as const satisfies Record<string, SelectorTarget>;

/** A selector that cannot be read: the step notes it and links nothing for it. */
export class SelectorError extends Error {}

export const LOCAL_AGENT = '00000000-0000-0000-0000-000000000000';
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const sortedMap = (m: Record<string, string>) => Object.keys(m).sort().map((k) => `${k}=${m[k]}`).join(',');

/** The selector_id of a link: sha256 over the selector's fields in duty's Hash() order, maps and lists sorted. */
export function selectorHash(s: ResourceSelector): string {
  const items = [
    s.id ?? '', s.name ?? '', s.namespace ?? '', s.agent ?? '', s.scope ?? '',
    [...(s.types ?? []), ...(s.type ? [s.type] : [])].sort().join(','), [...(s.statuses ?? [])].sort().join(','), s.health ?? '',
    s.tags ? sortedMap(s.tags) : s.tagSelector ?? '', s.labels ? sortedMap(s.labels) : s.labelSelector ?? '',
    s.fieldSelector ?? '', String(s.includeDeleted ?? false), s.search ?? '',
  ];
  return createHash('sha256').update(items.join('|')).digest('hex');
}

/** Reads one spec entry as a selector, or throws SelectorError with the reason. */
export function parseSelector(raw: unknown): ResourceSelector {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new SelectorError('expected a selector object ({name, types, labelSelector, …})');
  const r = ResourceSelector.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new SelectorError(`${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`);
  }
  return r.data;
}

export interface Requirement { key: string; op: '=' | '!=' | 'in' | 'notin' | 'exists' | '!exists'; values: string[] }

const KEY_RE = /^[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?$/;

/** A Kubernetes label selector: `a=b, c!=d, e in (x,y), f notin (z), g, !h`. */
export function parseLabelSelector(text: string, what = 'labelSelector'): Requirement[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) { parts.push(cur); cur = ''; } else cur += ch;
  }
  parts.push(cur);
  return parts.map((p) => p.trim()).filter(Boolean).map((p) => {
    const set = /^(\S+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(p);
    const eq = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(p);
    const has = /^(!?)\s*([^=!\s(),]+)$/.exec(p);
    let req: Requirement | undefined;
    if (set) req = { key: set[1], op: set[2] as 'in' | 'notin', values: set[3].split(',').map((v) => v.trim()).filter(Boolean) };
    else if (eq) req = { key: eq[1], op: eq[2] === '!=' ? '!=' : '=', values: [eq[3]] };
    else if (has) req = { key: has[2], op: has[1] ? '!exists' : 'exists', values: [] };
    if (!req || !KEY_RE.test(req.key)) throw new SelectorError(`${what}: cannot read '${p.slice(0, 80)}'`);
    return req;
  });
}

/** Collects bound parameters; `p(v)` is the placeholder of v. */
export class Params {
  readonly values: unknown[] = [];
  p(v: unknown): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

export const likeOf = (glob: string) => glob.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%');

/** duty's Items over one column: any of the plain values (globs allowed), none of the `!` ones. */
export function itemsClause(col: string, items: string[], ps: Params): string | null {
  const one = (v: string) => (v.includes('*') ? `${col} LIKE ${ps.p(likeOf(v))}` : `${col} = ${ps.p(v)}`);
  const inc = items.filter((v) => !v.startsWith('!'));
  const exc = items.filter((v) => v.startsWith('!')).map((v) => v.slice(1)).filter(Boolean);
  const out: string[] = [];
  if (inc.length) out.push(`(${inc.map(one).join(' OR ')})`);
  if (exc.length) out.push(`(${col} IS NULL OR NOT (${exc.map(one).join(' OR ')}))`);
  return out.length ? out.join(' AND ') : null;
}

/** One requirement over a text expression that yields the value of `key` (null when absent). */
export function requirementClause(value: (key: string) => string, r: Requirement, ps: Params): string {
  const v = value(r.key);
  switch (r.op) {
    case '=': return `${v} = ${ps.p(r.values[0])}`;
    case '!=': return `${v} IS DISTINCT FROM ${ps.p(r.values[0])}`;
    case 'in': return `${v} = ANY(${ps.p(r.values)}::text[])`;
    case 'notin': return `(${v} IS NULL OR NOT (${v} = ANY(${ps.p(r.values)}::text[])))`;
    case 'exists': return `${v} IS NOT NULL`;
    default: return `${v} IS NULL`;
  }
}

/** A requirement on a jsonb map column: `k=v` as containment, so the column's GIN index answers it. */
export function mapClause(col: string, r: Requirement, ps: Params): string {
  if (r.op === '=') return `${col} @> ${ps.p(JSON.stringify({ [r.key]: r.values[0] }))}::jsonb`;
  return requirementClause((k) => `${col}->>${ps.p(k)}`, r, ps);
}

/** The text of a component's property `k` (its text, else its value), null when it has none. */
export const propertyText = (k: string, ps: Params) =>
  `(SELECT coalesce(pr->>'text', pr->>'value') FROM jsonb_array_elements(CASE WHEN jsonb_typeof(properties) = 'array' THEN properties ELSE '[]' END) pr WHERE pr->>'name' = ${ps.p(k)} LIMIT 1)`;

const mapRequirements = (m: Record<string, string>): Requirement[] => Object.entries(m).map(([key, v]) => ({ key, op: '=', values: [v] }));

/**
 * The WHERE clause (without WHERE) that selects what `s` selects on `t`, parameters into `ps`. Throws SelectorError
 * for a selector that selects nothing by construction (empty) or cannot be read (bad label/field selector, unknown
 * field, agent name unknown is left to SQL). Deleted rows are left out unless includeDeleted.
 */
export function selectorWhere(s: ResourceSelector, t: SelectorTarget, ps: Params): string {
  const types = [...(s.types ?? []), ...(s.type ? [s.type] : [])];
  const empty = !s.id && !s.name && !s.namespace && !types.length && !s.statuses?.length && !s.health && !s.labelSelector
    && !s.fieldSelector && !s.tagSelector && !s.tags && !s.labels && !s.search;
  if (empty) throw new SelectorError('the selector is empty: it matches nothing');
  const where: string[] = [];
  const add = (c: string | null) => { if (c) where.push(c); };
  if (s.search) where.push(...searchClauses(s.search, t, ps));
  if (!s.includeDeleted) add('deleted_at IS NULL');
  if (s.id) {
    if (!UUID_RE.test(s.id)) throw new SelectorError(`id: '${s.id.slice(0, 60)}' is not a uuid`);
    add(`id = ${ps.p(s.id)}`);
  }
  if (s.name) add(itemsClause('name', [s.name], ps));
  if (s.namespace) add(itemsClause(t.namespace, [s.namespace], ps));
  if (types.length) add(itemsClause('type', types, ps));
  if (s.statuses?.length) {
    if (!t.status) throw new SelectorError(`statuses: ${t.table} have no status`);
    add(itemsClause(t.status, s.statuses, ps));
  }
  if (s.health) {
    if (!t.health) throw new SelectorError(`health: ${t.table} have no health`);
    add(itemsClause(t.health, s.health.split(',').map((x) => x.trim()).filter(Boolean), ps));
  }
  const labels = [...(s.labelSelector ? parseLabelSelector(s.labelSelector) : []), ...(s.labels ? mapRequirements(s.labels) : [])];
  for (const r of labels) add(mapClause('labels', r, ps));
  const tags = [...(s.tagSelector ? parseLabelSelector(s.tagSelector, 'tagSelector') : []), ...(s.tags ? mapRequirements(s.tags) : [])];
  if (tags.length && !t.tags) throw new SelectorError(`tags: ${t.table} have no tags (use labelSelector)`);
  for (const r of tags) add(mapClause(t.tags!, r, ps));
  if (s.fieldSelector) {
    for (const r of parseLabelSelector(s.fieldSelector, 'fieldSelector')) {
      if (r.op !== '=' && r.op !== '!=') throw new SelectorError(`fieldSelector: only = and != are supported ('${r.key}')`);
      const col = (t.fields as Record<string, string>)[r.key];
      if (col) add(requirementClause(() => col, r, ps));
      else if (t.properties) {
        // a property of the component: its text, else its value, as text
        add(requirementClause((k) => propertyText(k, ps), r, ps));
      } else throw new SelectorError(`fieldSelector: unknown field '${r.key.slice(0, 60)}' (known: ${Object.keys(t.fields).join(', ')})`);
    }
  }
  // agent: empty or local is this console's, all is any, a uuid or an agent's name is that agent
  const agent = s.agent?.trim();
  if (!agent || agent === 'local') add(`agent_id = ${ps.p(LOCAL_AGENT)}`);
  else if (agent !== 'all') {
    add(UUID_RE.test(agent) ? `agent_id = ${ps.p(agent)}` : `agent_id IN (SELECT a.id FROM agents a WHERE a.name = ${ps.p(agent)})`);
  }
  return where.join(' AND ');
}

/**
 * The common selector shapes as plain values (equality only: a name, a namespace, any of some types, label and tag
 * equalities), so the link steps run every selector of one shape as ONE statement with the values as rows; anything
 * else (globs, `!` exclusions, set or inequality requirements, fieldSelector, statuses, health, id, another agent,
 * includeDeleted) is undefined and stays on selectorWhere. Selects exactly what selectorWhere selects for it.
 */
export interface PlainSelector { name?: string; namespace?: string; types?: string[]; labels?: Record<string, string>; tags?: Record<string, string> }

const plainValue = (v: string) => !v.includes('*') && !v.startsWith('!');

/** label/tag equalities as one map, or undefined when some requirement is not a plain equality (or a key repeats) */
function equalities(text: string | undefined, map: Record<string, string> | undefined, what: string): Record<string, string> | undefined | false {
  const reqs = [...(text ? parseLabelSelector(text, what) : []), ...(map ? mapRequirements(map) : [])];
  if (!reqs.length) return undefined;
  const out: Record<string, string> = {};
  for (const r of reqs) {
    if (r.op !== '=' || r.key in out) return false;
    out[r.key] = r.values[0];
  }
  return out;
}

export function plainSelector(s: ResourceSelector, t: SelectorTarget): PlainSelector | undefined {
  if (s.id || s.statuses?.length || s.health || s.fieldSelector || s.search || s.includeDeleted) return undefined;
  const agent = s.agent?.trim();
  if (agent && agent !== 'local') return undefined;
  const types = [...(s.types ?? []), ...(s.type ? [s.type] : [])];
  if ((s.name && !plainValue(s.name)) || (s.namespace && !plainValue(s.namespace)) || !types.every(plainValue)) return undefined;
  const labels = equalities(s.labelSelector, s.labels, 'labelSelector');
  const tags = equalities(s.tagSelector, s.tags, 'tagSelector');
  if (labels === false || tags === false || (tags && !t.tags)) return undefined;
  const out: PlainSelector = { name: s.name || undefined, namespace: s.namespace || undefined, types: types.length ? types : undefined, labels, tags };
  return out.name || out.namespace || out.types || out.labels || out.tags ? out : undefined;
}
