import type pg from 'pg';
import { BadRequestError, ConflictError, NotFoundError } from '../../lib/errors.js';
import { notifyChange } from '../../lib/events.js';
import { isPgError } from '../../lib/pg-errors.js';
import type { RelationWriter } from '../db/writers.js';
import type { CrEdits } from './canary-edits.js';
import { connectionSpecOf, prepareConnection } from '../connections/body.js';
import { patchSpec } from '../connections/cr.js';
import { playbookCrSpec, preparePlaybookRow, webhookConflict } from '../playbooks/spec.js';
import { pathText } from '../playbooks/templates.js';
import { kindByKind, type KindDef } from './kinds.js';
import { insertSettingsRow, liveSettingsRow, softDeleteSettingsRow, updateSettingsRow } from './settings-queries.js';

type Row = Record<string, unknown>;
const isObj = (v: unknown): v is Row => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * How /api/db writes one settings table whose rows may also come from custom resources. The columns are the ones the
 * reference UI's forms send; `specOf` is what the kind's zod schema judges (the row's spec, or for connections the
 * spec its columns describe); `derive` fills columns the informer also derives from the spec.
 */
interface SettingsTable {
  kind: KindDef;
  /** Body columns besides name, namespace, labels, source and created_by. */
  columns: readonly string[];
  /** Whether a row needs a spec object (NOT NULL in the table, or what the form always sends). */
  specRequired: boolean;
  specOf(row: Row): unknown;
  /** Where a spec problem is reported: `spec.<path>`, or the column it came from. */
  problemPath(path: PropertyKey[]): string;
  derive?(row: Row): Row;
  /** Columns a CR-sourced row takes besides name, namespace and labels (mapped into the CR's spec by crSpec). */
  crColumns: readonly string[];
  crSpec?(current: Row, patch: Row): Row;
  /** The table's own rules on a body (`current`: the stored row of a PATCH); answers the columns to write. */
  prepare?(row: Row, current?: Row): Row;
  /** A database refusal of the table's own (a unique index besides the name's) as the error to answer, else undefined. */
  conflict?(err: unknown, row: Row): Error | undefined;
}

const specPath = (path: PropertyKey[]) => ['spec', ...path.map(String)].join('.');
const str = (v: unknown) => (typeof v === 'string' ? v : null);

/** A table whose row is its spec (plus plain columns): a CR-sourced row takes a new spec, nothing else. */
function specTable(kind: string, columns: readonly string[] = ['spec']): SettingsTable {
  return {
    kind: kindByKind(kind)!,
    columns,
    specRequired: true,
    specOf: (r) => r.spec,
    problemPath: specPath,
    crColumns: ['spec'],
    crSpec: (current, patch) => (isObj(patch.spec) ? patch.spec : isObj(current.spec) ? current.spec : {}),
  };
}

