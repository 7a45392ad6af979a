import { ApiError } from '../../../lib/errors.js';
import { columnSql, joinSql, whereTerms } from './filter.js';
import { ident } from './params.js';
import { childOf, columnOf, type BuildContext, type Output, type PlanChild, type PlanNode } from './plan.js';

// json_build_object takes at most 100 arguments; wider objects are built in chunks and merged as jsonb.
const PAIRS_PER_CALL = 50;

/** The JSON object of one row of a node: `json_build_object($k1::text, expr1, ...)`, keys bound as parameters. */
export function objectSql(ctx: BuildContext, node: PlanNode): string {
  const pairs = node.out.map((o) => `${ctx.params.text(o.key)}, ${valueSql(ctx, node, o)}`);
  if (pairs.length <= PAIRS_PER_CALL) return `json_build_object(${pairs.join(', ')})`;
  const chunks: string[] = [];
  for (let i = 0; i < pairs.length; i += PAIRS_PER_CALL) {
    chunks.push(`json_build_object(${pairs.slice(i, i + PAIRS_PER_CALL).join(', ')})::jsonb`);
  }
  return `(${chunks.join(' || ')})::json`;
}

/** The row of a node as an anonymous record, whose text form (`(a,"b c",)`) is a CSV line once unwrapped. */
export function recordSql(ctx: BuildContext, node: PlanNode): string {
  return `ROW(${node.out.map((o) => valueSql(ctx, node, o)).join(', ')})`;
}

function valueSql(ctx: BuildContext, node: PlanNode, o: Output): string {
  if (o.kind === 'embed') return embedSql(ctx, o.child);
  const sql = columnSql(ctx, node.alias, o.column, o.json);
  return o.cast ? `(${sql})::${o.cast}` : sql;
}

export function whereSql(ctx: BuildContext, node: PlanNode): string {
  const terms = whereTerms(ctx, node);
  return terms.length ? `WHERE ${terms.join(' AND ')}` : '';
}

/** ORDER BY of a node; `rel(col)` orders by a to-one embed's column. */
export function orderSql(ctx: BuildContext, node: PlanNode): string {
  const terms = (node.mods.order ?? []).map((t) => {
    let expr: string;
    if (t.embed !== undefined) {
      const child = childOf(node, t.embed);
      if (!child) {
        throw new ApiError(400, 'PGRST108', `'${t.embed.slice(0, 100)}' is not an embedded resource in this request`, null,
          `Verify that '${t.embed.slice(0, 100)}' is included in the 'select' query parameter.`);
      }
      if (!child.toOne) throw new ApiError(400, 'PGRST118', `A related order on '${child.key}' is not possible`, null, 'Only to-one embeds can be ordered by');
      const col = columnOf(child.node.rel, t.field.name, t.field.json);
      expr = `(SELECT ${columnSql(ctx, child.node.alias, col, t.field.json)} FROM ${ident(child.node.rel.name)} ${child.node.alias} WHERE ${joinSql(child)} LIMIT 1)`;
    } else {
      expr = columnSql(ctx, node.alias, columnOf(node.rel, t.field.name, t.field.json), t.field.json);
    }
    return `${expr}${t.dir ? ` ${t.dir.toUpperCase()}` : ''}${t.nulls ? ` NULLS ${t.nulls.toUpperCase()}` : ''}`;
  });
  return terms.length ? `ORDER BY ${terms.join(', ')}` : '';
}

/** An embed as a correlated subquery: an object (or NULL) for to-one, an array for to-many. */
function embedSql(ctx: BuildContext, child: PlanChild): string {
  const n = child.node;
  const from = `${ident(n.rel.name)} ${n.alias}`;
  const where = [joinSql(child), ...whereTerms(ctx, n)].join(' AND ');
  let sql: string;
  if (child.toOne) {
    sql = `(SELECT ${objectSql(ctx, n)} FROM ${from} WHERE ${where} LIMIT 1)`;
  } else {
    const limit = n.mods.limit !== undefined ? ` LIMIT ${ctx.params.add(n.mods.limit)}` : '';
    const offset = n.mods.offset !== undefined ? ` OFFSET ${ctx.params.add(n.mods.offset)}` : '';
    sql = `(SELECT coalesce(json_agg(_e._o), '[]'::json) FROM (SELECT ${objectSql(ctx, n)} AS _o FROM ${from} WHERE ${where} ${orderSql(ctx, n)}${limit}${offset}) _e)`;
  }
  return child.cast ? `${sql}::${child.cast}` : sql;
}
