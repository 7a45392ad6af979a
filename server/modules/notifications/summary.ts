import { BadRequestError } from '../../lib/errors.js';
import type { SendHistorySummaryRequest, SendHistorySummaryResponse, SendHistorySummaryRow } from '../../contracts/notifications.js';
import { parseTimeExpr } from './silences/date-math.js';
import type { Q } from './types.js';

/**
 * POST /api/notification/summary (the reference's send-history summary): history rows filtered (status,
 * resourceType, resourceKind as match expressions "a,b,!c"; tags "k=v,k2!=v"; search in the resource name; from ≤
 * first_observed, created_at ≤ to, RFC 3339 or date math; deleted resources left out unless asked), grouped by
 * groupBy (default resource and resource_type), the latest row's resource fields per group, newest group first.
 */

const GROUP_COLUMNS: Record<string, string> = {
  resource: 'resource_id', resource_id: 'resource_id', resource_type: 'resource_type', status: 'status', source_event: 'source_event',
};
const DEFAULT_PAGE_SIZE = 50;

class Params {
  readonly values: unknown[] = [];
  p(v: unknown): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

/** "a,b,!c" → include a or b, exclude c (the reference's MatchExpression for the tristate filters). */
function matchClause(col: string, expr: string, ps: Params): string | null {
  const items = expr.split(',').map((s) => s.trim()).filter(Boolean);
  const include = items.filter((i) => !i.startsWith('!')).map((i) => i.replace(/^=/, ''));
  const exclude = items.filter((i) => i.startsWith('!')).map((i) => i.slice(1));
  const parts: string[] = [];
  if (include.length) parts.push(`${col} = ANY(${ps.p(include)}::text[])`);
  if (exclude.length) parts.push(`(${col} IS NULL OR NOT (${col} = ANY(${ps.p(exclude)}::text[])))`);
  return parts.length ? parts.join(' AND ') : null;
}

function tagsClause(expr: string, ps: Params): string[] {
  const out: string[] = [];
  for (const item of expr.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([^=!]+?)\s*(!?=)\s*(.*)$/.exec(item);
    if (!m) throw new BadRequestError(`tags: cannot read "${item.slice(0, 80)}" (expected key=value or key!=value)`, { tags: 'expected key=value' });
    const c = `resource_tags @> ${ps.p(JSON.stringify({ [m[1]]: m[3] }))}::jsonb`;
    out.push(m[2] === '=' ? c : `NOT coalesce(${c}, false)`);
  }
  return out;
}

export async function sendHistorySummary(db: Q, req: SendHistorySummaryRequest, now = new Date()): Promise<SendHistorySummaryResponse> {
  const ps = new Params();
  const where: string[] = [];
  if (req.status) where.push(matchClause('status', req.status, ps) ?? 'true');
  if (req.resourceType) where.push(matchClause('resource_type', req.resourceType.replaceAll('__', '::'), ps) ?? 'true');
  if (req.resourceKind) where.push(matchClause('resource_kind', req.resourceKind, ps) ?? 'true');
  if (req.tags) where.push(...tagsClause(req.tags, ps));
  if (req.search) where.push(`resource->>'name' ILIKE ${ps.p(`%${req.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)}`);
  for (const [field, col, op] of [['from', 'first_observed', '>='], ['to', 'created_at', '<=']] as const) {
    const v = req[field];
    if (!v) continue;
    const t = parseTimeExpr(v, now);
    if (!t) throw new BadRequestError(`${field}: invalid time "${v.slice(0, 60)}": RFC 3339 or date math such as now-7d`, { [field]: 'invalid time' });
    where.push(`${col} ${op} ${ps.p(t)}`);
  }
  if (!req.includeDeletedResources) where.push(`(resource IS NULL OR resource->>'deleted_at' IS NULL)`);
  const groups = [...new Set((req.groupBy?.length ? req.groupBy : ['resource', 'resource_type']).map((g) => GROUP_COLUMNS[g]))];
  const pageSize = req.pageSize ?? DEFAULT_PAGE_SIZE;
  const offset = (req.pageIndex ?? 0) * pageSize;
  const latest = (col: string) => `(array_agg(${col} ORDER BY created_at DESC, id DESC))[1]`;
  const kept = (c: string) => (groups.includes(c) ? c : latest(c));
  const sql = `
    SELECT ${groups.join(', ')},
      ${latest('resource')} AS resource, ${latest('resource_kind')} AS resource_kind,
      ${groups.includes('resource_type') ? '' : `${latest('resource_type')} AS resource_type, `}
      ${latest('resource_tags')} AS resource_tags, ${latest('resource_health')} AS resource_health,
      ${latest('resource_status')} AS resource_status, ${latest('resource_health_description')} AS resource_health_description,
      ${groups.includes('status') ? '' : `${kept('status')} AS status, `}
      ${groups.includes('source_event') ? '' : `${kept('source_event')} AS source_event, `}
      min(first_observed) AS first_observed, max(created_at) AS last_seen, count(*)::integer AS total,
      ${latest('body')} AS last_message,
      (count(*) FILTER (WHERE status = 'sent'))::integer AS sent,
      (count(*) FILTER (WHERE status = 'error'))::integer AS error,
      (count(*) FILTER (WHERE status IS DISTINCT FROM 'sent' AND status IS DISTINCT FROM 'error'))::integer AS suppressed,
      (count(*) OVER ())::integer AS groups_total
    FROM notification_send_history_summary
    ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
    GROUP BY ${groups.join(', ')}
    ORDER BY last_seen DESC, ${groups.join(', ')}
    LIMIT ${ps.p(pageSize)} OFFSET ${ps.p(offset)}`;
  const { rows } = await db.query<SendHistorySummaryRow & { groups_total: number }>(sql, ps.values);
  let total = rows[0]?.groups_total;
  if (total === undefined) {
    // past the last page: count the groups alone
    const count = await db.query<{ n: number }>(
      `SELECT count(*)::integer AS n FROM (SELECT 1 FROM notification_send_history_summary ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        GROUP BY ${groups.join(', ')}) g`, ps.values.slice(0, -2));
    total = count.rows[0].n;
  }
  return { total, results: rows.map(({ groups_total: _t, ...r }) => r) };
}