// Identifiers below come from these constants only; every value is a bound parameter.
export const SETTINGS_TABLES: Readonly<Record<string, SettingsTable>> = {
  topologies: {
    kind: kindByKind('Topology')!,
    columns: ['spec', 'schedule'],
    specRequired: true,
    specOf: (r) => r.spec,
    problemPath: specPath,
    // as the informer: the schedule column is the spec's unless the form names one
    derive: (r) => ({ schedule: str(r.schedule) ?? (isObj(r.spec) ? str(r.spec.schedule) : null) }),
    crColumns: ['spec', 'schedule'],
    crSpec: (current, patch) => {
      const spec = { ...(isObj(patch.spec) ? patch.spec : isObj(current.spec) ? current.spec : {}) };
      if (typeof patch.schedule === 'string') spec.schedule = patch.schedule;
      return spec;
    },
  },
  config_scrapers: specTable('ScrapeConfig', ['spec', 'description']),
  // Connections: secret-capable columns hold a static value or a reference; `***` (what a read shows of a static
  // secret) keeps the stored value (server/modules/connections/body.ts). A CR-sourced row is written back into the
  // CR's spec, in the typed block its author used (server/modules/connections/cr.ts).
  connections: {
    kind: kindByKind('Connection')!,
    columns: ['type', 'url', 'username', 'password', 'certificate', 'insecure_tls', 'properties'],
    specRequired: false,
    specOf: connectionSpecOf,
    problemPath: (path) => String(path[0] ?? 'type'),
    prepare: prepareConnection,
    crColumns: ['type', 'url', 'username', 'password', 'certificate', 'insecure_tls', 'properties'],
    crSpec: (current, patch) => patchSpec(isObj(current.spec) ? current.spec : {}, patch),
  },
  // Rules are stored, not yet evaluated; the Rules form sends name and spec.
  incident_rules: specTable('IncidentRule'),
  // Playbooks as the reference UI writes them: name = title, spec required and checked (templates and CEL too),
  // problems at `spec.actions[1].gitops`; the webhook path unique (409). A CR's row takes its columns into its spec.
  playbooks: {
    kind: kindByKind('Playbook')!,
    // id: the reference UI's PATCH body carries the row's own (preparePlaybookRow drops it; another id is a 400)
    columns: ['spec', 'title', 'description', 'icon', 'category', 'id'],
    specRequired: true,
    specOf: (r) => r.spec,
    problemPath: pathText,
    prepare: preparePlaybookRow,
    crColumns: ['spec', 'title', 'description', 'icon', 'category'],
    crSpec: playbookCrSpec,
    conflict: webhookConflict,
  },
  logging_backends: specTable('LoggingBackend'),
};

const COMMON = ['name', 'namespace', 'labels', 'source', 'created_by'];

/** The kind's zod schema over what a row describes; 400 with every problem by path. */
function validate(t: SettingsTable, row: Row): void {
  if (t.specRequired && !isObj(row.spec)) throw new BadRequestError(`invalid ${t.kind.kind} spec: spec must be an object`, { spec: 'an object is required' });
  if (t.kind.kind === 'Connection' && (typeof row.type !== 'string' || !row.type)) {
    throw new BadRequestError('invalid Connection: type is required', { type: 'a connection type is required' });
  }
  const r = t.kind.spec.safeParse(t.specOf(row));
  if (r.success) return;
  const problems: Record<string, string> = {};
  for (const issue of r.error.issues) problems[t.problemPath(issue.path)] ??= issue.message;
  const [first] = Object.entries(problems);
  throw new BadRequestError(`invalid ${t.kind.kind} spec: ${first[0]}: ${first[1]}`, problems);
}

function refuseSource(given: unknown, current?: unknown): void {
  if (given === undefined || given === null || given === 'UI' || (current !== undefined && given === current)) return;
  throw new BadRequestError(`source: a row written here has source 'UI'; '${String(given).slice(0, 60)}' cannot be set`, {
    source: "must be 'UI' (or left out)",
  });
}

function requireName(row: Row): void {
  if (typeof row.name !== 'string' || !row.name.trim()) throw new BadRequestError('name is required', { name: 'a name is required' });
}

/** Labels are Kubernetes labels: an object of strings (or null), never a list or a scalar. */
function requireLabels(row: Row): void {
  if (!('labels' in row) || row.labels === null) return;
  if (!isObj(row.labels) || Object.values(row.labels).some((v) => typeof v !== 'string')) {
    throw new BadRequestError('labels must be an object of strings', { labels: 'an object of strings is required' });
  }
}

/** A name already taken in its namespace (the tables' unique index on live rows) is a 409 saying so. */
function taken(err: unknown, row: Row, t?: SettingsTable): never {
  const own = t?.conflict?.(err, row);
  if (own) throw own;
  if (isPgError(err) && err.code === '23505') {
    const where = typeof row.namespace === 'string' && row.namespace ? ` in namespace ${row.namespace.slice(0, 63)}` : '';
    throw new ConflictError(`the name ${String(row.name).slice(0, 100)} is already taken${where}`, { name: 'already taken' });
  }
  throw err;
}

