import type pg from 'pg';
import { FUNCTIONS as ALL_FUNCTIONS, RELATIONS as ALL_RELATIONS, type FunctionSpec, type RelationSpec } from './registry.js';

/** Which registry entries a mode exposes (the check runner: the health relations only); all when unset. */
export type RegistryFilter = (name: string, resource: string) => boolean;
import { deriveRelationships, type Relationship } from './relationships.js';

export interface Column {
  name: string;
  /** format_type() of the column, e.g. `text[]`, `timestamp with time zone`. Emitted as a cast, never user-supplied. */
  type: string;
  /** pg_type.typcategory: S string, A array, U user (json/jsonb/uuid), B boolean, N numeric, D date/time... */
  category: string;
  /** The SQL function the column is read through (registry `masked`); its raw value never reaches SQL output. */
  mask?: string;
}

/** A registered relation (or a function's row type) as the API sees it: hidden columns are gone. */
export interface Relation {
  name: string;
  spec: RelationSpec;
  /** The table whose keys and foreign keys apply: itself for tables, `spec.base` for views. */
  table: string;
  isView: boolean;
  columns: Map<string, Column>;
  /** Visible columns in table order, what `*` expands to. */
  visible: Column[];
  pk: string[];
  /** Column sets of the primary key and of non-partial unique indexes (upsert targets). */
  uniques: string[][];
}

export interface FunctionArg {
  name: string;
  type: string;
  hasDefault: boolean;
}

export interface FunctionInfo {
  name: string;
  spec: FunctionSpec;
  args: FunctionArg[];
  volatile: boolean;
  returnsSet: boolean;
  /** Set for functions returning rows: the registered relation of that row type, or an ad-hoc one. */
  rows?: Relation;
}

export interface ForeignKey {
  name: string;
  table: string;
  columns: string[];
  refTable: string;
  refColumns: string[];
}

export interface SchemaCache {
  relations: Map<string, Relation>;
  /** Relationships by source relation name. */
  relationships: Map<string, Relationship[]>;
  functions: Map<string, FunctionInfo>;
  tsConfigs: Set<string>;
}

const COLUMNS_SQL = `
  SELECT c.relname AS rel, c.relkind AS kind, a.attname AS col, format_type(a.atttypid, a.atttypmod) AS type,
         t.typcategory AS cat
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
  JOIN pg_type t ON t.oid = a.atttypid
  WHERE n.nspname = 'public' AND c.relkind IN ('r', 'v', 'm', 'p', 'f', 'c')
  ORDER BY c.relname, a.attnum`;

const UNIQUES_SQL = `
  SELECT c.relname AS rel, i.indisprimary AS pk,
         ARRAY(SELECT a.attname FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(num, ord)
               JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.num ORDER BY k.ord)::text[] AS cols
  FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = 'public' AND i.indisunique AND i.indpred IS NULL AND i.indexprs IS NULL`;

const FKS_SQL = `
  SELECT con.conname AS name, c.relname AS rel, f.relname AS ref,
         ARRAY(SELECT a.attname FROM unnest(con.conkey) WITH ORDINALITY k(num, ord)
               JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num ORDER BY k.ord)::text[] AS cols,
         ARRAY(SELECT a.attname FROM unnest(con.confkey) WITH ORDINALITY k(num, ord)
               JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.num ORDER BY k.ord)::text[] AS ref_cols
  FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_class f ON f.oid = con.confrelid
  WHERE n.nspname = 'public' AND con.contype = 'f'`;

const FUNCTIONS_SQL = `
  SELECT p.proname AS name, p.proretset AS set, p.provolatile AS vol, rc.relname AS ret_rel,
         coalesce(p.proargnames, '{}')::text[] AS names, coalesce(p.proargmodes::text[], '{}') AS modes,
         ARRAY(SELECT format_type(t, NULL) FROM unnest(coalesce(p.proallargtypes, p.proargtypes::oid[]))
               WITH ORDINALITY u(t, ord) ORDER BY ord)::text[] AS types,
         p.pronargdefaults AS ndefaults, format_type(p.prorettype, NULL) AS ret_type,
         (SELECT count(*) FROM pg_proc o WHERE o.proname = p.proname AND o.pronamespace = p.pronamespace) AS overloads
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
  JOIN pg_type rt ON rt.oid = p.prorettype LEFT JOIN pg_class rc ON rc.oid = rt.typrelid
  WHERE n.nspname = 'public' AND p.proname = ANY($1)`;

type ColumnRow = { rel: string; kind: string; col: string; type: string; cat: string };

/**
 * Reads columns, keys, foreign keys and functions from pg_catalog once (at start-up, after migrations) and joins
 * them with the registry. A registry entry naming a missing relation or function is a start-up error.
 */
