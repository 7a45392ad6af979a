import { BadRequestError } from '../../../lib/errors.js';
import { Params } from '../../topology/runner/links/resource-selector.js';
import type { EventResource, Q } from '../types.js';
import type { SilenceRow } from '../queries.js';
import { filterHolds, idMatches, selectorList, selectorsClause, TABLE_OF } from './match.js';

/**
 * GET /api/notification/silence_preview: the `sent` rows of the last 15 days that a draft silence (an id of any kind,
 * recursive, a CEL filter, selectors) would have silenced, newest first, each with its resource and body_markdown.
 * The draft is matched as findSilence matches a live one, over each sent row's resource as it is now.
 */

export const PREVIEW_DAYS = 15;
const MAX_RESOURCES = 5_000;

export interface PreviewDraft {
  id?: string;
  type?: string;
  recursive?: boolean;
  filter?: string;
  selectors?: unknown;
}

type Row = Record<string, unknown>;
const KIND_TARGET: Record<string, keyof SilenceRow> = { check: 'check_id', canary: 'canary_id', component: 'component_id', config: 'config_id' };

/** The resources (with their env and silence keys) of the sent rows of the window, loaded in one query per kind. */
async function sentResources(db: Q, since: Date): Promise<EventResource[]> {
  const { rows } = await db.query<{ id: string; kind: string }>(
    `SELECT DISTINCT resource_id::text AS id, split_part(source_event, '.', 1) AS kind FROM notification_send_history
      WHERE status = 'sent' AND created_at >= $1 LIMIT ${MAX_RESOURCES}`, [since]);
  const ids = (kind: string) => rows.filter((r) => r.kind === kind).map((r) => r.id);
  const out: EventResource[] = [];
  const checks = ids('check');
  if (checks.length) {
    const r = await db.query<{ check: Row; canary: Row }>(
      `SELECT to_jsonb(k) - 'spec' AS check, to_jsonb(n) - 'spec' AS canary FROM checks k JOIN canaries n ON n.id = k.canary_id
        WHERE k.id = ANY($1::uuid[])`, [checks]);
    for (const { check, canary } of r.rows) {
      out.push(resource('check', check, { check, canary }, { check_id: String(check.id), canary_id: String(canary.id) }));
    }
  }
  for (const kind of ['component', 'config'] as const) {
    const list = ids(kind);
    if (!list.length) continue;
    const table = TABLE_OF[kind];
    const r = await db.query<{ row: Row }>(
      `SELECT to_jsonb(t) - 'spec' - 'config' AS row FROM ${table} t WHERE t.id = ANY($1::uuid[])`, [list]);
    for (const { row } of r.rows) {
      const parents = typeof row.path === 'string' && row.path ? row.path.split('.').filter(Boolean) : [];
      if (typeof row.parent_id === 'string' && !parents.includes(row.parent_id)) parents.push(row.parent_id);
      out.push(resource(kind, row, { [kind]: row }, { [`${kind}_id`]: String(row.id), parents }));
    }
  }
  return out;
}

function resource(kind: 'check' | 'component' | 'config', row: Row, env: Row, keys: EventResource['silenceKeys']): EventResource {
  return {
    kind, id: String(row.id), name: String(row.name ?? row.id), type: (row.type as string) ?? null,
    health: (row.health as string) ?? null, permalink: '', env, silenceKeys: keys,
  };
}

export async function silencePreview(db: Q, draft: PreviewDraft, limit = 50, now = new Date()): Promise<Row[]> {
  if (!draft.id && !draft.filter && !selectorList(draft.selectors).length) {
    throw new BadRequestError('a preview needs an id, a filter or selectors', { resource: 'an id, a filter or selectors is required' });
  }
  const since = new Date(now.getTime() - PREVIEW_DAYS * 86_400_000);
  const silence = {
    id: 'draft', name: 'draft', check_id: null, canary_id: null, component_id: null, config_id: null,
    recursive: draft.recursive ?? false, filter: draft.filter ?? null, selectors: draft.selectors ?? null, from: null, until: null,
  } as SilenceRow;
  const resources = await sentResources(db, since);
  const matched = new Set<string>();
  for (const r of resources) {
    if (draft.id && !(await idMatchesAnyKind(silence, draft, r))) continue;
    if (silence.filter && !filterHolds(silence.filter, r)) continue;
    matched.add(r.id);
  }
  if (selectorList(draft.selectors).length && matched.size) {
    const selected = new Set<string>();
    for (const kind of ['check', 'component', 'config'] as const) {
      const list = resources.filter((r) => r.kind === kind && matched.has(r.id)).map((r) => r.id);
      if (!list.length) continue;
      const ps = new Params();
      const clause = selectorsClause(draft.selectors, TABLE_OF[kind], ps);
      if (!clause) continue;
      const { rows } = await db.query<{ id: string }>(
        `SELECT id::text AS id FROM ${TABLE_OF[kind]} WHERE id = ANY(${ps.p(list)}::uuid[]) AND (${clause})`, ps.values);
      rows.forEach((x) => selected.add(x.id));
    }
    for (const id of [...matched]) if (!selected.has(id)) matched.delete(id);
  }
  if (!matched.size) return [];
  const { rows } = await db.query<Row>(
    `SELECT s.*, s.body AS body_markdown FROM notification_send_history_summary s
      WHERE s.status = 'sent' AND s.created_at >= $1 AND s.resource_id = ANY($2::uuid[])
      ORDER BY s.created_at DESC, s.id DESC LIMIT $3`, [since, [...matched], limit]);
  return rows;
}

/** The draft's id as each kind in turn (or only the given `type`). */
async function idMatchesAnyKind(silence: SilenceRow, draft: PreviewDraft, r: EventResource): Promise<boolean> {
  const kinds = draft.type && KIND_TARGET[draft.type] ? [draft.type] : Object.keys(KIND_TARGET);
  for (const k of kinds) {
    const s = { ...silence, [KIND_TARGET[k]]: draft.id } as SilenceRow;
    if (await idMatches(s, r, async () => r.silenceKeys.parents ?? [])) return true;
  }
  return false;
}