/**
 * The /api/db writer of one settings table: rows made here have source 'UI'; a row that comes from a custom resource
 * is edited and deleted in the cluster as the caller (crEdits; GitOps-managed ones are 403); other sources are 409.
 */
export function settingsWriter(db: pg.Pool, table: string, edits: CrEdits): RelationWriter {
  const t = SETTINGS_TABLES[table];
  const { kind } = t;
  // /api/db has refused any other body column already; this keeps identifiers to the constants above regardless
  const allowed = new Set([...COMMON, ...t.columns]);
  const current = async (id: string): Promise<Row> => {
    const row = await liveSettingsRow(db, table, id);
    if (!row) throw new NotFoundError(kind.kind, id);
    return row;
  };
  const only = (values: Row): Row => Object.fromEntries(Object.entries(values).filter(([c]) => allowed.has(c)));
  const refuseOtherSource = (row: Row) => {
    if (row.source && row.source !== 'UI') {
      throw new ConflictError(`the ${kind.kind} ${String(row.name)} is managed by its source (${String(row.source)}); change it there`);
    }
  };

  return {
    insertColumns: [...COMMON, ...t.columns],
    updateColumns: [...COMMON, ...t.columns],
    preconditions: ['resource_version'],

    check(row) {
      refuseSource(row.source);
      requireName(row);
      requireLabels(row);
      validate(t, t.prepare ? t.prepare(row) : row);
    },

    async create(body) {
      refuseSource(body.source);
      requireName(body);
      requireLabels(body);
      const row = t.prepare ? t.prepare(body) : body;
      validate(t, row);
      const id = await insertSettingsRow(db, table, only({ ...row, ...t.derive?.(row), source: 'UI' })).catch((err) => taken(err, row, t));
      await notifyChange(db, { relation: table, ids: [id] });
      return id;
    },

    async update(id, patch, caller) {
      const { resource_version: version, created_by: _creator, ...change } = patch;
      const row = await current(id);
      refuseSource(change.source, row.source);
      delete change.source;
      // created_by and an unchanged source are accepted (the reference UI resends them) and change nothing
      if (!Object.keys(change).length) return;
      requireLabels(change);
      if (t.prepare) {
        // the table's own rules; a `***` that keeps a stored secret leaves the body
        const prepared = t.prepare(change, row);
        for (const k of Object.keys(change)) if (!(k in prepared)) delete change[k];
        Object.assign(change, prepared);
        if (!Object.keys(change).length) return;
      }
      const viaCr = await edits.edit(kind, id, async () => {
        const other = Object.keys(change).filter((c) => !['name', 'namespace', 'labels', ...t.crColumns].includes(c));
        if (other.length) {
          throw new BadRequestError(`the ${kind.kind} comes from Kubernetes: ${other.join(', ')} cannot be changed here; edit its custom resource`);
        }
        const spec = t.crSpec ? t.crSpec(row, change) : (isObj(row.spec) ? row.spec : {});
        validate(t, { ...row, spec });
        return {
          name: typeof change.name === 'string' ? change.name : String(row.name),
          namespace: typeof change.namespace === 'string' ? change.namespace : String(row.namespace),
          labels: 'labels' in change ? (change.labels as Record<string, string> | null) : undefined,
          spec,
        };
      }, typeof version === 'string' ? version : undefined, caller.roles);
      if (viaCr) return;
      refuseOtherSource(row);
      if ('name' in change) requireName(change);
      const next = { ...row, ...change };
      validate(t, next);
      // derived from the new spec, unless the body names the derived column itself
      const derived = t.derive && ('spec' in change || 'schedule' in change) ? t.derive({ ...next, schedule: change.schedule }) : {};
      await updateSettingsRow(db, table, id, only({ ...change, ...derived })).catch((err) => taken(err, next, t));
      await notifyChange(db, { relation: table, ids: [id] });
    },

    async remove(id, caller) {
      if (await edits.remove(kind, id, caller.roles)) return;
      refuseOtherSource(await current(id));
      await softDeleteSettingsRow(db, table, id);
      await notifyChange(db, { relation: table, ids: [id] });
    },
  };
}
