import type { ConfigSummaryRequest } from '../../../contracts/catalog-api.js';

/**
 * The summary's item side from config_item_rollup and config_item_rollup_latest (0052) instead of every item: the
 * `groups` CTE with the exact query's columns (gk, count, latest times, costs, health), for live items grouped by one
 * dimension. `dim` and `tagKey` are placeholders ($n) already bound by the caller.
 *
 * Items without the grouping tag form the null group: every live item has a type, so its counts and costs are the
 * type totals less the tag's, per health. Its latest times are the one thing read from the items, and only when the
 * group is not empty.
 */

const sums = (sign: (col: string) => string) => ['n', ...['cost_per_minute', 'cost_total_1d', 'cost_total_7d', 'cost_total_30d']
  .flatMap((c) => [c, `${c}_n`])].map((c) => `${sign(c)} AS ${c}`).join(', ');

/** A cost sum is null when no item of the group has that cost, as sum() over the items answers. */
const cost = (col: string, times = '') => `(CASE WHEN sum(${col}_n) > 0 THEN sum(${col})${times} END)::float8`;
const EXTRA = { '1h': cost('cost_per_minute', ' * 60'), '1d': cost('cost_total_1d'), '7d': cost('cost_total_7d'), '30d': cost('cost_total_30d') } as const;

export function itemRollupGroups(dim: string, tagKey: string | null, extra: ConfigSummaryRequest['cost']): string {
  const nullGroup = tagKey ? `UNION ALL
      SELECT ARRAY[NULL]::text[], health, ${sums((c) => `sum(CASE WHEN dim = 'type' THEN ${c} ELSE -${c} END)`)}
      FROM config_item_rollup WHERE dim IN ('type', ${dim}) AND live GROUP BY health` : '';
  const latest = tagKey
    ? `coalesce(l.created_at, x.created_at) AS created_at, coalesce(l.updated_at, x.updated_at) AS updated_at`
    : 'l.created_at, l.updated_at';
  const nullLatest = tagKey ? `LEFT JOIN LATERAL (SELECT max(ci.created_at) AS created_at, max(ci.updated_at) AS updated_at
        FROM config_items ci WHERE g.gk[1] IS NULL AND ci.deleted_at IS NULL AND ci.tags ->> ${tagKey} IS NULL) x ON true` : '';
  return `rollup AS (
      SELECT ARRAY[value]::text[] AS gk, health, ${sums((c) => c)}
      FROM config_item_rollup WHERE dim = ${dim} AND live AND n <> 0 ${nullGroup}),
    item_groups AS (SELECT gk, sum(n)::int AS count, ${cost('cost_per_minute')} AS cost_per_minute,
        ${cost('cost_total_1d')} AS cost_total_1d, ${cost('cost_total_7d')} AS cost_total_7d,
        ${cost('cost_total_30d')} AS cost_total_30d${extra ? `, ${EXTRA[extra]} AS cost_extra` : ''},
        coalesce(jsonb_object_agg(health, n) FILTER (WHERE health IS NOT NULL AND n <> 0), '{}') AS health
      FROM rollup GROUP BY gk HAVING sum(n) <> 0),
    groups AS (SELECT g.gk, g.count, ${latest}, g.cost_per_minute, g.cost_total_1d, g.cost_total_7d,
        g.cost_total_30d${extra ? ', g.cost_extra' : ''}, g.health
      FROM item_groups g LEFT JOIN config_item_rollup_latest l ON l.dim = ${dim} AND l.live AND ARRAY[l.value]::text[] = g.gk
      ${nullLatest})`;
}
