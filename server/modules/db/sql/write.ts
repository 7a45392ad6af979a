import { whereTerms } from './filter.js';
import { ident } from './params.js';
import type { BuildContext, PlanNode } from './plan.js';
import { objectSql, whereSql } from './render.js';

/** What the final SELECT of a write returns as `body`: nothing, the shaped rows, or just the primary keys. */
export type WriteOutput = { kind: 'none' } | { kind: 'rows'; node: PlanNode };

/** An owned relation's update or delete: the column naming a row's owner, and the person acting. */
export interface OwnerCheck {
  column: string;
  actor: string;
}

/**
 * `others`: how many rows the write's filters match that the actor does not own. It reads the table itself, which in
 * the same statement is the snapshot before the write: an update cannot hand itself a row by rewriting its owner.
 */
function othersSql(ctx: BuildContext, node: PlanNode, owner: OwnerCheck): string {
  const mine = `${node.alias}.${ident(owner.column)}::text IS DISTINCT FROM ${ctx.params.text(owner.actor)}`;
  return `, (SELECT count(*) FROM ${ident(node.rel.name)} AS ${node.alias} WHERE ${[...whereTerms(ctx, node), mine].join(' AND ')}) AS others`;
}

function finish(ctx: BuildContext, cte: string, node: PlanNode, out: WriteOutput, upsert: boolean, owner?: OwnerCheck): string {
  const body = out.kind === 'rows' ? `coalesce(json_agg(${objectSql(ctx, out.node)}), '[]')::text` : 'NULL::text';
  const inserted = upsert ? `, count(*) FILTER (WHERE ${node.alias}._ins) AS inserted` : '';
  const others = owner ? othersSql(ctx, node, owner) : '';
  return `WITH _w AS (${cte}) SELECT ${body} AS body, count(*) AS n${inserted}${others} FROM _w ${node.alias}`;
}

export interface InsertOptions {
  columns: string[];
  /** The rows as one JSON array, bound as a single parameter and expanded by json_populate_recordset. */
  json: string;
  /** Upsert: the conflict target, and the columns a merge overwrites. */
  conflict?: { columns: string[]; mode: 'merge' | 'ignore'; set: string[] };
  /** `Prefer: missing=default`: the keys each row has; a column a row lacks takes its default instead of NULL. */
  present?: ReadonlySet<string>[];
}

/**
 * `VALUES (…), (…)` with the DEFAULT keyword where a row lacks a column (the only place SQL accepts it); each value
 * is read from the row's element of the one JSON parameter, typed by the table's row type.
 */
function valuesWithDefaults(ctx: BuildContext, t: string, o: InsertOptions, present: ReadonlySet<string>[]): string {
  const json = ctx.params.add(o.json);
  const rows = present.map((keys, i) => {
    const record = `json_populate_record(NULL::${t}, ${json}::json->${i})`;
    return `(${o.columns.map((c) => (keys.has(c) ? `(${record}).${ident(c)}` : 'DEFAULT')).join(', ')})`;
  });
  return `(${o.columns.map(ident).join(', ')}) VALUES ${rows.join(', ')}`;
}

/** INSERT … SELECT FROM json_populate_recordset [ON CONFLICT …] RETURNING, shaped in the same statement. */
export function insertSql(ctx: BuildContext, node: PlanNode, o: InsertOptions, out: WriteOutput): string {
  const t = ident(node.rel.name);
  const cols = o.columns.map(ident).join(', ');
  const defaults = o.present?.some((keys) => o.columns.some((c) => !keys.has(c)));
  const source = !o.columns.length ? 'DEFAULT VALUES'
    : defaults ? valuesWithDefaults(ctx, t, o, o.present!)
      : `(${cols}) SELECT ${cols} FROM json_populate_recordset(NULL::${t}, ${ctx.params.add(o.json)}::json)`;
  let conflict = '';
  if (o.conflict) {
    const target = o.conflict.columns.map(ident).join(', ');
    // With nothing to overwrite, a no-op assignment still returns the existing row (DO NOTHING would not).
    const set = o.conflict.set.length ? o.conflict.set : o.conflict.columns.slice(0, 1);
    const updates = set.map((c) => `${ident(c)} = EXCLUDED.${ident(c)}`).join(', ');
    conflict = o.conflict.mode === 'ignore'
      ? ` ON CONFLICT (${target}) DO NOTHING`
      : ` ON CONFLICT (${target}) DO UPDATE SET ${updates}`;
  }
  // xmax = 0 marks a freshly inserted row (an upsert that updated leaves the old xid there).
  const returning = o.conflict ? `RETURNING ${node.alias}.*, (${node.alias}.xmax = 0) AS _ins` : `RETURNING ${node.alias}.*`;
  return finish(ctx, `INSERT INTO ${t} AS ${node.alias} ${source}${conflict} ${returning}`, node, out, !!o.conflict);
}

/** UPDATE … SET col = body.col FROM json_populate_record(body) WHERE <filters> RETURNING. */
export function updateSql(ctx: BuildContext, node: PlanNode, columns: string[], json: string, out: WriteOutput, owner?: OwnerCheck): string {
  const t = ident(node.rel.name);
  const set = columns.map((c) => `${ident(c)} = _j.${ident(c)}`).join(', ');
  const cte = `UPDATE ${t} AS ${node.alias} SET ${set} FROM json_populate_record(NULL::${t}, ${ctx.params.add(json)}::json) _j ${whereSql(ctx, node)} RETURNING ${node.alias}.*`;
  return finish(ctx, cte, node, out, false, owner);
}

/** DELETE … WHERE <filters> RETURNING. */
export function deleteSql(ctx: BuildContext, node: PlanNode, out: WriteOutput, owner?: OwnerCheck): string {
  const cte = `DELETE FROM ${ident(node.rel.name)} AS ${node.alias} ${whereSql(ctx, node)} RETURNING ${node.alias}.*`;
  return finish(ctx, cte, node, out, false, owner);
}
