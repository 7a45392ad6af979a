/** One `->` / `->>` step of a JSON path; `->>` yields text. */
export interface JsonStep {
  arrow: '->' | '->>';
  key: string;
}

/** A column, optionally followed by a JSON path: `labels->>env`. */
export interface FieldRef {
  name: string;
  json: JsonStep[];
}

export interface StarItem {
  type: 'star';
}

export interface FieldItem {
  type: 'field';
  field: FieldRef;
  alias?: string;
  cast?: string;
}

/** `alias:name!hint!inner(items)::cast`; name is a relation or an FK column. */
export interface EmbedItem {
  type: 'embed';
  name: string;
  alias?: string;
  hint?: string;
  join: 'left' | 'inner';
  cast?: string;
  items: SelectItem[];
}

export type SelectItem = StarItem | FieldItem | EmbedItem;

export const OPERATORS = [
  'eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch', 'in', 'is', 'isdistinct',
  'cs', 'cd', 'ov', 'fts', 'plfts', 'phfts', 'wfts',
] as const;
export type Operator = (typeof OPERATORS)[number];
export const FTS_OPERATORS: ReadonlySet<string> = new Set(['fts', 'plfts', 'phfts', 'wfts']);

/** Operators that take an `(any)` / `(all)` quantifier over a `{a,b}` list: `like(any).{*a*,*b*}`. */
export const QUANT_OPERATORS: ReadonlySet<string> = new Set(['eq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch']);

/** `embed.path.field=not.op(config).value`; `list` is set for `in`, `quant` for `op(any|all)`. */
export interface Condition {
  type: 'cond';
  embed: string[];
  field: FieldRef;
  negate: boolean;
  op: Operator;
  value: string;
  list?: string[];
  config?: string;
  quant?: 'any' | 'all';
}

export interface Logic {
  type: 'logic';
  op: 'and' | 'or';
  negate: boolean;
  children: Filter[];
}

export type Filter = Condition | Logic;

/** `field.desc.nullslast`, or `embed(field).asc` for a to-one embed. */
export interface OrderTerm {
  embed?: string;
  field: FieldRef;
  dir: 'asc' | 'desc' | null;
  nulls: 'first' | 'last' | null;
}

/** Filters, order and paging that apply to one node of the select tree ('' = top level, else `a.b`). */
export interface NodeModifiers {
  filters: Filter[];
  order?: OrderTerm[];
  limit?: number;
  offset?: number;
}

/** Everything the query string says, before it is checked against the schema. */
export interface ParsedQuery {
  select: SelectItem[];
  /** Keyed by embed path joined with '.' ('' for the top level). */
  nodes: Map<string, NodeModifiers>;
  onConflict?: string[];
  columns?: string[];
  /** RPC GET arguments (query keys that name a function argument). */
  args: Map<string, string>;
}
