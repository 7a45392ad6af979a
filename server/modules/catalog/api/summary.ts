import type pg from 'pg';
import type { ConfigSummaryRequest, ConfigSummaryRow } from '../../../contracts/catalog-api.js';
import { badParam, likePattern, listCondition, Params, windowSeconds } from './filters.js';
import { itemRollupGroups } from './summary-rollup.js';

/**
 * POST /api/catalog/summary: live (or all) items grouped by type, config_class or tag values, with health counts,
 * changes in a window, open insights by type and severity, and costs.
 *
 * The common screen (one grouping key, live items, a whole-day window, no other filter) is answered from rollups
 * kept by triggers: items, health, costs and latest times from config_item_rollup(_latest) (0052), changes and open
 * insights from config_summary_rollup (0051); no item, change or insight row is read. Anything else reads the
 * tables exactly.
 */

const COST_COLUMNS = { '1h': '(ci.cost_per_minute * 60)', '1d': 'ci.cost_total_1d', '7d': 'ci.cost_total_7d', '30d': 'ci.cost_total_30d' } as const;

interface Plan {
  keys: string[];
  where: string[];
  params: Params;
  sinceSeconds: number;
  /** Set when the rollups answer: the dimension name ('type', 'config_class', 'tag:<k>'). */
  rollupDim: string | null;
}

function keyExpr(p: Params, key: string): string {
  if (key === 'type') return 'ci.type';
  if (key === 'config_class') return 'ci.config_class';
  return `ci.tags ->> ${p.add(key)}`;
}

function plan(req: ConfigSummaryRequest): Plan {
  const params = new Params();
  const keys = [...new Set([...(req.groupBy?.length ? req.groupBy : ['type']), ...(req.tags ?? [])])];
  const since = req.changes?.since?.trim() || '30d';
  const sinceSeconds = windowSeconds(since);
  if (sinceSeconds === null) throw badParam('changes.since', 'expected a duration such as 7d, 30d or 12h');
  const where: string[] = [];
  if (!req.deleted) where.push('ci.deleted_at IS NULL');
  for (const [key, expr] of Object.entries(req.filter ?? {})) {
    if (!/^[\w./:-]{1,100}$/.test(key)) throw badParam('filter', `label key "${key.slice(0, 40)}" is not a label name`);
    const c = listCondition(params, `(ci.labels ->> ${params.add(key)})`, expr, `filter.${key}`);
    if (c) where.push(c);
  }
  for (const [name, col] of [['status', 'ci.status'], ['health', 'ci.health'], ['type', 'ci.type']] as const) {
    const expr = req[name];
    const c = expr ? listCondition(params, col, expr, name) : null;
    if (c) where.push(c);
  }
  const search = req.search?.trim();
  if (search) {
    const q = params.add(`%${likePattern(search)}%`);
    where.push(`(ci.name ILIKE ${q} OR ci.type ILIKE ${q} OR ci.description ILIKE ${q} OR ci.tags ->> 'namespace' ILIKE ${q})`);
  }
  const plain = !req.deleted && where.length === 1;
  const wholeDays = sinceSeconds % 86400 === 0;
  const rollupDim = plain && wholeDays && keys.length === 1
    ? (keys[0] === 'type' || keys[0] === 'config_class' ? keys[0] : `tag:${keys[0]}`) : null;
  return { keys, where, params, sinceSeconds, rollupDim };
}

function groupKey(pl: Plan): string {
  return `ARRAY[${pl.keys.map((k) => keyExpr(pl.params, k)).join(', ')}]::text[]`;
}
const whereSql = (pl: Plan) => (pl.where.length ? `WHERE ${pl.where.join(' AND ')}` : '');