export async function loadSchemaCache(db: pg.Pool, only?: RegistryFilter): Promise<SchemaCache> {
  const keep = <S extends { resource: string }>(reg: Readonly<Record<string, S>>) =>
    Object.fromEntries(Object.entries(reg).filter(([name, spec]) => !only || only(name, spec.resource)));
  const RELATIONS = keep(ALL_RELATIONS);
  const FUNCTIONS = keep(ALL_FUNCTIONS);
  const [cols, uniques, fks, fns, ts] = await Promise.all([
    db.query<ColumnRow>(COLUMNS_SQL),
    db.query<{ rel: string; pk: boolean; cols: string[] }>(UNIQUES_SQL),
    db.query<{ name: string; rel: string; ref: string; cols: string[]; ref_cols: string[] }>(FKS_SQL),
    db.query(FUNCTIONS_SQL, [Object.keys(FUNCTIONS)]),
    db.query<{ cfgname: string }>('SELECT cfgname FROM pg_ts_config'),
  ]);
  const byRel = new Map<string, ColumnRow[]>();
  for (const r of cols.rows) byRel.set(r.rel, [...(byRel.get(r.rel) ?? []), r]);
  const keys = new Map<string, { pk: string[]; uniques: string[][] }>();
  for (const u of uniques.rows) {
    const k = keys.get(u.rel) ?? { pk: [], uniques: [] };
    if (u.pk) k.pk = u.cols;
    k.uniques.push(u.cols);
    keys.set(u.rel, k);
  }

  const relation = (name: string, spec: RelationSpec, rows: ColumnRow[]): Relation => {
    const hidden = new Set(spec.hidden ?? []);
    const masks = spec.masked ?? {};
    for (const c of Object.keys(masks)) if (!rows.some((r) => r.col === c)) throw new Error(`/api/db registry: masked column ${name}.${c} does not exist`);
    const visible = rows.filter((r) => !hidden.has(r.col))
      .map((r) => ({ name: r.col, type: r.type, category: r.cat, ...(Object.hasOwn(masks, r.col) ? { mask: masks[r.col] } : {}) }));
    const table = spec.base ?? name;
    const has = (c: string[]) => c.length > 0 && c.every((x) => visible.some((v) => v.name === x));
    const k = keys.get(table) ?? { pk: [], uniques: [] };
    return {
      name, spec, table, isView: rows[0]?.kind === 'v' || rows[0]?.kind === 'm',
      columns: new Map(visible.map((c) => [c.name, c])), visible,
      pk: has(k.pk) ? k.pk : [], uniques: k.uniques.filter(has),
    };
  };

  const relations = new Map<string, Relation>();
  for (const [name, spec] of Object.entries(RELATIONS)) {
    const rows = byRel.get(name);
    if (!rows || rows[0].kind === 'c') throw new Error(`/api/db registry: relation ${name} does not exist`);
    if (spec.base && !byRel.has(spec.base)) throw new Error(`/api/db registry: base table ${spec.base} of ${name} does not exist`);
    relations.set(name, relation(name, spec, rows));
  }

  const functions = new Map<string, FunctionInfo>();
  for (const f of fns.rows) {
    if (Number(f.overloads) > 1) throw new Error(`/api/db registry: function ${f.name} is overloaded; expose one signature`);
    const spec = FUNCTIONS[f.name];
    const modes: string[] = f.modes.length ? f.modes : f.types.map(() => 'i');
    const inputs = modes.flatMap((m, i) => (m === 'i' || m === 'b' || m === 'v' ? [i] : []));
    const outputs = modes.flatMap((m, i) => (m === 'o' || m === 'b' || m === 't' ? [i] : []));
    const args = inputs.map((i, n) => ({
      name: f.names[i] ?? '', type: f.types[i], hasDefault: n >= inputs.length - Number(f.ndefaults),
    }));
    if (args.some((a) => !a.name)) throw new Error(`/api/db registry: function ${f.name} has unnamed arguments`);
    let rows: Relation | undefined;
    if (f.ret_rel) {
      rows = relations.get(f.ret_rel) ??
        relation(f.name, { resource: spec.resource }, (byRel.get(f.ret_rel) ?? []).map((r) => ({ ...r, kind: 'c' })));
      if (!relations.has(f.ret_rel)) rows.table = '';
    } else if (f.ret_type === 'record' && outputs.length) {
      rows = relation(f.name, { resource: spec.resource },
        outputs.map((i) => ({ rel: f.name, kind: 'c', col: f.names[i], type: f.types[i], cat: f.types[i].endsWith('[]') ? 'A' : 'X' })));
      rows.table = '';
    }
    functions.set(f.name, { name: f.name, spec, args, volatile: f.vol === 'v', returnsSet: f.set, rows });
  }
  for (const name of Object.keys(FUNCTIONS)) {
    if (!functions.has(name)) throw new Error(`/api/db registry: function ${name} does not exist`);
  }

  const foreignKeys: ForeignKey[] = fks.rows.map((r) => ({
    name: r.name, table: r.rel, columns: r.cols, refTable: r.ref, refColumns: r.ref_cols,
  }));
  return {
    relations,
    relationships: deriveRelationships([...relations.values()], foreignKeys, keys),
    functions,
    tsConfigs: new Set(ts.rows.map((r) => r.cfgname)),
  };
}
