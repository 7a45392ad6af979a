import type pg from 'pg';
import {
  CATALOG_DEPTH_MAX, CATALOG_PAGE_SIZE_MAX, CHANGE_SORT_FIELDS, ChangeRecursive, type CatalogChangesSearchRequest,
  CatalogChangesSearchRequest as RequestSchema, type CatalogChangesSearchResponse,
} from '../../../contracts/catalog-api.js';
import { dateMath } from '../../db/parse/search-filter.js';
import { type ChangeWindow, hourlyCountSql } from './changes-count.js';
import { badParam, isUuid, listCondition, Params, selectorCondition, severityCondition } from './filters.js';

/**
 * POST|GET /api/catalog/changes (the reference's CatalogChangesSearchRequest): changes of the catalog_changes view,
 * filtered, sorted and paged, with `total` and `summary` (change type → count) over every match. One config id walks
 * its related configs (`recursive` downstream: what it links to; upstream: what links to it; all: both; hard links
 * only unless `soft`) up to `depth` hops. Bad parameters are 400 naming them, unless `lenient` drops them.
 */

const NIL_AGENT = '00000000-0000-0000-0000-000000000000';
/** Sort fields that are NOT NULL in config_changes (0050). */
const NOT_NULL_SORT_FIELDS = ['created_at', 'count', 'first_observed'] as const;
const COLUMNS = `c.id, c.config_id, c.external_change_id, c.agent_id, c.change_type, c.severity, c.source, c.summary,
  c.created_at, c.count, c.first_observed, c.name, c.type, c.config_class, c.tags, c.created_by, c.external_created_by,
  c.path, c.deleted_at, c.inserted_at`;

/** Reads the body (or query), with issues reported as 400 naming the field. */
export function parseChangesRequest(input: unknown) {
  const r = RequestSchema.safeParse(input ?? {});
  if (!r.success) {
    const issue = r.error.issues[0];
    throw badParam(issue.path.join('.') || 'request', issue.message);
  }
  return r.data;
}

type Parsed = ReturnType<typeof parseChangesRequest>;

function when(param: string, text: string | undefined, lenient: boolean): string | null {
  if (!text) return null;
  const at = /^\d{4}-\d{2}-\d{2}T/.test(text) && !Number.isNaN(Date.parse(text)) ? new Date(text).toISOString() : dateMath(text.trim());
  if (at) return at;
  if (lenient) return null;
  throw badParam(param, 'expected RFC3339 or date math such as now-2d');
}

/**
 * WHERE conditions and the related-config walk, all parameterised; `window` is the created_at range applied and
 * `filtered` whether any other condition than the window and hiding deleted items narrows it.
 */
