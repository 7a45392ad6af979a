import type { Resource } from '../../../contracts/rbac.js';
import { ApiError } from '../../../lib/errors.js';
import { forbidden, unknownColumn } from '../errors.js';
import type { JsonStep, NodeModifiers, ParsedQuery, SelectItem } from '../parse/ast.js';
import { findRelationship, type Relationship } from '../relationships.js';
import type { Column, Relation, SchemaCache } from '../schema-cache.js';
import { castType } from './casts.js';
import { ident, Params } from './params.js';

export type Output =
  | { kind: 'column'; key: string; column: Column; json: JsonStep[]; cast?: string }
  | { kind: 'embed'; key: string; child: PlanChild };

/** One relation in the select tree, resolved against the schema cache. */
export interface PlanNode {
  rel: Relation;
  /** SQL alias, unique in the statement (`_0` is the top level). */
  alias: string;
  out: Output[];
  children: PlanChild[];
  mods: NodeModifiers;
  /** The caller's own rows only (RelationSpec.readOwner): a WHERE term added to the request's filters. */
  scope?: string;
  /** Memoised WHERE terms (rendered once, used by the embed subquery and by EXISTS checks alike). */
  where?: string[];
}

export interface PlanChild {
  /** How the request names it: the alias if given, else the embed name. */
  key: string;
  name: string;
  node: PlanNode;
  parent: PlanNode;
  rel: Relationship;
  join: 'left' | 'inner';
  toOne: boolean;
  cast?: string;
}

/** State shared while one statement is built. */
export class BuildContext {
  readonly params = new Params();
  private aliases = 0;
  constructor(
    readonly cache: SchemaCache,
    readonly can: (resource: Resource, action: 'read' | 'write') => boolean,
    /** The signed-in person, for relations whose rows are their owners' (RelationSpec.readOwner). */
    readonly actor?: string,
  ) {}
  alias(): string {
    return `_${this.aliases++}`;
  }
}

const isJson = (c: Column) => c.type === 'json' || c.type === 'jsonb';

function levenshtein(a: string, b: string): number {
  const d = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0];
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = d[j];
      d[j] = Math.min(d[j] + 1, d[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return d[b.length];
}

/** A visible column of the relation, or 400 42703 with a "did you mean" hint. */
export function columnOf(rel: Relation, name: string, json: JsonStep[] = []): Column {
  const col = rel.columns.get(name);
  if (!col) {
    const near = name.length < 64 ? rel.visible.map((c) => [c.name, levenshtein(c.name, name)] as const).sort((x, y) => x[1] - y[1])[0] : undefined;
    throw unknownColumn(rel.name, name, near && near[1] <= 3 ? near[0] : undefined);
  }
  if (json.length && !isJson(col)) {
    throw new ApiError(400, '42883', `operator does not exist: ${col.type} -> unknown`, null, `${rel.name}.${name} is not a JSON column`);
  }
  return col;
}

/** Requires `read` on a relation's resource (the top level and every embedded relation). */
export function requireRead(ctx: BuildContext, rel: Relation): void {
  if (rel.spec.readOwner && ctx.actor) return; // everyone reads their own rows (the plan scopes them)
  if (!ctx.can(rel.spec.resource, 'read')) throw forbidden(rel.name, rel.spec.resource, 'read');
}

/**
 * Resolves the select tree against the schema: columns exist and are visible, embeds follow a relationship to a
 * registered relation the caller may read, and every `<embed>.<x>` parameter lands on an embed of the select.
 */
export function plan(ctx: BuildContext, rel: Relation, query: ParsedQuery): PlanNode {
  const used = new Set<string>();
  const build = (r: Relation, items: SelectItem[], path: string[]): PlanNode => {
    const key = path.join('.');
    used.add(key);
    const node: PlanNode = { rel: r, alias: ctx.alias(), out: [], children: [], mods: query.nodes.get(key) ?? { filters: [] } };
    if (r.spec.readOwner && !ctx.can(r.spec.resource, 'write')) {
      if (!ctx.actor) throw forbidden(r.name, r.spec.resource, 'read');
      node.scope = `${node.alias}.${ident(r.spec.readOwner)} = ${ctx.params.add(ctx.actor)}::uuid`;
    }
    for (const item of items) {
      if (item.type === 'star') {
        for (const column of r.visible) node.out.push({ kind: 'column', key: column.name, column, json: [] });
      } else if (item.type === 'field') {
        const column = columnOf(r, item.field.name, item.field.json);
        const k = item.alias ?? (item.field.json.length ? item.field.json[item.field.json.length - 1].key : column.name);
        node.out.push({ kind: 'column', key: k, column, json: item.field.json, cast: item.cast && castType(item.cast) });
      } else {
        const relationship = findRelationship(ctx.cache, r, item.name, item.hint);
        const target = ctx.cache.relations.get(relationship.target)!;
        requireRead(ctx, target);
        const k = item.alias ?? item.name;
        const child: PlanChild = {
          key: k, name: item.name, parent: node, rel: relationship, join: item.join,
          toOne: relationship.cardinality !== 'o2m', cast: item.cast && castType(item.cast, true),
          node: build(target, item.items, [...path, k]),
        };
        node.children.push(child);
        if (item.items.length) node.out.push({ kind: 'embed', key: k, child });
      }
    }
    return node;
  };
  const root = build(rel, query.select, []);
  for (const key of query.nodes.keys()) {
    if (!used.has(key)) {
      throw new ApiError(400, 'PGRST108', `'${key.slice(0, 100)}' is not an embedded resource in this request`, null,
        `Verify that '${key.slice(0, 100)}' is included in the 'select' query parameter.`);
    }
  }
  return root;
}

/** The child embedded under `key` (alias first, then relation name). */
export function childOf(node: PlanNode, key: string): PlanChild | undefined {
  return node.children.find((c) => c.key === key) ?? node.children.find((c) => c.name === key);
}
