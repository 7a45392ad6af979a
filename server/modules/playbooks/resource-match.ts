import type pg from 'pg';
import { BadRequestError, NotFoundError } from '../../lib/errors.js';
import {
  Params, parseSelector, selectorWhere, SelectorError, TARGETS,
} from '../topology/runner/links/resource-selector.js';
import {
  getCanary, getResource, matchClauses, RESOURCE_KINDS, type PlaybookApiRow, type ResourceKind,
} from './api-queries.js';
import { evalFilters, type TemplateEnv } from './templates.js';

/**
 * Which resource a playbook runs on, and whether it may (issue 14 "API": /list, /params, /run, /plan). A playbook
 * applies to a check, config or component when one of its `checks`/`configs`/`components` selectors selects it (the
 * selectors compile to SQL as the topology's do: server/modules/topology/runner/links/resource-selector.ts) and
 * every `filters` CEL holds over it. A playbook with no selectors at all runs without a resource. An empty or
 * unreadable selector selects nothing.
 */

type Db = pg.Pool;

export interface ResourceRef {
  check_id?: string;
  config_id?: string;
  component_id?: string;
}

export interface RunResource {
  kind: ResourceKind;
  id: string;
  row: Record<string, unknown>;
  canary?: Record<string, unknown>;
}

/** The one resource named (400 when more than one is); undefined when none is. */
export function resourceOf(ref: ResourceRef): { kind: ResourceKind; id: string } | undefined {
  const given = (Object.keys(RESOURCE_KINDS) as ResourceKind[])
    .map((kind) => ({ kind, id: ref[RESOURCE_KINDS[kind].param] }))
    .filter((r): r is { kind: ResourceKind; id: string } => typeof r.id === 'string' && r.id !== '');
  if (given.length > 1) throw new BadRequestError('give at most one of check_id, config_id and component_id');
  return given[0];
}

/** The named resource's row (404 when it does not exist or was deleted). */
export async function loadResource(db: Db, ref: ResourceRef): Promise<RunResource | undefined> {
  const r = resourceOf(ref);
  if (!r) return undefined;
  const row = await getResource(db, r.kind, r.id);
  if (!row) throw new NotFoundError(r.kind, r.id);
  const canary = r.kind === 'check' && typeof row.canary_id === 'string' ? (await getCanary(db, row.canary_id)) ?? undefined : undefined;
  return { ...r, row, canary };
}

const selectorsOf = (spec: Record<string, unknown>, kind: ResourceKind): unknown[] => {
  const v = spec[RESOURCE_KINDS[kind].selectors];
  return Array.isArray(v) ? v : [];
};

/** Whether a playbook declares any resource selector (else it runs without a resource). */
export function takesResource(spec: Record<string, unknown>): boolean {
  return (Object.keys(RESOURCE_KINDS) as ResourceKind[]).some((k) => selectorsOf(spec, k).length > 0);
}

/** The template env's resource part: `.check` + `.canary`, `.config` or `.component`. */
export function resourceEnv(resource: RunResource | undefined): Partial<TemplateEnv> {
  if (!resource) return {};
  return resource.kind === 'check' ? { check: resource.row, canary: resource.canary } : { [resource.kind]: resource.row };
}

/** Each playbook's selectors of this kind, compiled; one clause per playbook (null: none readable). */
function compile(playbooks: readonly PlaybookApiRow[], kind: ResourceKind, ps: Params): (string | null)[] {
  const target = TARGETS[RESOURCE_KINDS[kind].table];
  return playbooks.map((p) => {
    const parts: string[] = [];
    for (const raw of selectorsOf(p.spec, kind)) {
      try {
        parts.push(`(${selectorWhere(parseSelector(raw), target, ps)})`);
      } catch (err) {
        if (!(err instanceof SelectorError)) throw err;
      }
    }
    return parts.length ? parts.join(' OR ') : null;
  });
}

/** Whether the playbook's filters hold over the resource; an expression that fails counts as "no". */
function filtersHold(p: PlaybookApiRow, resource: RunResource | undefined): boolean {
  const filters = Array.isArray(p.spec.filters) ? (p.spec.filters as unknown[]).filter((f): f is string => typeof f === 'string') : [];
  if (!filters.length) return true;
  try {
    return evalFilters(filters, { params: {}, run: {}, playbook: p, env: {}, ...resourceEnv(resource) });
  } catch {
    return false;
  }
}

/** The playbooks (of those given) that apply to the resource, in the given order. */
export async function playbooksFor(db: Db, playbooks: readonly PlaybookApiRow[], resource: RunResource): Promise<PlaybookApiRow[]> {
  const ps = new Params();
  const clauses = compile(playbooks, resource.kind, ps);
  const withClause = clauses.map((c, i) => ({ c, i })).filter((x): x is { c: string; i: number } => x.c !== null);
  const matched = await matchClauses(db, resource.kind, resource.id, withClause.map((x) => x.c), ps.values);
  const selected = new Set(withClause.filter((_x, j) => matched[j]).map((x) => x.i));
  return playbooks.filter((p, i) => selected.has(i) && filtersHold(p, resource));
}

/**
 * Checks that the playbook may run on what the request names: the resource it selects (400 when it does not, or
 * when it needs one and none is given), its filters holding.
 */
export async function assertRunsOn(db: Db, playbook: PlaybookApiRow, resource: RunResource | undefined): Promise<void> {
  if (!resource) {
    if (takesResource(playbook.spec)) {
      const kinds = (Object.keys(RESOURCE_KINDS) as ResourceKind[]).filter((k) => selectorsOf(playbook.spec, k).length);
      throw new BadRequestError(`playbook ${playbook.name} runs on a ${kinds.join(' or ')}: give ${kinds.map((k) => RESOURCE_KINDS[k].param).join(' or ')}`);
    }
    if (!filtersHold(playbook, undefined)) throw new BadRequestError(`playbook ${playbook.name}: its filters do not hold`);
    return;
  }
  const ok = await playbooksFor(db, [playbook], resource);
  if (!ok.length) {
    throw new BadRequestError(`playbook ${playbook.name} does not apply to ${resource.kind} ${resource.id}`);
  }
}

/**
 * Whether an event's resource passes the playbook's selectors of its kind (triggers, issue 14: the resource of an
 * `on.canary`/`on.config`/`on.component` event must also match the playbook's `checks`/`configs`/`components`): true
 * when the playbook declares none of that kind, else when one of them selects it. `includeDeleted` lets a
 * config.deleted event's item be matched. Selectors that do not compile select nothing.
 */
export async function selectorsAllow(
  db: Db, spec: Record<string, unknown>, kind: ResourceKind, id: string, includeDeleted = false,
): Promise<boolean> {
  const selectors = selectorsOf(spec, kind);
  if (!selectors.length) return true;
  const ps = new Params();
  const own = includeDeleted
    ? { [RESOURCE_KINDS[kind].selectors]: selectors.map((s) => (s && typeof s === 'object' ? { ...s, includeDeleted: true } : s)) }
    : spec;
  const [clause] = compile([{ spec: own } as unknown as PlaybookApiRow], kind, ps);
  if (clause === null) return false;
  const [ok] = await matchClauses(db, kind, id, [clause], ps.values);
  return ok;
}
