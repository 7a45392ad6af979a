import { ApiError } from '../../lib/errors.js';
import type { ForeignKey, Relation, SchemaCache } from './schema-cache.js';

/** A way to embed `target` in `source`, derived from one foreign key (views inherit their base table's keys). */
export interface Relationship {
  constraint: string;
  source: string;
  target: string;
  /** m2o: the source holds the FK (object); o2m: the target does (array); o2o: o2m whose FK columns are unique (object). */
  cardinality: 'm2o' | 'o2m' | 'o2o';
  /** [source column, target column] pairs to join on. */
  pairs: [string, string][];
  /** Columns of the FK-holding side, and the columns they reference (for `!col` hints and `col(...)` embeds). */
  fkColumns: string[];
  refColumns: string[];
}

const covers = (r: Relation, cols: string[]) => cols.every((c) => r.columns.has(c));
const zip = (a: string[], b: string[]) => a.map((x, i) => [x, b[i]] as [string, string]);

/** Every relationship between registered relations, keyed by source relation. */
export function deriveRelationships(
  relations: Relation[], fks: ForeignKey[], keys: Map<string, { uniques: string[][] }>,
): Map<string, Relationship[]> {
  const out = new Map<string, Relationship[]>();
  const add = (r: Relationship) => out.set(r.source, [...(out.get(r.source) ?? []), r]);
  for (const fk of fks) {
    const holders = relations.filter((r) => r.table === fk.table && covers(r, fk.columns));
    const referenced = relations.filter((r) => r.table === fk.refTable && covers(r, fk.refColumns));
    const unique = (keys.get(fk.table)?.uniques ?? []).some(
      (u) => u.length === fk.columns.length && u.every((c) => fk.columns.includes(c)),
    );
    const base = { constraint: fk.name, fkColumns: fk.columns, refColumns: fk.refColumns };
    for (const s of holders) {
      for (const t of referenced) add({ ...base, source: s.name, target: t.name, cardinality: 'm2o', pairs: zip(fk.columns, fk.refColumns) });
    }
    for (const s of referenced) {
      for (const t of holders) {
        add({ ...base, source: s.name, target: t.name, cardinality: unique ? 'o2o' : 'o2m', pairs: zip(fk.refColumns, fk.columns) });
      }
    }
  }
  return out;
}

const CARDINALITY = { m2o: 'many-to-one', o2m: 'one-to-many', o2o: 'one-to-one' } as const;

/**
 * Finds the relationship an embed `name!hint(...)` means, as PostgREST does: `name` is a relation, or the FK column
 * of a many-to-one (`created_by(...)`, which only considers tables, not views over them), or failing both that FK
 * column without its `_id` suffix (`team(...)` for `team_id`); the hint is a constraint
 * name or a single FK column. None → 400 PGRST200; several → 300 PGRST201 listing the candidates.
 */
export function findRelationship(cache: SchemaCache, source: Relation, name: string, hint?: string): Relationship {
  const all = cache.relationships.get(source.name) ?? [];
  const byColumn = (r: Relationship, column: string) =>
    r.cardinality === 'm2o' && r.fkColumns.length === 1 && r.fkColumns[0] === column && !cache.relations.get(r.target)!.isView;
  let found = all.filter((r) => r.target === name || byColumn(r, name));
  // `team(...)` for the FK column team_id, as the spec's responder call writes it
  // (`responders?select=*,team(id,name,icon,spec),person(id,name,avatar)`): only when nothing else matched.
  if (!found.length) found = all.filter((r) => byColumn(r, `${name}_id`));
  if (hint !== undefined) {
    found = found.filter((r) =>
      r.constraint === hint || (r.fkColumns.length === 1 && (r.fkColumns[0] === hint || r.refColumns[0] === hint)));
  }
  if (found.length === 1) return found[0];
  const shown = hint ? `${name}!${hint}` : name;
  if (found.length === 0) {
    throw new ApiError(400, 'PGRST200',
      `Could not find a relationship between '${source.name}' and '${shown.slice(0, 100)}' in the schema cache`,
      `Searched for a foreign key relationship between '${source.name}' and '${shown.slice(0, 100)}' in the schema 'public', but no matches were found.`,
      cache.relations.has(name) ? null : 'Embeds may name a relation of the API or a foreign key column.');
  }
  throw new ApiError(300, 'PGRST201',
    `Could not embed because more than one relationship was found for '${source.name}' and '${name}'`,
    found.map((r) => ({
      cardinality: CARDINALITY[r.cardinality],
      embedding: `${source.name} with ${r.target}`,
      relationship: `${r.constraint} using ${source.name}(${r.pairs.map((p) => p[0]).join(', ')}) and ${r.target}(${r.pairs.map((p) => p[1]).join(', ')})`,
    })),
    `Try changing '${name}' to one of the following: ${found.map((r) => `'${name}!${r.constraint}'`).join(', ')}. Find the desired relationship in the 'details' key.`);
}
