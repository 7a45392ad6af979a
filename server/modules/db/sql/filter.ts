import { ApiError } from '../../../lib/errors.js';
import type { Condition, Filter, JsonStep } from '../parse/ast.js';
import type { Column } from '../schema-cache.js';
import { ident } from './params.js';
import { childOf, columnOf, type BuildContext, type PlanChild, type PlanNode } from './plan.js';

const COMPARE = { eq: '=', neq: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;
const PATTERN = { like: 'LIKE', ilike: 'ILIKE', match: '~', imatch: '~*' } as const;
const CONTAINS = { cs: '@>', cd: '<@', ov: '&&' } as const;
const TSQUERY = { fts: 'to_tsquery', plfts: 'plainto_tsquery', phfts: 'phraseto_tsquery', wfts: 'websearch_to_tsquery' } as const;

/** `_n."col"->$k::text->>$j::text`: JSON keys are parameters too (integers index arrays). */
export function columnSql(ctx: BuildContext, alias: string, column: Column, json: JsonStep[]): string {
  // a masked column is read through its function everywhere (select, filter, order), so nothing sees the raw value
  let sql = column.mask ? `${ident(column.mask)}(${alias}.${ident(column.name)})` : `${alias}.${ident(column.name)}`;
  for (const step of json) {
    const key = /^-?\d{1,9}$/.test(step.key) ? `${ctx.params.add(Number(step.key))}::int` : ctx.params.text(step.key);
    sql += `${step.arrow}${key}`;
  }
  return sql;
}

/** The join condition between an embedded child and its parent. */
export function joinSql(child: PlanChild): string {
  return child.rel.pairs
    .map(([s, t]) => `${child.node.alias}.${ident(t)} = ${child.parent.alias}.${ident(s)}`)
    .join(' AND ');
}

/** WHERE terms of a node: its filters, and an EXISTS for each `!inner` child. Rendered once per node. */
export function whereTerms(ctx: BuildContext, node: PlanNode): string[] {
  if (!node.where) {
    node.where = [
      ...(node.scope ? [node.scope] : []),
      ...node.mods.filters.map((f) => filterSql(ctx, node, f)),
      ...node.children.filter((c) => c.join === 'inner').map((c) => existsSql(ctx, c)),
    ];
  }
  return node.where;
}

/** EXISTS (a row of the child matching its own filters [and one more condition]). */
export function existsSql(ctx: BuildContext, child: PlanChild, extra?: string): string {
  const terms = [joinSql(child), ...whereTerms(ctx, child.node), ...(extra ? [extra] : [])];
  return `EXISTS (SELECT 1 FROM ${ident(child.node.rel.name)} ${child.node.alias} WHERE ${terms.join(' AND ')})`;
}

function filterSql(ctx: BuildContext, node: PlanNode, f: Filter): string {
  if (f.type === 'logic') {
    const inner = f.children.map((c) => filterSql(ctx, node, c)).join(f.op === 'or' ? ' OR ' : ' AND ');
    return f.negate ? `NOT (${inner})` : `(${inner})`;
  }
  if (f.embed.length) {
    // `or=(rel.col.eq.x)`: a parent row qualifies when one of its children does.
    const child = embedded(node, f.embed[0]);
    return existsSql(ctx, child, filterSql(ctx, child.node, { ...f, embed: f.embed.slice(1) }));
  }
  if (!node.rel.columns.has(f.field.name) && !f.field.json.length) {
    const child = childOf(node, f.field.name);
    if (child) {
      // `rel=is.null` / `rel=not.is.null`: anti/semi join on the embed (with its filters).
      if (f.op !== 'is' || f.value !== 'null') {
        throw new ApiError(400, 'PGRST120', `Bad operator on the '${child.key}' embedded resource`, null, "Only is.null or not.is.null filters are allowed on embedded resources");
      }
      const exists = existsSql(ctx, child);
      return f.negate ? exists : `NOT ${exists}`;
    }
  }
  const column = columnOf(node.rel, f.field.name, f.field.json);
  const sql = conditionSql(ctx, columnSql(ctx, node.alias, column, f.field.json), column, f);
  return f.negate ? `NOT (${sql})` : sql;
}

function embedded(node: PlanNode, key: string): PlanChild {
  const child = childOf(node, key);
  if (!child) {
    throw new ApiError(400, 'PGRST108', `'${key.slice(0, 100)}' is not an embedded resource in this request`, null,
      `Verify that '${key.slice(0, 100)}' is included in the 'select' query parameter.`);
  }
  return child;
}

const quantified = (f: Condition, param: string) => (f.quant ? `${f.quant.toUpperCase()}(${param})` : param);

function conditionSql(ctx: BuildContext, lhs: string, column: Column, f: Condition): string {
  const p = ctx.params;
  const last = f.field.json[f.field.json.length - 1];
  // What the left side is once the JSON path is applied: text after ->>, jsonb after ->.
  const type = last ? (last.arrow === '->>' ? 'text' : 'jsonb') : column.type;
  const asText = type === 'text' || (column.category === 'S' && !last) ? lhs : `${lhs}::text`;
  switch (f.op) {
    // With a quantifier the value is an array literal (`{a,b}`) whose element type PostgreSQL infers from the left side.
    case 'eq': case 'neq': case 'gt': case 'gte': case 'lt': case 'lte':
      return `${lhs} ${COMPARE[f.op]} ${quantified(f, p.add(f.value))}`;
    case 'like': case 'ilike':
      return `${asText} ${PATTERN[f.op]} ${quantified(f, p.add(f.value.replace(/\*/g, '%')))}`;
    case 'match': case 'imatch':
      return `${asText} ${PATTERN[f.op]} ${quantified(f, p.add(f.value))}`;
    case 'in':
      return `${lhs} = ANY(${p.add(f.list ?? [])})`;
    case 'is':
      return `${lhs} IS ${f.value.toUpperCase()}`;
    case 'isdistinct':
      return `${lhs} IS DISTINCT FROM ${p.add(f.value)}`;
    case 'cs': case 'cd': case 'ov': {
      const ok = type === 'jsonb' || type === 'json' || type.endsWith('[]') || (!last && column.category === 'R');
      if (!ok) {
        throw new ApiError(400, '42883', `operator does not exist: ${type} ${CONTAINS[f.op]} unknown`, null,
          `${f.op} applies to array, jsonb and range columns`);
      }
      const t = type === 'json' ? 'jsonb' : type;
      return `${t === type ? lhs : `${lhs}::jsonb`} ${CONTAINS[f.op]} ${p.add(f.value)}::${t}`;
    }
    default: {
      let cfg = '';
      if (f.config !== undefined) {
        if (!ctx.cache.tsConfigs.has(f.config)) throw new ApiError(400, '42704', `text search configuration "${f.config}" does not exist`);
        cfg = `${p.add(f.config)}::regconfig, `;
      }
      const vector = type === 'tsvector' ? lhs : `to_tsvector(${cfg}${asText})`;
      return `${vector} @@ ${TSQUERY[f.op]}(${cfg}${p.add(f.value)})`;
    }
  }
}