/** Builds the statement; one round trip, one pass over the items for counts, health and costs. */
export function summarySql(req: ConfigSummaryRequest): { sql: string; values: unknown[] } {
  const pl = plan(req);
  const p = pl.params;
  const cost = req.cost ? COST_COLUMNS[req.cost] : null;
  let groups: string;
  let counts: string;
  if (pl.rollupDim) {
    const dim = p.add(pl.rollupDim);
    groups = itemRollupGroups(dim, pl.rollupDim.startsWith('tag:') ? p.add(pl.rollupDim.slice(4)) : null, req.cost);
    const fromDay = p.add(new Date(Date.now() - (pl.sinceSeconds - 86400) * 1000).toISOString().slice(0, 10));
    // Items without the grouping tag form the null group: every live item has a type, so theirs is the type total
    // less the tag's.
    const nullGroup = pl.rollupDim.startsWith('tag:');
    const byKind = (kind: string, window: string, agg: (n: string) => string) => `
      SELECT ARRAY[value]::text[] AS gk, ${agg('n')} AS v FROM config_summary_rollup
      WHERE dim = ${dim} AND kind = '${kind}' AND n <> 0 ${window} GROUP BY value
      ${nullGroup ? `UNION ALL SELECT ARRAY[NULL]::text[], ${agg('n')} FROM (
        SELECT bucket, sum(CASE WHEN dim = 'type' THEN n ELSE -n END) AS n FROM config_summary_rollup
        WHERE dim IN ('type', ${dim}) AND kind = '${kind}' ${window} GROUP BY bucket) x WHERE n <> 0` : ''}`;
    const window = `AND bucket >= ${fromDay}`;
    counts = `changes AS (SELECT gk, v::int AS n FROM (${byKind('change', window, (n) => `sum(${n})`)}) c),
      analysis AS (SELECT gk, v AS by_type FROM (${byKind('analysis', '', (n) => `jsonb_object_agg(bucket, ${n})`)}) a),
      severity AS (SELECT gk, v AS by_severity FROM (${byKind('severity', '', (n) => `jsonb_object_agg(bucket, ${n})`)}) s)`;
  } else {
    // One pass over the matching items feeds both the item side and the joins.
    const base = `SELECT gk, ci.health, count(*) AS n, max(ci.created_at) AS created_at,
        max(ci.updated_at) AS updated_at, sum(ci.cost_per_minute) AS cpm, sum(ci.cost_total_1d) AS c1d,
        sum(ci.cost_total_7d) AS c7d, sum(ci.cost_total_30d) AS c30d${cost ? `, sum(${cost}) AS cx` : ''}
      FROM items ci GROUP BY 1, 2`;
    groups = `items AS MATERIALIZED (SELECT ci.id, ${groupKey(pl)} AS gk, ci.health, ci.created_at, ci.updated_at,
        ci.cost_per_minute, ci.cost_total_1d, ci.cost_total_7d, ci.cost_total_30d FROM config_items ci ${whereSql(pl)}),
      base AS (${base}), groups AS (SELECT gk, sum(n)::int AS count, max(created_at) AS created_at,
        max(updated_at) AS updated_at, sum(cpm)::float8 AS cost_per_minute, sum(c1d)::float8 AS cost_total_1d,
        sum(c7d)::float8 AS cost_total_7d, sum(c30d)::float8 AS cost_total_30d${cost ? ', sum(cx)::float8 AS cost_extra' : ''},
        coalesce(jsonb_object_agg(health, n) FILTER (WHERE health IS NOT NULL), '{}') AS health
      FROM base GROUP BY gk)`;
    const since = p.add(pl.sinceSeconds);
    counts = `changes AS (SELECT i.gk, count(*)::int AS n FROM items i JOIN config_changes cc ON cc.config_id = i.id
        WHERE cc.created_at >= now() - make_interval(secs => ${since}) GROUP BY i.gk),
      -- per item through the open-insights index (OFFSET 0 keeps the lateral): a filtered set of items reads its
      -- own insights instead of hashing every open one
      open AS (SELECT i.gk, coalesce(ca.analysis_type, '') AS analysis_type, coalesce(ca.severity, '') AS severity
        FROM items i JOIN LATERAL (SELECT a.analysis_type, a.severity FROM config_analysis a
          WHERE a.config_id = i.id AND a.status = 'open' OFFSET 0) ca ON true),
      analysis AS (SELECT gk, jsonb_object_agg(analysis_type, n) AS by_type
        FROM (SELECT gk, analysis_type, count(*)::int AS n FROM open GROUP BY 1, 2) a GROUP BY gk),
      severity AS (SELECT gk, jsonb_object_agg(severity, n) AS by_severity
        FROM (SELECT gk, severity, count(*)::int AS n FROM open GROUP BY 1, 2) s GROUP BY gk)`;
  }
  const sql = `WITH ${groups}, ${counts}
    SELECT g.*, coalesce(c.n, 0) AS changes, coalesce(a.by_type, '{}') AS analysis,
           coalesce(s.by_severity, '{}') AS severity
    FROM groups g LEFT JOIN changes c ON c.gk = g.gk
    LEFT JOIN analysis a ON a.gk = g.gk LEFT JOIN severity s ON s.gk = g.gk
    ORDER BY g.gk`;
  return { sql, values: p.values };
}

interface SummaryDbRow {
  gk: (string | null)[];
  count: number;
  created_at: Date | null;
  updated_at: Date | null;
  cost_per_minute: number | null;
  cost_total_1d: number | null;
  cost_total_7d: number | null;
  cost_total_30d: number | null;
  cost_extra?: number | null;
  health: Record<string, number>;
  changes: number;
  analysis: Record<string, number>;
  severity: Record<string, number>;
}

/** Groups, each with its values flattened (as the reference answers) and under `group`. */
export async function configSummary(db: pg.Pool, req: ConfigSummaryRequest): Promise<ConfigSummaryRow[]> {
  const { sql, values } = summarySql(req);
  const keys = [...new Set([...(req.groupBy?.length ? req.groupBy : ['type']), ...(req.tags ?? [])])];
  const { rows } = await db.query<SummaryDbRow>(sql, values);
  return rows.map((r) => {
    const group = Object.fromEntries(keys.map((k, i) => [k, r.gk[i]]));
    const { gk: _gk, cost_extra, ...rest } = r;
    return {
      ...group, ...rest, group,
      created_at: r.created_at?.toISOString() ?? null, updated_at: r.updated_at?.toISOString() ?? null,
      ...(req.cost ? { [`cost_${req.cost}`]: cost_extra ?? null } : {}),
    };
  });
}