function conditions(req: Parsed, p: Params): { where: string[]; window: ChangeWindow; filtered: boolean } {
  const lenient = req.lenient ?? false;
  const where: string[] = [];
  const guard = (fn: () => string | null) => {
    try {
      const c = fn();
      if (c) where.push(c);
    } catch (err) {
      if (!lenient) throw err;
    }
  };

  // Checked with or without an id (as duty does), so a bad value is never silently ignored.
  let recursive = req.recursive ?? 'downstream';
  if (!ChangeRecursive.safeParse(recursive).success) {
    if (!lenient) throw badParam('recursive', `expected one of ${ChangeRecursive.options.join(', ')}`);
    recursive = 'downstream';
  }
  const depth = req.depth ?? 5;
  if (depth < 1 || depth > CATALOG_DEPTH_MAX) throw badParam('depth', `expected 1 to ${CATALOG_DEPTH_MAX}`);

  const ids = (req.id ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (ids.length) {
    const plain = ids.filter((i) => !i.startsWith('!'));
    const bad = ids.map((i) => i.replace(/^!/, '')).find((i) => !isUuid(i));
    if (bad !== undefined) {
      if (!lenient) throw badParam('id', `"${bad.slice(0, 60)}" is not a config id (uuid)`);
    } else if (plain.length === 1 && ids.length === 1) {
      const id = p.add(plain[0]);
      if (recursive === 'none') where.push(`c.config_id = ${id}::uuid`);
      else {
        const down = recursive === 'downstream' || recursive === 'all';
        const up = recursive === 'upstream' || recursive === 'all';
        const d = p.add(depth), soft = p.add(req.soft ?? false);
        const walk = (from: string, to: string) => `WITH RECURSIVE w(id, depth) AS (
            SELECT ${id}::uuid, 0
            UNION
            SELECT r.${to}, w.depth + 1 FROM w JOIN config_relationships r ON r.${from} = w.id
            WHERE w.depth < ${d} AND r.deleted_at IS NULL AND (${soft}::boolean OR r.relation = 'hard')
          ) SELECT id FROM w`;
        const sets = [...(down ? [walk('config_id', 'related_id')] : []), ...(up ? [walk('related_id', 'config_id')] : [])];
        where.push(`c.config_id IN (${sets.map((s) => `(${s})`).join(' UNION ')})`);
      }
    } else {
      const inc = plain, exc = ids.filter((i) => i.startsWith('!')).map((i) => i.slice(1));
      if (inc.length) where.push(`c.config_id = ANY(${p.add(inc)}::uuid[])`);
      if (exc.length) where.push(`NOT (c.config_id = ANY(${p.add(exc)}::uuid[]))`);
    }
  }

  guard(() => (req.config_type ? listCondition(p, 'c.type', req.config_type, 'config_type') : null));
  guard(() => (req.type ? listCondition(p, 'c.change_type', req.type, 'type') : null));
  guard(() => (req.severity ? severityCondition(p, 'c.severity', req.severity) : null));
  guard(() => (req.summary ? listCondition(p, 'c.summary', req.summary, 'summary') : null));
  guard(() => (req.source ? listCondition(p, 'c.source', req.source, 'source') : null));
  guard(() => (req.tags ? selectorCondition(p, 'c.tags', req.tags, 'tags') : null));
  if (req.created_by) {
    const by = req.created_by.trim();
    if (isUuid(by)) where.push(`c.created_by = ${p.add(by)}::uuid`);
    else guard(() => listCondition(p, 'c.external_created_by', by, 'created_by'));
  }
  if (req.agent_id) {
    const agent = req.agent_id === 'local' ? NIL_AGENT : req.agent_id;
    if (isUuid(agent)) where.push(`c.agent_id = ${p.add(agent)}::uuid`);
    else if (!lenient) throw badParam('agent_id', 'expected an agent id (uuid) or local');
  }

  const fromText = req.from || (req.to ? undefined : 'now-2d');
  const from = when('from', fromText, lenient), to = when('to', req.to, lenient);
  if (from && to && from >= to && !lenient) throw badParam('from', "'from' must be before 'to'");
  const fromIns = when('from_inserted_at', req.from_inserted_at, lenient);
  const toIns = when('to_inserted_at', req.to_inserted_at, lenient);
  if (fromIns && toIns && fromIns >= toIns && !lenient) throw badParam('from_inserted_at', "'from_inserted_at' must be before 'to_inserted_at'");
  if (fromIns) where.push(`c.inserted_at > ${p.add(fromIns)}::timestamptz`);
  if (toIns) where.push(`c.inserted_at < ${p.add(toIns)}::timestamptz`);
  const filtered = where.length > 0;
  // Against the few deleted ids rather than the joined item's deleted_at: a count that reads no item column then
  // skips the join to config_items altogether (the join is removed).
  if (!req.include_deleted_configs) where.push('c.config_id NOT IN (SELECT d.id FROM config_items d WHERE d.deleted_at IS NOT NULL)');
  const window: ChangeWindow = { from: null, to: null };
  if (from) {
    where.push(`c.created_at > ${p.add(from)}::timestamptz`);
    window.from = from;
  }
  if (to && (!from || from < to)) {
    where.push(`c.created_at <= ${p.add(to)}::timestamptz`);
    window.to = to;
  }
  return { where, window, filtered };
}

function orderBy(req: Parsed): string {
  const raw = (req.sort_by ?? '-created_at').trim() || '-created_at';
  const desc = raw.startsWith('-');
  const field = desc ? raw.slice(1) : raw;
  if (!(CHANGE_SORT_FIELDS as readonly string[]).includes(field)) {
    if (req.lenient) return 'c.created_at DESC, c.id DESC';
    throw badParam('sort_by', `expected one of ${CHANGE_SORT_FIELDS.join(', ')} (prefix - for descending)`);
  }
  // field comes from the allow-list above, never from the request as such. A column that is never null sorts
  // without NULLS LAST, so the order matches its index ((created_at DESC, id): the first page reads 200 index
  // entries instead of sorting the whole window).
  const nulls = (NOT_NULL_SORT_FIELDS as readonly string[]).includes(field) ? '' : ' NULLS LAST';
  return `c.${field} ${desc ? 'DESC' : 'ASC'}${nulls}, c.id ${desc ? 'DESC' : 'ASC'}`;
}

export async function searchChanges(db: pg.Pool, input: CatalogChangesSearchRequest): Promise<CatalogChangesSearchResponse> {
  const req = parseChangesRequest(input);
  const pageSize = req.page_size ?? 50;
  if (pageSize < 1 || pageSize > CATALOG_PAGE_SIZE_MAX) throw badParam('page_size', `expected 1 to ${CATALOG_PAGE_SIZE_MAX}`);
  const page = req.page ?? 1;
  if (page < 1 || page > 1_000_000) throw badParam('page', 'expected a page number from 1');
  const p = new Params();
  const { where, window, filtered } = conditions(req, p);
  const order = orderBy(req);
  const filter = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const count = (!filtered && hourlyCountSql(where, window, p.values, !req.include_deleted_configs))
    || { sql: `SELECT c.change_type, count(*)::int AS n FROM catalog_changes c ${filter} GROUP BY c.change_type`, values: p.values };
  const pageSql = `SELECT coalesce(json_agg(row_to_json(r)), '[]') AS rows FROM (
      SELECT ${COLUMNS} FROM catalog_changes c ${filter} ORDER BY ${order} LIMIT ${pageSize} OFFSET ${(page - 1) * pageSize}) r`;
  const [counts, rows] = await Promise.all([db.query(count.sql, count.values), db.query(pageSql, p.values)]);
  const summary: Record<string, number> = {};
  let total = 0;
  for (const r of counts.rows as { change_type: string | null; n: number }[]) {
    summary[r.change_type ?? ''] = r.n;
    total += r.n;
  }
  return { summary, total, changes: rows.rows[0].rows };
}
