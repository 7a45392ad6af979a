import { ident } from './params.js';
import type { BuildContext, PlanNode } from './plan.js';
import { objectSql, orderSql, whereSql } from './render.js';

export interface ReadOptions {
  /** FROM item that defines the top node's alias; defaults to the relation itself. */
  from?: string;
  limit: number;
  offset: number;
  count: boolean;
  /** HEAD: compute counts only. */
  bodyless: boolean;
}

/**
 * One statement returning the page as JSON text (`body`), its row count (`n`) and optionally the total (`total`):
 * the shape PostgREST uses, so Node never parses or re-serialises rows.
 */
export function readSql(ctx: BuildContext, node: PlanNode, o: ReadOptions): string {
  const from = o.from ?? `${ident(node.rel.name)} ${node.alias}`;
  const where = whereSql(ctx, node);
  const object = o.bodyless ? 'NULL::json' : objectSql(ctx, node);
  const order = orderSql(ctx, node);
  const page = `LIMIT ${ctx.params.add(o.limit)} OFFSET ${ctx.params.add(o.offset)}`;
  const total = o.count ? `, (SELECT count(*) FROM ${from} ${where}) AS total` : '';
  const body = o.bodyless ? 'NULL::text' : `coalesce(json_agg(_p._o), '[]')::text`;
  // The page of base rows is cut first and objects (with their embed subqueries) are built for those rows only;
  // otherwise PostgreSQL evaluates the embeds for every row it skips with OFFSET as well.
  const rows = `SELECT ${node.alias}.* FROM ${from} ${where} ${order} ${page}`;
  return `WITH _p AS (SELECT ${object} AS _o FROM (${rows}) ${node.alias}) SELECT ${body} AS body, count(*) AS n${total} FROM _p`;
}
