import { ident } from './params.js';
import type { BuildContext, PlanNode } from './plan.js';
import { objectSql, orderSql, recordSql, whereSql } from './render.js';

export interface ReadOptions {
  /** FROM item that defines the top node's alias; defaults to the relation itself. */
  from?: string;
  limit: number;
  offset: number;
  count: boolean;
  /** HEAD: compute counts only. */
  bodyless: boolean;
  /** `csv`: a header line and one record per row; `stripNulls`: JSON objects without their null-valued keys. */
  format?: 'json' | 'csv';
  stripNulls?: boolean;
}

/**
 * The body aggregate over `_p._o`. CSV is PostgREST's: the keys joined by commas ('' when there is no row), a newline,
 * then each record's text form without its parentheses (PostgreSQL quotes and escapes each field as CSV needs).
 */
function bodySql(ctx: BuildContext, node: PlanNode, o: ReadOptions): string {
  if (o.bodyless) return 'NULL::text';
  if (o.format === 'csv') {
    const header = ctx.params.text(node.out.map((x) => x.key).join(','));
    return `CASE WHEN count(*) = 0 THEN '' ELSE ${header} END || E'\\n' || `
      + `coalesce(string_agg(substring(_p._o::text, 2, length(_p._o::text) - 2), E'\\n'), '')`;
  }
  return `coalesce(json_agg(${o.stripNulls ? 'json_strip_nulls(_p._o)' : '_p._o'}), '[]')::text`;
}

/**
 * One statement returning the page as JSON text (`body`), its row count (`n`) and optionally the total (`total`):
 * the shape PostgREST uses, so Node never parses or re-serialises rows.
 */
export function readSql(ctx: BuildContext, node: PlanNode, o: ReadOptions): string {
  const from = o.from ?? `${ident(node.rel.name)} ${node.alias}`;
  const where = whereSql(ctx, node);
  const object = o.bodyless ? 'NULL::json' : o.format === 'csv' ? recordSql(ctx, node) : objectSql(ctx, node);
  const order = orderSql(ctx, node);
  const page = `LIMIT ${ctx.params.add(o.limit)} OFFSET ${ctx.params.add(o.offset)}`;
  const total = o.count ? `, (SELECT count(*) FROM ${from} ${where}) AS total` : '';
  const body = bodySql(ctx, node, o);
  // The page of base rows is cut first and objects (with their embed subqueries) are built for those rows only;
  // otherwise PostgreSQL evaluates the embeds for every row it skips with OFFSET as well.
  const rows = `SELECT ${node.alias}.* FROM ${from} ${where} ${order} ${page}`;
  return `WITH _p AS (SELECT ${object} AS _o FROM (${rows}) ${node.alias}) SELECT ${body} AS body, count(*) AS n${total} FROM _p`;
}
